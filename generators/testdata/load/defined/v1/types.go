package v1

import (
	meta "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Base is a name.
// +kubebuilder:validation:MaxLength=63
type Base string

// Local is declared as Base, a type of this package.
type Local Base

// Remote is declared as a type of another package, imported under another name.
type Remote meta.Time

// Names is a type literal.
type Names []Base

// Plain is a predeclared type.
type Plain string

// Holder uses them.
type Holder struct {
	Local  Local  `json:"local"`
	Remote Remote `json:"remote"`
	Names  Names  `json:"names"`
	Plain  Plain  `json:"plain"`
}
