package corpustest_test

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	choresinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/chores/api/v2/install"
)

// chore returns a Chore of version v named name with spec.
func chore(v, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "chores.example.com/" + v, "kind": "Chore",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// managedEntry is one managedFields entry as compared: everything kube-apiserver records but
// the time, the field set decoded.
type managedEntry struct {
	Manager, Operation, APIVersion, FieldsType, Subresource string
	Fields                                                  map[string]any
}

// managedEntries returns obj's managedFields as managedEntries sorted by manager.
func managedEntries(t *testing.T, obj *unstructured.Unstructured) []managedEntry {
	t.Helper()
	var out []managedEntry
	for _, e := range obj.GetManagedFields() {
		if e.Time == nil {
			t.Errorf("managedFields entry of %s has no time", e.Manager)
		}
		me := managedEntry{Manager: e.Manager, Operation: string(e.Operation), APIVersion: e.APIVersion,
			FieldsType: e.FieldsType, Subresource: e.Subresource}
		if e.FieldsV1 != nil {
			if err := json.Unmarshal(e.FieldsV1.Raw, &me.Fields); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, me)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Manager < out[j].Manager })
	return out
}

// fieldsV1 decodes a FieldsV1 set written as JSON.
func fieldsV1(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestChoresHubConvertible serves the kubebuilder chores group, whose Chore is stored in v1
// (its Hub) and converted to and from v2 by v2's ConvertTo and ConvertFrom (controller-runtime's
// conversion.Convertible; v1's spec.schedule "HH:MM" is v2's spec.hour and spec.minute): an
// object created in either version reads back in the other, lists and watches in v2 convert
// every item, a conversion that fails answers 500 as a failing conversion webhook does, and
// writes through v2 record the managedFields kube-apiserver records, although v2's
// ConvertFrom rejects an empty v1 Chore (no schedule). Rota, of one schema in both versions,
// converts field by field.
func TestChoresHubConvertible(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and an API server")
	}
	t.Parallel()
	cfg := startCorpusServer(t, serveGroup{group: "chores.example.com", build: choresinstall.NewAPIGroupInfo})
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	chores := func(v string) dynamic.ResourceInterface {
		return dyn.Resource(schema.GroupVersionResource{Group: "chores.example.com", Version: v, Resource: "chores"}).Namespace("default")
	}
	spec := func(obj *unstructured.Unstructured) map[string]any {
		s, _, _ := unstructured.NestedMap(obj.Object, "spec")
		return s
	}

	// Created in v1, read in v2; created in v2, read in v1.
	if _, err := chores("v1").Create(ctx, chore("v1", "morning", map[string]any{"schedule": "06:30", "task": "feed the cat"}), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create in v1: %v", err)
	}
	got, err := chores("v2").Get(ctx, "morning", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get in v2: %v", err)
	}
	if diff := cmp.Diff(map[string]any{"hour": int64(6), "minute": int64(30), "task": "feed the cat"}, spec(got)); diff != "" {
		t.Errorf("v1 Chore read in v2 (-want +got):\n%s", diff)
	}
	created, err := chores("v2").Create(ctx, chore("v2", "evening", map[string]any{"hour": int64(19), "minute": int64(5), "task": "water the plants"}),
		metav1.CreateOptions{FieldManager: "creator"})
	if err != nil {
		t.Fatalf("create in v2: %v", err)
	}
	got, err = chores("v1").Get(ctx, "evening", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get in v1: %v", err)
	}
	if diff := cmp.Diff(map[string]any{"schedule": "19:05", "task": "water the plants"}, spec(got)); diff != "" {
		t.Errorf("v2 Chore read in v1 (-want +got):\n%s", diff)
	}

	// Rota, of one schema in both versions and no conversion code, converts field by field.
	rota := func(v string) dynamic.ResourceInterface {
		return dyn.Resource(schema.GroupVersionResource{Group: "chores.example.com", Version: v, Resource: "rota"}).Namespace("default")
	}
	if _, err := rota("v2").Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "chores.example.com/v2", "kind": "Rota", "metadata": map[string]any{"name": "dishes"},
		"spec": map[string]any{"members": []any{"ada", "bo"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Rota in v2: %v", err)
	}
	if got, err := rota("v1").Get(ctx, "dishes", metav1.GetOptions{}); err != nil || !cmp.Equal(map[string]any{"members": []any{"ada", "bo"}}, spec(got)) {
		t.Errorf("Rota created in v2 read in v1: %v, %v", got, err)
	}

	// managedFields after a create through v2: the request's manager, version and fields, as
	// kube-apiserver records them for a typed kind (it starts from an empty v2 Chore, which it
	// never converts, and whose spec is an empty struct: no "." entry for spec).
	wantCreate := managedEntry{Manager: "creator", Operation: "Update", APIVersion: "chores.example.com/v2", FieldsType: "FieldsV1",
		Fields: fieldsV1(t, `{"f:spec":{"f:hour":{},"f:minute":{},"f:task":{}}}`)}
	if diff := cmp.Diff([]managedEntry{wantCreate}, managedEntries(t, created)); diff != "" {
		t.Errorf("managedFields after create through v2 (-want +got):\n%s", diff)
	}

	// List and watch in v2: every item converted.
	list, err := chores("v2").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list in v2: %v", err)
	}
	hours := map[string]any{}
	for _, item := range list.Items {
		hours[item.GetName()] = spec(&item)["hour"]
	}
	if diff := cmp.Diff(map[string]any{"morning": int64(6), "evening": int64(19)}, hours); diff != "" {
		t.Errorf("hours listed in v2 (-want +got):\n%s", diff)
	}
	w, err := chores("v2").Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch in v2: %v", err)
	}
	defer w.Stop()
	morning, err := chores("v1").Get(ctx, "morning", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(morning.Object, "07:45", "spec", "schedule")
	if _, err := chores("v1").Update(ctx, morning, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update in v1: %v", err)
	}
	select {
	case ev := <-w.ResultChan():
		obj, ok := ev.Object.(*unstructured.Unstructured)
		if ev.Type != watch.Modified || !ok || obj.GetAPIVersion() != "chores.example.com/v2" ||
			spec(obj)["hour"] != int64(7) || spec(obj)["minute"] != int64(45) {
			t.Errorf("watch in v2 got %s %#v, want MODIFIED morning at hour 7, minute 45 in v2", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Error("no watch event in v2 after an update in v1")
	}

	// A conversion that fails answers 500 with kube's wording of a failing conversion webhook.
	_, err = chores("v2").Create(ctx, chore("v2", "late", map[string]any{"hour": int64(25), "task": "sleep"}), metav1.CreateOptions{})
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("create of hour 25 in v2: %v, want a Status", err)
	}
	wantStatus := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 500,
		Message: "conversion webhook for chores.example.com/v2, Kind=Chore failed: spec.hour 25 and spec.minute 0 are not a time of day",
		Details: &metav1.StatusDetails{Name: "late", Group: "chores.example.com", Kind: "Chore"}}
	if diff := cmp.Diff(wantStatus, status.Status()); diff != "" {
		t.Errorf("status of a failed conversion (-want +got):\n%s", diff)
	}

	// An apply through v2 whose result does not convert fails the same way.
	_, err = chores("v2").Apply(ctx, "evening", chore("v2", "evening", map[string]any{"minute": int64(75)}),
		metav1.ApplyOptions{FieldManager: "clumsy", Force: true})
	if !errors.As(err, &status) || status.Status().Code != 500 || status.Status().Reason != "" ||
		!strings.Contains(status.Status().Message, "conversion webhook for chores.example.com/v2, Kind=Chore failed: spec.hour 19 and spec.minute 75 are not a time of day") {
		t.Errorf("apply of minute 75 through v2: %v, want a 500 naming the failed conversion", err)
	}

	// An update through v2 by another manager takes the field it changes.
	got, err = chores("v2").Get(ctx, "evening", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(got.Object, "water the garden", "spec", "task")
	updated, err := chores("v2").Update(ctx, got, metav1.UpdateOptions{FieldManager: "updater"})
	if err != nil {
		t.Fatalf("update in v2: %v", err)
	}
	wantCreate.Fields = fieldsV1(t, `{"f:spec":{"f:hour":{},"f:minute":{}}}`)
	wantUpdate := managedEntry{Manager: "updater", Operation: "Update", APIVersion: "chores.example.com/v2", FieldsType: "FieldsV1",
		Fields: fieldsV1(t, `{"f:spec":{"f:task":{}}}`)}
	if diff := cmp.Diff([]managedEntry{wantCreate, wantUpdate}, managedEntries(t, updated)); diff != "" {
		t.Errorf("managedFields after update through v2 (-want +got):\n%s", diff)
	}

	// A server-side apply through v2 of a field the creator set conflicts with the creator;
	// forced, it takes the field.
	apply := chore("v2", "evening", map[string]any{"hour": int64(20)})
	_, err = chores("v2").Apply(ctx, "evening", apply, metav1.ApplyOptions{FieldManager: "applier"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "creator"`) {
		t.Fatalf("apply of spec.hour through v2 = %v, want a conflict with \"creator\"", err)
	}
	applied, err := chores("v2").Apply(ctx, "evening", apply, metav1.ApplyOptions{FieldManager: "applier", Force: true})
	if err != nil {
		t.Fatalf("forced apply through v2: %v", err)
	}
	wantCreate.Fields = fieldsV1(t, `{"f:spec":{"f:minute":{}}}`)
	wantApply := managedEntry{Manager: "applier", Operation: "Apply", APIVersion: "chores.example.com/v2", FieldsType: "FieldsV1",
		Fields: fieldsV1(t, `{"f:spec":{"f:hour":{}}}`)}
	if diff := cmp.Diff([]managedEntry{wantApply, wantCreate, wantUpdate}, managedEntries(t, applied)); diff != "" {
		t.Errorf("managedFields after forced apply through v2 (-want +got):\n%s", diff)
	}

	// Managers of two versions: an update through v2 takes spec.task from the manager that
	// created the object through v1, whose entry stays in v1 (the stored object converted to
	// each manager's version, as kube-apiserver compares them).
	if _, err := chores("v1").Create(ctx, chore("v1", "noon", map[string]any{"schedule": "12:00", "task": "lunch"}),
		metav1.CreateOptions{FieldManager: "v1-creator"}); err != nil {
		t.Fatalf("create in v1: %v", err)
	}
	noon, err := chores("v2").Get(ctx, "noon", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(noon.Object, "a long lunch", "spec", "task")
	if noon, err = chores("v2").Update(ctx, noon, metav1.UpdateOptions{FieldManager: "updater"}); err != nil {
		t.Fatalf("update in v2: %v", err)
	}
	wantV1 := []managedEntry{
		{Manager: "updater", Operation: "Update", APIVersion: "chores.example.com/v2", FieldsType: "FieldsV1", Fields: fieldsV1(t, `{"f:spec":{"f:task":{}}}`)},
		{Manager: "v1-creator", Operation: "Update", APIVersion: "chores.example.com/v1", FieldsType: "FieldsV1", Fields: fieldsV1(t, `{"f:spec":{"f:schedule":{}}}`)},
	}
	if diff := cmp.Diff(wantV1, managedEntries(t, noon)); diff != "" {
		t.Errorf("managedFields after create through v1, update through v2 (-want +got):\n%s", diff)
	}

	// A status update through v2 records its entry with the subresource.
	_ = unstructured.SetNestedField(noon.Object, "2026-11-29T12:00:00Z", "status", "lastRun")
	if noon, err = chores("v2").UpdateStatus(ctx, noon, metav1.UpdateOptions{FieldManager: "runner"}); err != nil {
		t.Fatalf("status update in v2: %v", err)
	}
	wantV1 = append([]managedEntry{{Manager: "runner", Operation: "Update", APIVersion: "chores.example.com/v2", FieldsType: "FieldsV1",
		Subresource: "status", Fields: fieldsV1(t, `{"f:status":{"f:lastRun":{}}}`)}}, wantV1...)
	if diff := cmp.Diff(wantV1, managedEntries(t, noon)); diff != "" {
		t.Errorf("managedFields after a status update through v2 (-want +got):\n%s", diff)
	}

	// A server-side apply through v2 that creates starts from an empty object too.
	night, err := chores("v2").Apply(ctx, "night", chore("v2", "night", map[string]any{"hour": int64(23), "minute": int64(15), "task": "lock up"}),
		metav1.ApplyOptions{FieldManager: "applier"})
	if err != nil {
		t.Fatalf("apply creating through v2: %v", err)
	}
	wantApply.Fields = fieldsV1(t, `{"f:spec":{"f:hour":{},"f:minute":{},"f:task":{}}}`)
	if diff := cmp.Diff([]managedEntry{wantApply}, managedEntries(t, night)); diff != "" {
		t.Errorf("managedFields after apply creating through v2 (-want +got):\n%s", diff)
	}
}
