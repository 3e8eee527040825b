// Package v1 is the stable version of shop.example.com.
//
// +k8s:conversion-gen=github.com/apigen-dev/apigen/generators/testdata/load/basic/apis/shop
// +groupName=shop.example.com
package v1
