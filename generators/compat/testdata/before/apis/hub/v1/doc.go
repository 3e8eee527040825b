// Package v1 is the served version of hub.example.com.
//
// +k8s:conversion-gen=example.com/compat/apis/hub
// +groupName=hub.example.com
package v1
