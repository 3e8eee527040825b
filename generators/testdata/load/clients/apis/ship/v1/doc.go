// Package v1 is the only version of ship.example.com.
//
// +k8s:deepcopy-gen=package
// +groupName=ship.example.com
package v1
