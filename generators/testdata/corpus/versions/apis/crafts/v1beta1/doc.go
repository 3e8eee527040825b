// Package v1beta1 is crafts.example.com's older version: the same schema as v1 in its own types. Dock
// is stored here, Boat in v1.
//
// +kubebuilder:object:generate=true
// +groupName=crafts.example.com
package v1beta1
