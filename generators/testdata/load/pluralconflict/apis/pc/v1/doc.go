// Package v1 is a version of pc.example.com.
//
// +groupName=pc.example.com
package v1
