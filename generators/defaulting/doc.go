// Package defaulting generates zz_generated.defaults.go in every version package (never the
// hub), as k8s.io/code-generator's defaulter-gen does:
//
//	func init() { localSchemeBuilder.Register(RegisterDefaults) }
//	func RegisterDefaults(scheme *runtime.Scheme) error
//	func SetObjectDefaults_Database(in *Database)
//	func SetObjectDefaults_DatabaseList(in *DatabaseList)
//
// A package that declares addDefaultingFuncs by hand (Kubernetes' register.go registers it,
// and it calls RegisterDefaults) gets no init: its defaults are registered once, as with
// defaulter-gen, whose output never registers itself.
//
// A SetObjectDefaults_<Root> function is emitted for every root type (each kind, its list, and
// types marked +kubebuilder:object:root) on whose fields, at any depth, a default applies;
// RegisterDefaults registers exactly those with the scheme, and is emitted, possibly empty,
// in every version package so that the scheme wiring is uniform.
//
// Walking a root type, for each type on the path it first calls the hand-written
// SetDefaults_<Type>(in) of the type's package when one exists, then, field by field, applies the field's
// +default (or +kubebuilder:default) JSON value when the field is unset and recurses into
// nested structs, non-nil pointers, slice and array elements and map values. The walk enters
// the types of every API package of the load, not only the package's own: a version that
// holds another version's types (Gateway API's v1beta1 `type Gateway v1.Gateway`, whose spec is
// a v1.GatewaySpec) defaults them as their own package does, as the CRD schema of that version
// carries their defaults; types of other packages (apimachinery's) are left alone. A field holding
// another root type calls that type's SetObjectDefaults_ function instead, as a list calls its
// item's. How a default is applied depends on the field's type:
//
//	basic:            if in.Engine == "" { in.Engine = "postgres" }
//	pointer to basic: if in.Replicas == nil { var ptrVar1 int32 = 1; in.Replicas = &ptrVar1 }
//	anything else:    if reflect.ValueOf(in.Spec).IsZero() { json.Unmarshal the default into it }
//
// except that a default of a type from another package with deepcopy-gen's DeepCopyInto
// (resource.Quantity, intstr.IntOrString, metav1.Duration, ...) is unmarshalled once, into a
// package variable, when the package is initialized, and each field it defaults gets a deep
// copy (`defaultValue0.DeepCopyInto(&in.Storage)`): defaulting is on every request's path.
//
// Every default is checked at generate time: a value that is not valid JSON for its field's
// type is a diagnostic at the field, so the generated json.Unmarshal (which panics on error,
// as defaulter-gen's does) cannot fail at run time. (A type that unmarshals itself, such as
// Quantity, is only checked to be JSON; a value it refuses panics when the package is
// initialized, for a decoded-once default, or when the field is defaulted.) Defaults on a type that reaches itself
// are applied once; the walk does not follow the cycle.
package defaulting
