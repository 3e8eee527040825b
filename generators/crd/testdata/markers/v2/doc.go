// Package v2 is the stored version of the markers group.
// +groupName=markers.example.com
package v2
