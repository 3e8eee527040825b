package protobuf

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	k8srbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
)

// TestRoleFromKubectl encodes a Role as kubectl's typed client does and checks that the
// transcoded JSON decodes into apigen's own Role with every field.
func TestRoleFromKubectl(t *testing.T) {
	tc := NewTranscoder()
	in := &k8srbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "team-a", Labels: map[string]string{"a": "b"}},
		Rules: []k8srbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{"db.example.com"},
			Resources: []string{"databases"}, ResourceNames: []string{"main"}}},
	}
	var buf bytes.Buffer
	if err := tc.serializer.Encode(in, &buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("k8s\x00")) {
		t.Fatalf("not Kubernetes' protobuf envelope: %q", buf.Bytes()[:8])
	}
	data, gvk, err := tc.ToJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if gvk != (schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}) {
		t.Errorf("gvk %v", gvk)
	}
	var out rbacv1.Role
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	want := rbacv1.Role{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{"db.example.com"},
			Resources: []string{"databases"}, ResourceNames: []string{"main"}}},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !tc.Handles(schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}) || tc.Handles(schema.GroupVersion{Group: "db.example.com", Version: "v1"}) {
		t.Error("Handles")
	}
	if _, _, err := tc.ToJSON([]byte(`{"kind":"Role"}`)); err == nil {
		t.Error("a JSON body was read as protobuf")
	}
}
