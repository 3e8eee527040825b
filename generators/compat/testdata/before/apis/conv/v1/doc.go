// Package v1 is a version of conv.example.com.
//
// +groupName=conv.example.com
package v1
