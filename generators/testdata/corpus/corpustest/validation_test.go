package corpustest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// shopHandValidation checks that the strategies generated for shop.example.com call the
// group's hand-written validation package (codegen/apis/shop/validation, laid out as
// sample-apiserver's pkg/apis/wardle/validation) after the generated validation:
// ValidateStore on create, ValidateStoreUpdate on update, ValidateRegion on a cluster-scoped
// create. Each rejection is kube-apiserver's 422 Invalid Status with the hand-written
// function's field paths and cause types.
func shopHandValidation(t *testing.T, dyn dynamic.Interface) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stores := func(v string) dynamic.ResourceInterface {
		return dyn.Resource(schema.GroupVersionResource{Group: "shop.example.com", Version: v, Resource: "stores"}).Namespace("default")
	}
	store := func(v, name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "shop.example.com/" + v, "kind": "Store", "metadata": map[string]any{"name": name}, "spec": spec,
		}}
	}
	for _, v := range []string{"v1", "v1beta1"} {
		bad := store(v, "bad-shelves", map[string]any{
			"shelves": []any{map[string]any{"name": "back"}, map[string]any{"name": "Front Row"}},
		})
		_, err := stores(v).Create(ctx, bad, metav1.CreateOptions{})
		checkInvalid(t, "create of a Store in "+v, err, "Store", "bad-shelves", []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.shelves[1].name"},
		})
	}
	created, err := stores("v1").Create(ctx, store("v1", "fixed-tier", map[string]any{"tier": "Basic"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create of a valid Store: %v", err)
	}
	if err := unstructured.SetNestedField(created.Object, "Premium", "spec", "tier"); err != nil {
		t.Fatal(err)
	}
	_, err = stores("v1").Update(ctx, created, metav1.UpdateOptions{})
	checkInvalid(t, "update of a Store's tier", err, "Store", "fixed-tier", []metav1.StatusCause{
		{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.tier"},
	})
	if err := stores("v1").Delete(ctx, "fixed-tier", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
	regions := dyn.Resource(schema.GroupVersionResource{Group: "shop.example.com", Version: "v1", Resource: "regions"})
	region := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "shop.example.com/v1", "kind": "Region", "metadata": map[string]any{"name": "zoned"},
		"spec": map[string]any{"zones": []any{"a", "Zone B"}, "launchedAt": "2025-06-01T00:00:00Z"},
	}}
	_, err = regions.Create(ctx, region, metav1.CreateOptions{})
	checkInvalid(t, "create of a Region", err, "Region", "zoned", []metav1.StatusCause{
		{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.zones[1]"},
	})
}

// checkInvalid checks that err is kube-apiserver's 422 Invalid Status for the shop.example.com
// object kind/name with exactly the causes want (types and fields; messages are the
// hand-written functions').
func checkInvalid(t *testing.T, what string, err error, kind, name string, want []metav1.StatusCause) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Errorf("%s: error = %v, want a 422 Invalid Status", what, err)
		return
	}
	s := status.Status()
	if s.Code != http.StatusUnprocessableEntity || s.Reason != metav1.StatusReasonInvalid || s.Details == nil ||
		s.Details.Kind != kind || s.Details.Group != "shop.example.com" || s.Details.Name != name {
		t.Errorf("%s: status = %d %s %+v, want 422 Invalid for %s %q of shop.example.com", what, s.Code, s.Reason, s.Details, kind, name)
		return
	}
	var got []metav1.StatusCause
	for _, c := range s.Details.Causes {
		got = append(got, metav1.StatusCause{Type: c.Type, Field: c.Field})
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: causes = %+v, want %+v (message %q)", what, got, want, s.Message)
	}
}
