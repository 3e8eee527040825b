// Package v1 is the most preferred of the two versions of crafts.example.com, a group without an
// internal package whose versions declare their own types of one schema (kubebuilder's layout
// without groupversion_info.go: apigen writes the registration).
//
// +kubebuilder:object:generate=true
// +groupName=crafts.example.com
package v1
