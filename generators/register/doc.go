// Package register generates zz_generated.register.go in every API package (the hub and each
// version), in the shape code-generator and kubebuilder projects write register.go by hand:
//
//	const GroupName = "db.example.com"
//	var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}
//	func Kind(kind string) schema.GroupKind
//	func Resource(resource string) schema.GroupResource
//	var (
//		SchemeBuilder      = runtime.NewSchemeBuilder(addKnownTypes)
//		localSchemeBuilder = &SchemeBuilder
//		AddToScheme        = localSchemeBuilder.AddToScheme
//	)
//	func addKnownTypes(scheme *runtime.Scheme) error
//
// A version registers its kinds and their lists under its version and adds the meta types
// with metav1.AddToGroupVersion; the hub registers the types named like a version's kinds and
// lists under runtime.APIVersionInternal. The conversion and defaulting files register their
// functions through localSchemeBuilder from init.
//
// A package that declares addKnownTypes by hand keeps its own register.go: no file is
// generated for it, as register-gen leaves hand-written packages alone. A package that
// declares SchemeBuilder or AddToScheme by hand registers its types itself (kubebuilder's
// groupversion_info.go with controller-runtime's scheme.Builder and init-time Register
// calls): its file declares only what the package lacks of GroupName, SchemeGroupVersion,
// Kind, Resource and localSchemeBuilder (&SchemeBuilder, or &SchemeBuilder.<field> when
// SchemeBuilder embeds a runtime.SchemeBuilder), and no file at all when nothing is missing.
// Any package-level declaration of one of these names counts (model.Package.Declares): a
// package with Gateway API's `type Kind string` gets no func Kind, and compiles.
package register
