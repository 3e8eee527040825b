// Package v1 declares types defined from other named types, for TestLoadDefinedFrom.
// +groupName=defined.example.com
package v1
