package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/request"
)

// bodies renders errors as "path: ErrorBody", what a client reads in a Status cause.
func bodies(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+": "+e.ErrorBody())
	}
	return out
}

type tool struct {
	Slot int32  `json:"slot"`
	Name string `json:"name,omitempty"`
}

// TestCollections checks the counts and list types with the messages kube-apiserver gives
// for a CRD: listtype's duplicates are reported once, at the second occurrence, with the
// item (set) or its key fields (map) as JSON.
func TestCollections(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want []string
	}{
		{"min items", MinItems(ctx, create, path, []int{}, nil, 1), []string{"spec.value: Invalid value: 0: spec.value in body should have at least 1 items"}},
		{"max items", MaxItems(ctx, create, path, []int{1, 2, 3}, nil, 2), []string{"spec.value: Too many: 3: must have at most 2 items"}},
		{"within items", MaxItems(ctx, create, path, []int{1, 2}, nil, 2), nil},
		{"min properties", MinProperties(ctx, create, path, map[string]int{}, nil, 1), []string{"spec.value: Invalid value: 0: spec.value in body should have at least 1 properties"}},
		{"max properties", MaxProperties(ctx, create, path, map[string]int{"a": 1, "b": 2}, nil, 1), []string{"spec.value: Too many: 2: must have at most 1 item"}},
		{"set", UniqueSet(ctx, create, path, []engine{"a", "b", "a", "a", "b"}, nil), []string{`spec.value[2]: Duplicate value: "a"`, `spec.value[4]: Duplicate value: "b"`}},
		{"set of distinct items", UniqueSet(ctx, create, path, []int{1, 2}, nil), nil},
		{"map keys", UniqueMapKeys(ctx, create, path, []tool{{Slot: 1, Name: "a"}, {Slot: 2}, {Slot: 1, Name: "b"}}, nil, "slot"),
			[]string{`spec.value[2]: Duplicate value: {"slot":1}`}},
		{"map keys left out", UniqueMapKeys(ctx, create, path, []tool{{Slot: 1}, {Slot: 1}}, nil, "name"), []string{`spec.value[1]: Duplicate value: {}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, bodies(tc.got)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUniqueMapKeysLeftOut checks that a key field the request left out is unspecified, as in
// a custom resource, not the zero value the Go item holds: a tool without slot does not repeat
// one with slot 0, and two without slot repeat each other (Duplicate value: {}).
func TestUniqueMapKeysLeftOut(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "robots.example.com", Version: "v1", Kind: "Robot"}
	tools := []tool{{Name: "a"}, {Name: "b"}}
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"one left out", `{"spec": {"value": [{"name": "a"}, {"slot": 0, "name": "b"}]}}`, nil},
		{"one null", `{"spec": {"value": [{"slot": null, "name": "a"}, {"slot": 0, "name": "b"}]}}`, nil},
		{"both left out", `{"spec": {"value": [{"name": "a"}, {"name": "b"}]}}`, []string{`spec.value[1]: Duplicate value: {}`}},
		{"both sent", `{"spec": {"value": [{"slot": 0, "name": "a"}, {"slot": 0, "name": "b"}]}}`,
			[]string{`spec.value[1]: Duplicate value: {"slot":0}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := withValidatedDocument(request.WithDocument(ctx, request.NewDocument(gvk, []byte(tc.doc))), gvk)
			if diff := cmp.Diff(tc.want, bodies(UniqueMapKeys(c, create, path, tools, nil, "slot"))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
	// Without the request's document (an apply, a write from inside the server) a zero key
	// the encoding writes is there.
	if diff := cmp.Diff([]string{`spec.value[1]: Duplicate value: {"slot":0}`}, bodies(UniqueMapKeys(ctx, create, path, tools, nil, "slot"))); diff != "" {
		t.Errorf("without a document (-want +got):\n%s", diff)
	}
}

func TestScaleReplicas(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want []string
	}{
		{"absent", ScaleReplicas[int32](".spec.replicas", nil), nil},
		{"zero", ScaleReplicas(".spec.replicas", ptr(int32(0))), nil},
		{"negative", ScaleReplicas(".spec.replicas", ptr(int32(-1))), []string{".spec.replicas: Invalid value: -1: should be a non-negative integer"}},
		{"over int32", ScaleReplicas(".spec.size", ptr(int64(1)<<32)), []string{".spec.size: Invalid value: 4294967296: should be less than or equal to 2147483647"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, bodies(tc.got)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
