package apiextensions

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// crdJSON is gizmoCRD with replace applied (old, new pairs), for invalid variants.
func crdJSON(replace ...string) string {
	return strings.NewReplacer(replace...).Replace(gizmoCRD)
}

// TestCRDValidation creates invalid CRDs through the API: each gets 422 Invalid with a cause
// naming the field and kube's message.
func TestCRDValidation(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	for _, tc := range []struct {
		name, body     string
		field, message string
	}{
		{"name not plural.group", crdJSON(`"name":"gizmos.ext.example.com"`, `"name":"widgets.ext.example.com"`),
			"metadata.name", `must be spec.names.plural+"."+spec.group`},
		{"group without a dot", crdJSON(`ext.example.com`, `example`),
			"spec.group", "should be a domain with at least one dot"},
		{"bad scope", crdJSON(`"scope":"Namespaced"`, `"scope":"Global"`),
			"spec.scope", `Unsupported value: "Global"`},
		{"no storage version", crdJSON(`"storage":true`, `"storage":false`),
			"spec.versions", "must have exactly one version marked as storage version"},
		{"duplicate versions", crdJSON(`"versions":[{`, `"versions":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},{`),
			"spec.versions", "must contain unique version names"},
		{"no schema", crdJSON(`"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}},
"status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}`, `"schema":null`),
			"spec.versions[0].schema.openAPIV3Schema", "Required value"},
		{"not structural", crdJSON(`"size":{"type":"integer"}`, `"size":{}`),
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type", "Required value"},
		{"bad kind", crdJSON(`"kind":"Gizmo"`, `"kind":"Giz mo"`),
			"spec.names.kind", "may have mixed case, but should otherwise match"},
		{"bad printer column type", crdJSON(`"subresources"`, `"additionalPrinterColumns":[{"name":"Size","type":"int","jsonPath":".spec.size"}],"subresources"`),
			"spec.versions[0].additionalPrinterColumns[0].type", "must be one of boolean,date,integer,number,string"},
		{"printer column path", crdJSON(`"subresources"`, `"additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":"spec.size"}],"subresources"`),
			"spec.versions[0].additionalPrinterColumns[0].JSONPath", "must be a simple json path starting with ."},
		{"scale path", crdJSON(`"status":{}}`, `"status":{},"scale":{"specReplicasPath":".replicas","statusReplicasPath":".status.replicas"}}`),
			"spec.versions[0].subresources.scale.specReplicasPath", "should be a json path under .spec"},
		{"conversion webhook over http", crdJSON(`"versions"`, `"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"http://example.com/convert"}}},"versions"`),
			"spec.conversion.webhookClientConfig.url", "'https' is the only allowed URL scheme"},
		{"conversion webhook without review versions", crdJSON(`"versions"`, `"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":[],"clientConfig":{"url":"https://example.com/convert"}}},"versions"`),
			"spec.conversion.conversionReviewVersions", "Required value"},
		{"selectable field not in the schema", crdJSON(`"subresources"`, `"selectableFields":[{"jsonPath":".spec.color"}],"subresources"`),
			"spec.versions[0].selectableFields[0].jsonPath", "is an invalid path"},
		{"selectable field of an object", crdJSON(`"subresources"`, `"selectableFields":[{"jsonPath":".spec"}],"subresources"`),
			"spec.versions[0].selectableFields[0].jsonPath", "must point to a field of type string, boolean or integer"},
		{"protected group without approval", crdJSON(`ext.example.com`, `ext.k8s.io`),
			"metadata.annotations[api-approved.kubernetes.io]", "protected groups must have approval annotation"},
		{"preserveUnknownFields", crdJSON(`"versions"`, `"preserveUnknownFields":true,"versions"`),
			"spec.preserveUnknownFields", "cannot set to true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(t, http.MethodPost, url+crdsPath, tc.body)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("create: %d %s, want 422", code, body)
			}
			var status metav1.Status
			if err := json.Unmarshal([]byte(body), &status); err != nil || status.Reason != metav1.StatusReasonInvalid || status.Details == nil {
				t.Fatalf("not an Invalid Status (%v): %s", err, body)
			}
			for _, c := range status.Details.Causes {
				if c.Field == tc.field && strings.Contains(c.Message, tc.message) {
					return
				}
			}
			t.Errorf("no cause at %s with %q: %s", tc.field, tc.message, body)
		})
	}
}

// TestCRDUpdateValidation checks upstream's update rules: group and names.plural never
// change, scope and names.kind not once the CRD is Established.
func TestCRDUpdateValidation(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	if code, body := do(t, http.MethodPost, url+crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, body)
	}
	eventually(t, func() string {
		if !apiextensionsv1.IsConditionTrue(getCRD(t, url, "gizmos.ext.example.com"), apiextensionsv1.Established) {
			return "not established"
		}
		return ""
	})
	for patch, field := range map[string]string{
		`{"spec":{"scope":"Cluster"}}`:            "spec.scope",
		`{"spec":{"names":{"kind":"Gadget"}}}`:    "spec.names.kind",
		`{"spec":{"names":{"plural":"gadgets"}}}`: "spec.names.plural",
		`{"spec":{"group":"other.example.com"}}`:  "spec.group",
	} {
		code, body := do(t, http.MethodPatch, url+crdsPath+"/gizmos.ext.example.com", patch)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `"field":"`+field+`"`) || !strings.Contains(body, "field is immutable") {
			t.Errorf("patch %s: %d %s, want 422 with %s immutable", patch, code, body, field)
		}
	}
}

// TestControllerGenCRD creates a CRD as controller-gen writes them (testdata/controller-gen.yaml)
// through the API: it must be accepted unchanged and established.
func TestControllerGenCRD(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join("testdata", "controller-gen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		t.Fatal(err)
	}
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	if code, out := do(t, http.MethodPost, url+crdsPath+"?fieldValidation=Strict", string(body)); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	eventually(t, func() string {
		if !apiextensionsv1.IsConditionTrue(getCRD(t, url, "guestbooks.webapp.my.domain"), apiextensionsv1.Established) {
			return "not established"
		}
		return ""
	})
	guestbook := `{"apiVersion":"webapp.my.domain/v1","kind":"Guestbook","metadata":{"name":"g"},
"spec":{"foo":"x","port":"http","labels":{"a":"b"},"ports":[{"containerPort":80}],"config":{"any":[1]},
"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}}}`
	code, out := do(t, http.MethodPost, url+"/apis/webapp.my.domain/v1/namespaces/default/guestbooks", guestbook)
	if code != http.StatusCreated || !strings.Contains(out, `"mode":"Fast"`) {
		t.Errorf("create a Guestbook: %d %s, want 201 with the default mode Fast", code, out)
	}
}

// TestCRDStoredVersionsStatus checks status.storedVersions through the status subresource:
// the storage version may not be dropped from it, as upstream.
func TestCRDStoredVersionsStatus(t *testing.T) {
	client, _ := etcdtest.Run(t)
	url := startExtensions(t, client)
	if code, body := do(t, http.MethodPost, url+crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, body)
	}
	code, body := do(t, http.MethodPatch, url+crdsPath+"/gizmos.ext.example.com/status", `{"status":{"storedVersions":["v2"]}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "must have the storage version v1") ||
		!strings.Contains(body, "missing from spec.versions; v2 was previously a storage version") {
		t.Errorf("status patch dropping v1: %d %s, want 422", code, body)
	}
}
