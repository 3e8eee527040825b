package crddiff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	dbinstall "github.com/apigen-dev/apigen/example-api/apis/db/install"
)

// dbV1alpha1 is the Go package of example-api's db/v1alpha1 types.
const dbV1alpha1 = "github.com/apigen-dev/apigen/example-api/apis/db/v1alpha1"

// publishedKinds are the kinds whose published schemas are checked: every row of kinds and
// example-api's db/v1alpha1 Database, which controller-gen's load does not hold (its CRD
// template is db/v1's Database, see publishedCRD).
var publishedKinds = append(append([]kindUnderTest(nil), kinds...), kindUnderTest{
	group: "db.example.com", version: "v1alpha1", kind: "Database", pkg: dbV1alpha1, build: dbinstall.NewAPIGroupInfo,
})

// quantityPattern is the grammar resource.Quantity's published definition states in its
// description (a BNF), written as the regular expression controller-tools v0.23.0 puts into a
// CRD for a Quantity (pkg/crd/known_types.go).
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// intOrStringDefinitions are the published definitions a structural schema can only write as
// x-kubernetes-int-or-string (OpenAPI v3 `oneOf: [{type: string}, {type: number}]` for a
// Quantity, `[{type: integer}, {type: string}]` for an IntOrString), with the pattern each
// states, if any.
var intOrStringDefinitions = map[string]string{
	"io.k8s.apimachinery.pkg.api.resource.Quantity":   quantityPattern,
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": "",
}

// get sends a GET for path to the subject and returns the body of a 200 answer.
func (s *subject) get(path string) ([]byte, error) {
	code, body := s.do(http.MethodGet, path, nil)
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, code, body)
	}
	return body, nil
}

// do sends a request with a JSON body (none when nil) to the subject's handler and returns
// the status code and body of the answer.
func (s *subject) do(method, path string, body []byte) (int, []byte) {
	req := httptest.NewRequestWithContext(context.Background(), method, path, bytes.NewReader(body))
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// update PUTs body to path with dryRun=All and fieldValidation=Strict and returns the answer.
func (s *subject) update(path string, body []byte) outcome {
	code, resp := s.do(http.MethodPut, path+"?dryRun=All&fieldValidation=Strict", body)
	if code == http.StatusOK {
		var obj map[string]any
		if err := utiljson.Unmarshal(resp, &obj); err == nil {
			return accepted(obj)
		}
	}
	var status metav1.Status
	if err := utiljson.Unmarshal(resp, &status); err != nil || status.Kind != "Status" {
		return outcome{code: int32(code), message: "not a Status: " + string(resp)}
	}
	return fromStatus(status)
}

// publishedSchema returns the schema the subject publishes for k: the definition of its
// /openapi/v3/apis/<group>/<version> document that names the kind in
// x-kubernetes-group-version-kind (as kubectl finds a kind's schema), with every $ref
// resolved (resolver), metadata written as a CRD writes it (type: object) and the
// group-version-kind extension dropped, converted to apiextensions' JSONSchemaProps. The
// conversion fails, rather than drop anything, on a statement JSONSchemaProps cannot hold.
func (s *subject) publishedSchema(k kindUnderTest) (*apiextensionsv1.JSONSchemaProps, error) {
	body, err := s.get("/openapi/v3/apis/" + k.group + "/" + k.version)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("cannot read the OpenAPI v3 document of %s/%s: %w", k.group, k.version, err)
	}
	var names []string
	for name, def := range doc.Components.Schemas {
		if namesKind(def, k) {
			names = append(names, name)
		}
	}
	if len(names) != 1 {
		return nil, fmt.Errorf("the OpenAPI v3 document of %s/%s has %d definitions of %s: %v", k.group, k.version, len(names), k.kind, names)
	}
	kind := doc.Components.Schemas[names[0]]
	if err := metadataAsObject(kind); err != nil {
		return nil, fmt.Errorf("%s: %w", names[0], err)
	}
	r := &resolver{defs: doc.Components.Schemas}
	root, err := r.resolve(kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", names[0], err)
	}
	delete(root, "x-kubernetes-group-version-kind")
	return toJSONSchemaProps(root)
}

// objectMetaRef is how a kind's definition references metav1.ObjectMeta.
const objectMetaRef = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// metadataAsObject replaces, in place, the metadata property of kind, which must reference
// metav1.ObjectMeta, by `type: object`, as a CRD's schema has it (the API server validates
// metadata itself).
func metadataAsObject(kind map[string]any) error {
	props, _ := kind["properties"].(map[string]any)
	md, _ := props["metadata"].(map[string]any)
	all, _ := md["allOf"].([]any)
	if len(all) != 1 || !reflect.DeepEqual(all[0], map[string]any{"$ref": objectMetaRef}) {
		return fmt.Errorf("metadata is %v, not a reference to %s", md, objectMetaRef)
	}
	props["metadata"] = map[string]any{"type": "object"}
	return nil
}

// namesKind reports whether def's x-kubernetes-group-version-kind lists k's kind.
func namesKind(def map[string]any, k kindUnderTest) bool {
	gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
	for _, g := range gvks {
		m, _ := g.(map[string]any)
		if m["group"] == k.group && m["version"] == k.version && m["kind"] == k.kind {
			return true
		}
	}
	return false
}

// resolver inlines the $refs of an OpenAPI v3 document's schemas.
type resolver struct {
	defs map[string]map[string]any
	// stack is the definitions being resolved, to refuse a recursive type.
	stack []string
}

// resolve returns a copy of s with every reference inlined: a `$ref` (alone, or as kube-openapi
// writes a reference with siblings, `allOf: [{$ref}]` beside description or default) is
// replaced by the referenced definition, resolved, with the siblings merged in (merge); a
// definition intOrStringDefinitions names is written as x-kubernetes-int-or-string. Errors: an
// unknown or recursive reference, conflicting constraints, a oneOf it does not know.
func (r *resolver) resolve(s map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	ref, _ := out["$ref"].(string)
	if all, ok := out["allOf"].([]any); ok && len(all) == 1 {
		if m, ok := all[0].(map[string]any); ok && len(m) == 1 && m["$ref"] != nil {
			ref, _ = m["$ref"].(string)
			delete(out, "allOf")
		}
	}
	if ref != "" {
		delete(out, "$ref")
		base, err := r.definition(ref)
		if err != nil {
			return nil, err
		}
		if out, err = merge(base, out); err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
	}
	if _, ok := out["oneOf"]; ok {
		return nil, fmt.Errorf("a oneOf outside %v has no structural form: %v", sortedKeys(intOrStringDefinitions), out["oneOf"])
	}
	return out, r.resolveChildren(out)
}

// definition returns the resolved definition ref (#/components/schemas/<name>).
func (r *resolver) definition(ref string) (map[string]any, error) {
	name, local := strings.CutPrefix(ref, "#/components/schemas/")
	def, ok := r.defs[name]
	if !local || !ok {
		return nil, fmt.Errorf("unknown reference %q", ref)
	}
	for _, n := range r.stack {
		if n == name {
			return nil, fmt.Errorf("recursive reference to %s", name)
		}
	}
	if pattern, ok := intOrStringDefinitions[name]; ok {
		out := map[string]any{"x-kubernetes-int-or-string": true,
			"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}
		if pattern != "" {
			out["pattern"] = pattern
		}
		if d, ok := def["description"]; ok {
			out["description"] = d
		}
		return out, nil
	}
	r.stack = append(r.stack, name)
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()
	return r.resolve(def)
}

// resolveChildren resolves, in place, the schemas s holds: properties, items,
// additionalProperties, and those of allOf, anyOf and not.
func (r *resolver) resolveChildren(s map[string]any) error {
	var err error
	one := func(v any) any {
		m, ok := v.(map[string]any)
		if !ok || err != nil {
			return v
		}
		var res map[string]any
		res, err = r.resolve(m)
		return res
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			props[k] = one(props[k])
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if v, ok := s[k]; ok {
			s[k] = one(v)
		}
	}
	for _, k := range []string{"allOf", "anyOf"} {
		if l, ok := s[k].([]any); ok {
			for i := range l {
				l[i] = one(l[i])
			}
		}
	}
	return err
}

// merge returns base with the siblings of a reference to it: description and default replace
// base's, x-kubernetes-validations and required add to base's, any other key must agree with
// base's (a reference's siblings in kube-openapi's output describe the field, so a differing
// constraint would be a second one that this conversion could not write down).
func merge(base, siblings map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for _, k := range sortedKeys(siblings) {
		v := siblings[k]
		switch old, had := out[k]; {
		case k == "description" || k == "default" || !had:
			out[k] = v
		case k == "x-kubernetes-validations" || k == "required":
			out[k] = append(append([]any(nil), old.([]any)...), v.([]any)...)
		case !reflect.DeepEqual(old, v):
			return nil, fmt.Errorf("the reference's %s %v conflicts with the definition's %v", k, v, old)
		}
	}
	return out, nil
}

// toJSONSchemaProps converts a resolved schema to JSONSchemaProps, and fails when encoding it
// again does not give the same JSON: a key JSONSchemaProps has no field for would be lost.
func toJSONSchemaProps(s map[string]any) (*apiextensionsv1.JSONSchemaProps, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	props := &apiextensionsv1.JSONSchemaProps{}
	if err := json.Unmarshal(data, props); err != nil {
		return nil, fmt.Errorf("cannot read the published schema as JSONSchemaProps: %w", err)
	}
	again, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	var want, got any
	_ = json.Unmarshal(data, &want)
	_ = json.Unmarshal(again, &got)
	var diffs []difference
	diffValues("", want, got, true, true, &diffs)
	if len(diffs) > 0 {
		return nil, fmt.Errorf("JSONSchemaProps cannot hold what the published schema states:\n%s", summary(diffs))
	}
	return props, nil
}

// publishedCRD returns controller-gen's CRD of k's kind reduced to k's version, served and
// stored, with schema (the published one) as its schema. A version controller-gen did not load
// takes the entry of the CRD's storage version; either way the version's subresources must be
// those the subject's discovery lists for the kind.
func (s *subject) publishedCRD(k kindUnderTest, schema *apiextensionsv1.JSONSchemaProps) (*apiextensionsv1.CustomResourceDefinition, error) {
	crds, err := generatedCRDs()
	if err != nil {
		return nil, err
	}
	base, ok := crds[k.group+"/"+k.kind]
	if !ok {
		return nil, fmt.Errorf("controller-gen wrote no CRD for %s", k.name())
	}
	crd := base.DeepCopy()
	var entry *apiextensionsv1.CustomResourceDefinitionVersion
	for i, v := range crd.Spec.Versions {
		if v.Name == k.version || (entry == nil && v.Storage) {
			entry = &crd.Spec.Versions[i]
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("the CRD of %s has neither version %s nor a storage version", k.name(), k.version)
	}
	entry.Name, entry.Served, entry.Storage = k.version, true, true
	entry.Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema}
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{*entry}
	return crd, s.checkSubresources(crd, entry)
}

// checkSubresources fails unless the subject's discovery of v's group version lists the
// status and scale subresources of crd's resource exactly when v has them.
func (s *subject) checkSubresources(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) error {
	body, err := s.get("/apis/" + crd.Spec.Group + "/" + v.Name)
	if err != nil {
		return err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return err
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	plural := crd.Spec.Names.Plural
	sub := v.Subresources
	if sub == nil {
		sub = &apiextensionsv1.CustomResourceSubresources{}
	}
	if served[plural+"/status"] != (sub.Status != nil) || served[plural+"/scale"] != (sub.Scale != nil) {
		return fmt.Errorf("%s/%s %s: discovery serves status %v and scale %v, the CRD says %v and %v", crd.Spec.Group, v.Name, plural,
			served[plural+"/status"], served[plural+"/scale"], sub.Status != nil, sub.Scale != nil)
	}
	return nil
}

// newPublishedTarget sets up k with the schema the subject publishes for it as the oracle's
// schema (publishedSchema in publishedCRD), and returns the CRD it serves.
func newPublishedTarget(t testing.TB, subj *subject, k kindUnderTest) (*target, *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	schema, err := subj.publishedSchema(k)
	if err != nil {
		t.Fatalf("%s: %v", k.name(), err)
	}
	crd, err := subj.publishedCRD(k, schema)
	if err != nil {
		t.Fatalf("%s: %v", k.name(), err)
	}
	o, err := newOracle(crd, k.version)
	if err != nil {
		t.Fatalf("%s: the published schema as a CRD's: %v", k.name(), err)
	}
	tg := &target{kindUnderTest: k, oracle: o, path: fmt.Sprintf("/apis/%s/%s/%s", k.group, k.version, crd.Spec.Names.Plural)}
	if o.namespaced {
		tg.namespace = "default"
		tg.path = fmt.Sprintf("/apis/%s/%s/namespaces/default/%s", k.group, k.version, crd.Spec.Names.Plural)
	}
	return tg, crd
}
