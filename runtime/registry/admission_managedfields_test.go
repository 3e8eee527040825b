package registry_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

// corrupter is a mutating admission plugin that breaks managedFields and labels the object.
type corrupter struct{}

func (corrupter) Handles(admission.Operation) bool { return true }

func (corrupter) Admit(_ context.Context, a *admission.Attributes) error {
	m, err := meta.Accessor(a.Object)
	if err != nil {
		return err
	}
	m.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "webhook", Operation: "Delete", APIVersion: "v1", FieldsType: "FieldsV1"}})
	m.SetLabels(map[string]string{"mutated": "yes"})
	return nil
}

// TestMutatingAdmissionCannotCorruptManagedFields checks that managedFields a mutating plugin
// leaves undecodable are put back as they were, while its other changes stay, as
// kube-apiserver's managedFieldsValidatingAdmissionController does.
func TestMutatingAdmissionCannotCorruptManagedFields(t *testing.T) {
	stores := newStores(t)
	plugins := &admission.Plugins{}
	if err := plugins.Register("Corrupter", true, func() (admission.Interface, error) { return corrupter{}, nil }); err != nil {
		t.Fatal(err)
	}
	chain, err := plugins.NewChain(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	stores.Widgets.Admission = chain
	w := widget("guarded", 1)
	valid := []metav1.ManagedFieldsEntry{{Manager: "creator", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "test.apigen.dev/v1", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{}}`)}}
	w.ManagedFields = valid
	out, err := stores.Widgets.Create(nsCtx("ns"), w, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*testapi.Widget)
	if got.Labels["mutated"] != "yes" {
		t.Errorf("the plugin's label is lost: %v", got.Labels)
	}
	if len(got.ManagedFields) != 1 || got.ManagedFields[0].Manager != "creator" {
		t.Errorf("managedFields %+v, want the ones from before admission", got.ManagedFields)
	}
}
