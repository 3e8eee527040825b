package customresource

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/validation/cel"
)

// strategy is the registry.Strategy of one served version of a custom resource, as
// apiextensions-apiserver's customResourceStrategy (statusOnly: its statusStrategy). Objects
// are *unstructured.Unstructured in the storage version; the version's schema validates them,
// converted to the version by the conversion webhook when the resource has one (as kube
// validates a request's object in its version, before storage converts it).
type strategy struct {
	namespaced bool
	version    *Version
	// statusOnly is the /status subresource's strategy: an update changes only status.
	statusOnly bool
	// converter is the resource's conversion webhook, nil for conversion strategy None;
	// gv is the version's group version.
	converter *conversion.Webhook
	gv        schema.GroupVersion
}

var _ registry.Strategy = (*strategy)(nil)

// NamespaceScoped reports whether the resource is namespaced.
func (s *strategy) NamespaceScoped() bool { return s.namespaced }

// PrepareForCreate drops status when the status subresource is on, and sets generation 1.
func (s *strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	if s.version.Status {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
}

// PrepareForUpdate keeps the stored status on the main resource when the status subresource
// is on and bumps generation when anything but metadata (and status, then) changed; on
// /status it keeps everything of the stored object but status, as kube's strategies.
func (s *strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	o, ok2 := old.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return
	}
	if s.statusOnly {
		status, has := u.Object["status"]
		managed := u.GetManagedFields()
		u.Object = o.DeepCopy().Object
		u.SetManagedFields(managed)
		if has {
			u.Object["status"] = status
		} else {
			delete(u.Object, "status")
		}
		return
	}
	if s.version.Status {
		if status, has := o.Object["status"]; has {
			u.Object["status"] = runtime.DeepCopyJSONValue(status)
		} else {
			delete(u.Object, "status")
		}
	}
	if !equality.Semantic.DeepEqual(s.specContent(u), s.specContent(o)) {
		u.SetGeneration(o.GetGeneration() + 1)
	}
}

// specContent is what a generation counts: the object without metadata (and without status
// when the status subresource is on).
func (s *strategy) specContent(u *unstructured.Unstructured) map[string]any {
	out := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		if k == "metadata" || (k == "status" && s.version.Status) {
			continue
		}
		out[k] = v
	}
	return out
}

// Validate checks a new object against the version's schema (CEL rules included).
func (s *strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return s.validate(ctx, obj, nil)
}

// ValidateUpdate checks an update against the version's schema, with old for transition rules.
func (s *strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return s.validate(ctx, obj, old)
}

// validate runs the schema and checks the scale subresource's replica fields are integers, as
// kube's customResourceValidator, then the schema's CEL rules as customResourceStrategy does:
// only when none of those errors, nor of the object's metadata (which the Store validates
// first and notes in ctx, cel.WithPriorErrors), is blocking; otherwise one
// field.Invalid(nil, nil, cel.NotCheckedMessage) stands for them.
func (s *strategy) validate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	if s.converter != nil {
		var err error
		if u, err = s.inVersion(u); err != nil {
			return field.ErrorList{field.InternalError(nil, err)}
		}
		if o, isU := old.(*unstructured.Unstructured); isU {
			if old, err = s.inVersion(o); err != nil {
				return field.ErrorList{field.InternalError(nil, err)}
			}
		}
	}
	schema := s.version.Schema
	errs := schema.ValidateSchema(u.Object)
	if sc := s.version.Scale; sc != nil {
		errs = append(errs, validateReplicas(u, sc.SpecReplicasPath)...)
		errs = append(errs, validateReplicas(u, sc.StatusReplicasPath)...)
	}
	if !schema.HasRules() {
		return errs
	}
	if cel.Blocking(errs) || cel.PriorBlocking(ctx) {
		return append(errs, field.Invalid(nil, nil, cel.NotCheckedMessage))
	}
	var oldContent map[string]any
	if o, ok := old.(*unstructured.Unstructured); ok {
		oldContent = o.Object
	}
	return append(errs, schema.ValidateRules(ctx, u.Object, oldContent)...)
}

// inVersion returns u converted to the strategy's version by the conversion webhook (u
// itself when already in it). A failure, rare as the webhook has just converted the request's
// object, is reported by validate as an internal field error.
func (s *strategy) inVersion(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if u.GroupVersionKind().GroupVersion() == s.gv {
		return u, nil
	}
	out, err := s.converter.Convert(u, s.gv)
	if err != nil {
		return nil, err
	}
	return out.(*unstructured.Unstructured), nil
}

// validateReplicas requires the value at path, when set, to be a non-negative int32, as
// kube validates the scale subresource's replica fields.
func validateReplicas(u *unstructured.Unstructured, path string) field.ErrorList {
	fields := splitPath(path)
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, fields...)
	if err != nil || !found {
		return nil
	}
	fp := field.NewPath(fields[0], fields[1:]...)
	n, ok := v.(int64)
	if !ok {
		if f, isFloat := v.(float64); isFloat && f == float64(int64(f)) {
			n, ok = int64(f), true
		}
	}
	switch {
	case !ok:
		return field.ErrorList{field.Invalid(fp, v, "should be an integer")}
	case n < 0:
		return field.ErrorList{field.Invalid(fp, n, "should be a non-negative integer")}
	case n > 1<<31-1:
		return field.ErrorList{field.Invalid(fp, n, "should be less than or equal to 2147483647")}
	}
	return nil
}
