package protobuf

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	k8scoordinationv1 "k8s.io/api/coordination/v1"
	k8scorev1 "k8s.io/api/core/v1"
	k8srbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	coordinationv1 "github.com/apigen-dev/apigen/runtime/apis/coordination/v1"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
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

// TestLeaseFromLeaderElection encodes a Lease as client-go's leader election sends it (its
// typed client writes protobuf) and checks the transcoded JSON decodes into apigen's Lease
// with every field, the MicroTimes to the microsecond.
func TestLeaseFromLeaderElection(t *testing.T) {
	tc := NewTranscoder()
	holder, duration, transitions := "host_1234", int32(15), int32(3)
	renew := metav1.NewMicroTime(time.Date(2026, 11, 28, 2, 3, 4, 567891000, time.UTC))
	in := &k8scoordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{Name: "namespace-controller", Namespace: "kube-system"},
		Spec: k8scoordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration,
			AcquireTime: &renew, RenewTime: &renew, LeaseTransitions: &transitions},
	}
	var buf bytes.Buffer
	if err := tc.serializer.Encode(in, &buf); err != nil {
		t.Fatal(err)
	}
	data, _, err := tc.ToJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var out coordinationv1.Lease
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	want := coordinationv1.Lease{TypeMeta: in.TypeMeta, ObjectMeta: in.ObjectMeta,
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration,
			AcquireTime: &renew, RenewTime: &renew, LeaseTransitions: &transitions}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestConfigMapFromClientGo encodes a ConfigMap as client-go's typed clientset sends it
// (protobuf) and checks the transcoded JSON decodes into apigen's ConfigMap with every field:
// data, binaryData (bytes that are not UTF-8) and immutable.
func TestConfigMapFromClientGo(t *testing.T) {
	tc := NewTranscoder()
	immutable := true
	in := &k8scorev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "team-a", Labels: map[string]string{"app": "db"}},
		Immutable:  &immutable,
		Data:       map[string]string{"config.yaml": "a: 1\n", "empty": ""},
		BinaryData: map[string][]byte{"blob.bin": {0xff, 0x00, 0xfe}},
	}
	var buf bytes.Buffer
	if err := tc.serializer.Encode(in, &buf); err != nil {
		t.Fatal(err)
	}
	data, gvk, err := tc.ToJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if gvk != (schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) {
		t.Errorf("gvk %v", gvk)
	}
	var out corev1.ConfigMap
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	want := corev1.ConfigMap{TypeMeta: in.TypeMeta, ObjectMeta: in.ObjectMeta, Immutable: &immutable,
		Data: in.Data, BinaryData: in.BinaryData}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestBuiltinIsShared checks that Builtin builds one transcoder for the process, which reads
// the built-in groups as NewTranscoder's does.
func TestBuiltinIsShared(t *testing.T) {
	tc := Builtin()
	if tc != Builtin() {
		t.Fatal("Builtin returned two transcoders, want one shared by its callers")
	}
	if !tc.Handles(schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}) {
		t.Error("Builtin's transcoder does not read rbac.authorization.k8s.io/v1")
	}
}
