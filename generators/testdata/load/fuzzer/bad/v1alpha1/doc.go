// Package v1alpha1 is the only version of its group (fuzzer fixture).
// +groupName=bad.fuzzer.example.com
package v1alpha1
