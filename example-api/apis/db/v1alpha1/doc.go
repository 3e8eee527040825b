// Package v1alpha1 is the first, pre-release version of the db.example.com API. It is still
// served so old clients keep working; it sizes storage in whole gibibytes (spec.sizeGiB)
// where v1 takes a quantity (spec.storage).
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/apigen-dev/apigen/example-api/apis/db
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +groupName=db.example.com
package v1alpha1
