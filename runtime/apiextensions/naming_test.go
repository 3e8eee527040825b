package apiextensions

import (
	"testing"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
)

// crdNamed returns a CRD of example.com requesting names and having accepted accepted.
func crdNamed(names, accepted apiextensionsv1.CustomResourceDefinitionNames) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	crd.Name = names.Plural + ".example.com"
	crd.Spec.Group, crd.Spec.Names, crd.Status.AcceptedNames = "example.com", names, accepted
	return crd
}

// TestCalculateNames checks the NamesAccepted condition and the accepted names against
// another CRD of the group, as upstream's NamingConditionController.
func TestCalculateNames(t *testing.T) {
	widgets := apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wd"}}
	other := crdNamed(widgets, widgets)
	for _, tc := range []struct {
		name                 string
		requested, accepted  apiextensionsv1.CustomResourceDefinitionNames
		wantStatus           apiextensionsv1.ConditionStatus
		wantReason, wantKind string
		wantEstablished      string
	}{
		{name: "fresh names", requested: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			wantStatus: apiextensionsv1.ConditionTrue, wantReason: "NoConflicts", wantKind: "Gadget", wantEstablished: "Installing"},
		{name: "short name taken", requested: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList", ShortNames: []string{"wd"}},
			wantStatus: apiextensionsv1.ConditionFalse, wantReason: "ShortNamesConflict", wantKind: "Gadget", wantEstablished: "NotAccepted"},
		{name: "kind taken", requested: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Widget", ListKind: "GadgetList"},
			wantStatus: apiextensionsv1.ConditionFalse, wantReason: "KindConflict", wantKind: "", wantEstablished: "NotAccepted"},
		{name: "singular taken keeps the accepted one", requested: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "widget", Kind: "Gadget", ListKind: "GadgetList"},
			accepted:   apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			wantStatus: apiextensionsv1.ConditionFalse, wantReason: "SingularConflict", wantKind: "Gadget", wantEstablished: "NotAccepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names, cond, est := calculateNames(crdNamed(tc.requested, tc.accepted), []*apiextensionsv1.CustomResourceDefinition{other})
			if cond.Status != tc.wantStatus || cond.Reason != tc.wantReason {
				t.Errorf("NamesAccepted = %s %s (%s), want %s %s", cond.Status, cond.Reason, cond.Message, tc.wantStatus, tc.wantReason)
			}
			if names.Kind != tc.wantKind {
				t.Errorf("accepted kind = %q, want %q", names.Kind, tc.wantKind)
			}
			if tc.wantReason == "SingularConflict" && names.Singular != "gadget" {
				t.Errorf("accepted singular = %q, want the previously accepted gadget", names.Singular)
			}
			if est.Status != apiextensionsv1.ConditionFalse || est.Reason != tc.wantEstablished {
				t.Errorf("Established = %s %s, want False %s", est.Status, est.Reason, tc.wantEstablished)
			}
		})
	}
}
