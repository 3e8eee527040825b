// Package v2 has no switch of its own: the one in v1 covers the whole API root.
// +kubebuilder:object:generate=true
// +groupName=parts.example.com
package v2
