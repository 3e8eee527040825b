package hr

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Thing is the hub Thing.
type Thing struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Size int32
}

// ThingList is a list of Things.
type ThingList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Thing
}
