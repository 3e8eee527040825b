// Package v1 is the fleet.example.com API, written for Kubernetes' client-gen: one kind per
// client tag, so that the clients apigen generates can be compared with code-generator's and
// the server's verbs with the tags.
//
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=fleet.example.com
package v1
