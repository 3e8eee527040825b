// Package v1 has review kinds, as Kubernetes' authorization.k8s.io.
// +groupName=reviews.example.com
package v1
