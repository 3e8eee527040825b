// Package v1 is the stable version of the shop.example.com API and its storage version.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +groupName=shop.example.com
package v1
