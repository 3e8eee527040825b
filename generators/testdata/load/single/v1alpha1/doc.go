// Package v1alpha1 is the only version of its group, so it is also the hub.
// +groupName=single.example.com
package v1alpha1
