// Package v1beta1 is a version of lc.example.com.
//
// +groupName=lc.example.com
package v1beta1
