// Package v1alpha1 is a version of old.example.com.
//
// +groupName=old.example.com
package v1alpha1
