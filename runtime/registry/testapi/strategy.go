package testapi

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// WidgetStrategy is the registry.Strategy of Widgets: status is ignored on create and update.
type WidgetStrategy struct{}

// NamespaceScoped is true.
func (WidgetStrategy) NamespaceScoped() bool { return true }

// PrepareForCreate clears status and sets generation 1.
func (WidgetStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	w := obj.(*Widget)
	w.Status = WidgetStatus{}
	w.Generation = 1
}

// PrepareForUpdate keeps the old status and bumps generation when spec changed.
func (WidgetStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	w, o := obj.(*Widget), old.(*Widget)
	w.Status = o.Status
	w.Generation = o.Generation
	if !reflect.DeepEqual(w.Spec, o.Spec) {
		w.Generation++
	}
}

// Validate checks spec.size is within [0, 100].
func (WidgetStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateWidgetSpec(&obj.(*Widget).Spec, field.NewPath("spec"))
}

// ValidateUpdate validates the new object as on create.
func (s WidgetStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}

func validateWidgetSpec(spec *WidgetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Size < 0 || spec.Size > 100 {
		errs = append(errs, field.Invalid(path.Child("size"), spec.Size, "must be between 0 and 100"))
	}
	return errs
}

// WidgetStatusStrategy is the registry.Strategy of widgets/status: only status changes.
type WidgetStatusStrategy struct{ WidgetStrategy }

// PrepareForUpdate keeps the old spec and metadata, but for managedFields (which record
// the status writer), as kube's status strategies.
func (WidgetStatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	w, o := obj.(*Widget), old.(*Widget)
	w.Spec = o.Spec
	managed := w.ManagedFields
	o.ObjectMeta.DeepCopyInto(&w.ObjectMeta)
	w.ManagedFields = managed
}

// GetResetFields returns spec and metadata.labels in both versions: the status writer never
// owns them.
func (WidgetStatusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return widgetResetFields(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels"))
}

// GetResetFields returns status in both versions: an update of the resource never owns it.
func (WidgetStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return widgetResetFields(fieldpath.MakePathOrDie("status"))
}

// widgetResetFields returns paths for test.apigen.dev/v1 and v1beta1.
func widgetResetFields(paths ...fieldpath.Path) map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"test.apigen.dev/v1":      fieldpath.NewSet(paths...),
		"test.apigen.dev/v1beta1": fieldpath.NewSet(paths...),
	}
}

// ValidateUpdate accepts every status.
func (WidgetStatusStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// GadgetStrategy is the registry.Strategy of Gadgets.
type GadgetStrategy struct{}

// NamespaceScoped is false.
func (GadgetStrategy) NamespaceScoped() bool { return false }

// PrepareForCreate sets generation 1.
func (GadgetStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*Gadget).Generation = 1
}

// PrepareForUpdate keeps generation.
func (GadgetStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*Gadget).Generation = old.(*Gadget).Generation
}

// Validate requires spec.owner.
func (GadgetStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	if obj.(*Gadget).Spec.Owner == "" {
		return field.ErrorList{field.Required(field.NewPath("spec", "owner"), "")}
	}
	return nil
}

// ValidateUpdate validates the new object as on create.
func (s GadgetStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}
