// Package clientset is the generator of typed clientsets, as Kubernetes' client-gen v0.37
// writes them (the same exported API: types, functions, methods and signatures), from the
// model apigen already loaded.
//
// Which kinds get clients: every served kind marked +genclient, in every version that declares
// it (client-gen's rule; kubebuilder's +kubebuilder:object:root alone does not ask for one).
// client-gen's tags shape each kind's client: +genclient:nonNamespaced, +genclient:noStatus (no
// UpdateStatus or ApplyStatus), +genclient:noVerbs, +genclient:onlyVerbs, +genclient:skipVerbs,
// +genclient:readonly and +genclient:method (extension methods such as GetScale and
// UpdateScale, on a subresource or with other input and result types). The resource name a
// client requests is the kind's served plural (model.Kind.Plural), so clients and server agree
// also when +kubebuilder:resource:path renames it.
//
// Files, below the tree's clientset/versioned (see generators/clientlayout):
//
//	clientset.go                      Interface, Clientset, NewForConfig, NewForConfigAndClient, New...
//	scheme/register.go                Scheme, Codecs, ParameterCodec, AddToScheme of every version
//	fake/clientset_generated.go       NewSimpleClientset, NewClientset (field-managed object tracker
//	                                  with the apply configurations' type converter), Clientset
//	typed/<group>/<version>/          <Group><Version>Interface and Client, one file per kind, expansions
//	typed/<group>/<version>/fake/     Fake<Group><Version> and a fake client per kind on client-go's testing.Fake
//
// Typed clients embed client-go's gentype clients, as client-gen's do. Every file begins with
// apigen's header and build tag; the tree is owned by apigen (output.Tree): a generated file no
// longer produced is deleted, a hand-written one is left alone.
package clientset
