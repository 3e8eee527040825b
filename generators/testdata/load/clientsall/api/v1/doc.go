// Package v1 is a kubebuilder version package with the project-level client switch.
// +kubebuilder:object:generate=true
// +groupName=parts.example.com
// +apigen:clients=all
package v1
