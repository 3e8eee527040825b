// Package v1 is a version of store.example.com.
//
// +groupName=store.example.com
package v1
