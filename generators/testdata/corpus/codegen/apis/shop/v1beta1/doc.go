// Package v1beta1 is the pre-release version of the shop.example.com API, still served for
// old clients. It calls a Store's number of tills spec.size where v1 says spec.replicas.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:prerelease-lifecycle-gen=true
// +groupName=shop.example.com
package v1beta1
