package testapi

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
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

// PrepareForUpdate keeps the old spec and metadata.
func (WidgetStatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	w, o := obj.(*Widget), old.(*Widget)
	w.Spec = o.Spec
	o.ObjectMeta.DeepCopyInto(&w.ObjectMeta)
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
