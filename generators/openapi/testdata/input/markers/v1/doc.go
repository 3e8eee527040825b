// Package v1 exercises every marker the openapi generator maps to a schema, written in the
// four grammars apigen accepts: gengo (+optional, +default=, +listType=), declarative
// validation codetags (+k8s:minimum=, +k8s:ifEnabled(X)=+k8s:maxItems=), controller-tools
// (+kubebuilder:validation:...) and kube-openapi (+k8s:validation:...).
//
// +groupName=markers.example.com
package v1
