package v1

// Thing has bad markers.
type Thing struct {
	// +kubebuilder:validaton:Minimum=0
	A int `json:"a"`
	// +kubebuilder:validation:Minimum=abc
	B int `json:"b"`
}
