package registry

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValidateMetaUpdateMatchesApimachinery: for updates that change each compared field in
// turn (and some that change nothing), validateMetaUpdate returns exactly what
// validation.ValidateObjectMetaAccessorUpdate returns, and takes its shortcut only for
// updates without an error.
func TestValidateMetaUpdateMatchesApimachinery(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	deleted := metav1.NewTime(time.Date(2026, 11, 24, 11, 0, 0, 0, time.UTC))
	grace, otherGrace := int64(30), int64(5)
	old := func() *metav1.ObjectMeta {
		return &metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u1", ResourceVersion: "7", Generation: 3,
			CreationTimestamp: created, Finalizers: []string{"f1"}}
	}
	// shortcut lists the updates validateMetaUpdate must answer itself: those of objects not
	// being deleted that keep every compared field.
	shortcut := map[string]bool{"unchanged": true, "labels changed": true, "generation bumped": true,
		"same instant, other location": true}
	for name, tc := range map[string]struct {
		old, new func(*metav1.ObjectMeta)
	}{
		"unchanged":         {},
		"labels changed":    {new: func(m *metav1.ObjectMeta) { m.Labels = map[string]string{"a": "b"} }},
		"generation bumped": {new: func(m *metav1.ObjectMeta) { m.Generation = 4 }},
		"same instant, other location": {new: func(m *metav1.ObjectMeta) {
			m.CreationTimestamp = metav1.NewTime(created.In(time.FixedZone("x", 3600)))
		}},
		"name":                         {new: func(m *metav1.ObjectMeta) { m.Name = "b" }},
		"namespace":                    {new: func(m *metav1.ObjectMeta) { m.Namespace = "other" }},
		"uid":                          {new: func(m *metav1.ObjectMeta) { m.UID = "u2" }},
		"no resourceVersion":           {new: func(m *metav1.ObjectMeta) { m.ResourceVersion = "" }},
		"generation decremented":       {new: func(m *metav1.ObjectMeta) { m.Generation = 2 }},
		"creationTimestamp":            {new: func(m *metav1.ObjectMeta) { m.CreationTimestamp = deleted }},
		"sub-second creationTimestamp": {new: func(m *metav1.ObjectMeta) { m.CreationTimestamp = metav1.NewTime(created.Add(time.Millisecond)) }},
		"deletionTimestamp set":        {new: func(m *metav1.ObjectMeta) { m.DeletionTimestamp = &deleted }},
		"grace period set":             {new: func(m *metav1.ObjectMeta) { m.DeletionGracePeriodSeconds = &grace }},
		"being deleted, unchanged": {
			old: func(m *metav1.ObjectMeta) { m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &deleted, &grace },
			new: func(m *metav1.ObjectMeta) { m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &deleted, &grace },
		},
		"being deleted, finalizer added": {
			old: func(m *metav1.ObjectMeta) { m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &deleted, &grace },
			new: func(m *metav1.ObjectMeta) {
				m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &deleted, &grace
				m.Finalizers = append(m.Finalizers, "f2")
			},
		},
		"being deleted, grace period changed": {
			old: func(m *metav1.ObjectMeta) { m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &deleted, &grace },
			new: func(m *metav1.ObjectMeta) { m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &deleted, &otherGrace },
		},
		"deletion cleared": {
			old: func(m *metav1.ObjectMeta) { m.DeletionTimestamp = &deleted },
		},
	} {
		t.Run(name, func(t *testing.T) {
			o, n := old(), old()
			if tc.old != nil {
				tc.old(o)
			}
			if tc.new != nil {
				tc.new(n)
			}
			want := validation.ValidateObjectMetaAccessorUpdate(n, o, field.NewPath("metadata"))
			got := validateMetaUpdate(n, o)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("validateMetaUpdate = %v, want %v", got, want)
			}
			holds := metaUpdateHolds(n, o)
			if holds && len(want) > 0 {
				t.Errorf("shortcut taken for an update with errors %v", want)
			}
			if !holds && shortcut[name] {
				t.Error("no shortcut for an update that keeps every compared field")
			}
		})
	}
}
