package load

import (
	"go/types"
)

// convertible reports whether *T has controller-runtime's conversion.Convertible methods
// (sigs.k8s.io/controller-runtime/pkg/conversion): ConvertTo(dst conversion.Hub) error and
// ConvertFrom(src conversion.Hub) error. The check is by shape, not import path: each method
// takes one parameter whose type is an interface with Hub() and runtime.Object's
// GetObjectKind and DeepCopyObject, and returns only error, as conversion.Hub and
// conversion.Convertible declare them.
func convertible(named *types.Named) bool {
	ms := types.NewMethodSet(types.NewPointer(named))
	return hubMethod(ms, "ConvertTo") && hubMethod(ms, "ConvertFrom")
}

// hubMethod reports whether ms has an exported method name of the shape func(conversion.Hub) error.
func hubMethod(ms *types.MethodSet, name string) bool {
	sel := ms.Lookup(nil, name)
	if sel == nil {
		return false
	}
	sig, ok := sel.Type().(*types.Signature)
	if !ok || sig.Variadic() || sig.Params().Len() != 1 || sig.Results().Len() != 1 ||
		!types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type()) {
		return false
	}
	return isHubInterface(sig.Params().At(0).Type())
}

// isHubInterface reports whether t is an interface of controller-runtime's conversion.Hub
// shape: runtime.Object (GetObjectKind() schema.ObjectKind, DeepCopyObject() runtime.Object)
// and Hub().
func isHubInterface(t types.Type) bool {
	iface, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	methods := map[string]*types.Signature{}
	for i := range iface.NumMethods() {
		m := iface.Method(i)
		methods[m.Name()], _ = m.Type().(*types.Signature)
	}
	hub, kind, deepCopy := methods["Hub"], methods["GetObjectKind"], methods["DeepCopyObject"]
	return hub != nil && hub.Params().Len() == 0 && hub.Results().Len() == 0 &&
		kind != nil && kind.Params().Len() == 0 && kind.Results().Len() == 1 &&
		deepCopy != nil && deepCopy.Params().Len() == 0 && deepCopy.Results().Len() == 1
}
