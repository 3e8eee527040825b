// Package v1 is the first version of shop.example.com.
//
// +groupName=shop.example.com
package v1
