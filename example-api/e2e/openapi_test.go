package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// databaseWithUnknownField is a v1 Database whose spec has a field the schema does not know.
const databaseWithUnknownField = `apiVersion: db.example.com/v1
kind: Database
metadata:
  name: %s
  namespace: default
spec:
  engine: postgres
  replicaz: 3
`

// writeManifest writes a Database manifest named name to a temporary file and returns its path.
func writeManifest(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(databaseWithUnknownField, "%s", name, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestKubectlExplain shows kubectl explain reading the published OpenAPI v3 documents: the
// doc comment and type of a field of the preferred version, and a kind of another version.
func TestKubectlExplain(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)

	out := s.mustKubectl(t, "explain", "databases.spec.replicas")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^GROUP:\s+db\.example\.com$`),
		regexp.MustCompile(`(?m)^KIND:\s+Database$`),
		regexp.MustCompile(`(?m)^VERSION:\s+v1$`),
		regexp.MustCompile(`(?m)^FIELD:\s+replicas <integer>$`),
		regexp.MustCompile(`Replicas is the number of instances, 0 to 9\.`),
	} {
		if !want.MatchString(out) {
			t.Errorf("kubectl explain databases.spec.replicas lacks %s:\n%s", want, out)
		}
	}

	out = s.mustKubectl(t, "explain", "databases.spec", "--api-version=db.example.com/v1alpha1")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^VERSION:\s+v1alpha1$`),
		regexp.MustCompile(`(?m)^FIELD:\s+spec <DatabaseSpec>$`),
		regexp.MustCompile(`(?m)^\s+engine\s+<string> -required-$`),
		regexp.MustCompile(`(?m)^\s+sizeGiB\s+<integer>$`), // v1alpha1 only; v1 has storage
	} {
		if !want.MatchString(out) {
			t.Errorf("kubectl explain --api-version=db.example.com/v1alpha1 lacks %s:\n%s", want, out)
		}
	}
	s.mustKubectl(t, "explain", "databases", "--api-version=db.example.com/v1alpha1")

	out = s.mustKubectl(t, "explain", "databases.spec.engine")
	if !strings.Contains(out, "ENUM:") || !strings.Contains(out, "postgres") || !strings.Contains(out, "mysql") {
		t.Errorf("kubectl explain databases.spec.engine does not list the enum:\n%s", out)
	}
}

// TestKubectlFieldValidation shows kubectl's --validate modes against the server: strict
// rejects an unknown field naming it, warn creates the object and prints the warning, and a
// server-side dry run validates without creating.
func TestKubectlFieldValidation(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)

	out, err := s.kubectl(t, "apply", "--validate=strict", "-f", writeManifest(t, "strict"))
	if err == nil {
		t.Fatalf("kubectl apply --validate=strict accepted an unknown field:\n%s", out)
	}
	if !strings.Contains(out, `unknown field "spec.replicaz"`) {
		t.Errorf("kubectl apply --validate=strict does not name the unknown field:\n%s", out)
	}
	if out, err := s.kubectl(t, "get", "database", "strict"); err == nil {
		t.Errorf("kubectl apply --validate=strict created the Database:\n%s", out)
	}

	out = s.mustKubectl(t, "apply", "--validate=warn", "-f", writeManifest(t, "warned"))
	if !strings.Contains(out, `unknown field "spec.replicaz"`) {
		t.Errorf("kubectl apply --validate=warn printed no warning naming the field:\n%s", out)
	}
	s.mustKubectl(t, "get", "database", "warned")

	out = s.mustKubectl(t, "create", "--dry-run=server", "-o", "json", "-f", filepath.Join(samplesDir, "db_v1_database.yaml"))
	var created struct {
		Spec struct {
			Replicas *int64 `json:"replicas"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatalf("kubectl create --dry-run=server -o json printed no object: %v\n%s", err, out)
	}
	if created.Spec.Replicas == nil || *created.Spec.Replicas != 1 {
		t.Errorf("kubectl create --dry-run=server did not return the defaulted object:\n%s", out)
	}
	if out, err := s.kubectl(t, "get", "database", "orders"); err == nil {
		t.Errorf("kubectl create --dry-run=server created the Database:\n%s", out)
	}

	out, err = s.kubectl(t, "create", "--dry-run=server", "--validate=strict", "-f", writeManifest(t, "dryrun"))
	if err == nil || !strings.Contains(out, `unknown field "spec.replicaz"`) {
		t.Errorf("kubectl create --dry-run=server --validate=strict did not reject the unknown field (err %v):\n%s", err, out)
	}
}

// TestOpenAPIDocuments reads the documents kubectl reads (/openapi/v3/apis/<group>/<version>
// and /openapi/v2) and checks what the generator put in them from the markers of
// example-api/apis/db/v1/types.go: descriptions, defaults, constraints, list extensions, CEL
// rules, the group-version-kind extension, and Quantity and Time as openapi-gen describes them.
func TestOpenAPIDocuments(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)

	var v3 struct {
		Components struct {
			Schemas map[string]jsonSchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(s.mustKubectlQuiet(t, "get", "--raw", "/openapi/v3/apis/db.example.com/v1")), &v3); err != nil {
		t.Fatalf("/openapi/v3/apis/db.example.com/v1 is not a JSON document: %v", err)
	}
	schemas := v3.Components.Schemas
	resolve := func(s jsonSchema) jsonSchema {
		ref, _ := s["$ref"].(string)
		if all, ok := s["allOf"].([]interface{}); ok && len(all) == 1 {
			ref, _ = all[0].(map[string]interface{})["$ref"].(string)
		}
		if ref == "" {
			return s
		}
		return schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
	}
	database := schemaOfKind(t, schemas, "db.example.com", "v1", "Database")
	spec := resolve(database.prop(t, "spec"))
	checkJSON(t, "Database.spec.replicas", spec.prop(t, "replicas"), map[string]interface{}{
		"description": "Replicas is the number of instances, 0 to 9.",
		"type":        "integer", "format": "int32", "default": 1.0, "minimum": 0.0, "maximum": 9.0,
	})
	checkJSON(t, "Database.spec.engine", spec.prop(t, "engine"), map[string]interface{}{
		"enum":                     []interface{}{"postgres", "mysql"},
		"x-kubernetes-validations": []interface{}{map[string]interface{}{"rule": "self == oldSelf", "message": "engine is immutable"}},
	})
	checkJSON(t, "Database.spec.version", spec.prop(t, "version"), map[string]interface{}{"pattern": `^[0-9]+(\.[0-9]+)*$`})
	checkJSON(t, "Database.spec.parameters", spec.prop(t, "parameters"), map[string]interface{}{"maxProperties": 64.0})
	checkJSON(t, "Database.spec", spec, map[string]interface{}{"required": []interface{}{"engine"}})
	storage := resolve(spec.prop(t, "storage"))
	checkJSON(t, "Quantity", storage, map[string]interface{}{
		"oneOf": []interface{}{map[string]interface{}{"type": "string"}, map[string]interface{}{"type": "number"}},
	})
	checkJSON(t, "Database.spec.backup.retentionDays", resolve(spec.prop(t, "backup")).prop(t, "retentionDays"),
		map[string]interface{}{"default": 7.0, "minimum": 1.0})
	status := resolve(database.prop(t, "status"))
	checkJSON(t, "Database.status.conditions", status.prop(t, "conditions"), map[string]interface{}{
		"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []interface{}{"type"},
	})
	created := resolve(resolve(database.prop(t, "metadata")).prop(t, "creationTimestamp"))
	checkJSON(t, "Time", created, map[string]interface{}{"type": "string", "format": "date-time"})
	backupSpec := resolve(schemaOfKind(t, schemas, "db.example.com", "v1", "Backup").prop(t, "spec"))
	checkJSON(t, "Backup.spec.databaseName", backupSpec.prop(t, "databaseName"), map[string]interface{}{
		"minLength": 1.0, "maxLength": 253.0, "format": "k8s-long-name",
	})

	var v2 struct {
		Definitions map[string]jsonSchema `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(s.mustKubectlQuiet(t, "get", "--raw", "/openapi/v2")), &v2); err != nil {
		t.Fatalf("/openapi/v2 is not a JSON document: %v", err)
	}
	for _, version := range []string{"v1", "v1alpha1"} {
		schemaOfKind(t, v2.Definitions, "db.example.com", version, "Database")
	}
}

// jsonSchema is one schema of a decoded OpenAPI document.
type jsonSchema map[string]interface{}

// prop returns the schema of property name, failing the test when there is none.
func (s jsonSchema) prop(t *testing.T, name string) jsonSchema {
	t.Helper()
	props, _ := s["properties"].(map[string]interface{})
	p, ok := props[name].(map[string]interface{})
	if !ok {
		t.Fatalf("schema has no property %q: %v", name, s)
	}
	return p
}

// schemaOfKind returns the schema whose x-kubernetes-group-version-kind names group, version
// and kind, failing the test when no schema does.
func schemaOfKind(t *testing.T, schemas map[string]jsonSchema, group, version, kind string) jsonSchema {
	t.Helper()
	want := map[string]interface{}{"group": group, "version": version, "kind": kind}
	for _, s := range schemas {
		gvks, _ := s["x-kubernetes-group-version-kind"].([]interface{})
		for _, gvk := range gvks {
			if reflect.DeepEqual(gvk, want) {
				return s
			}
		}
	}
	t.Fatalf("no schema has x-kubernetes-group-version-kind %v", want)
	return nil
}

// checkJSON reports every key of want whose value in got differs.
func checkJSON(t *testing.T, what string, got jsonSchema, want map[string]interface{}) {
	t.Helper()
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s: %s = %#v, want %#v", what, k, got[k], v)
		}
	}
}

// mustKubectlQuiet runs kubectl as mustKubectl does without logging its (large) output.
func (s *apiServer) mustKubectlQuiet(t *testing.T, args ...string) string {
	t.Helper()
	out, err := s.kubectl(t, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
