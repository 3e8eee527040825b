package shop

import "k8s.io/apimachinery/pkg/runtime"

// addKnownTypes fails to type-check without the generated DeepCopyObject methods; the
// loader must tolerate that.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Order{}, &OrderList{})
	return nil
}
