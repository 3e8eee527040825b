package wardle

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Flunder is the internal Flunder.
type Flunder struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Reference string
}

// FlunderList is a list of Flunders.
type FlunderList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Flunder
}

// Fischer is the internal Fischer.
type Fischer struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	DisallowedFlunders []string
}

// FischerList is a list of Fischers.
type FischerList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Fischer
}

// Review is the internal Review.
type Review struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Allowed bool
}
