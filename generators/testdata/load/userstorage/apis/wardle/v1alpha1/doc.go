// Package v1alpha1 is the v1alpha1 version of wardle.example.com.
//
// +k8s:conversion-gen=github.com/apigen-dev/apigen/generators/testdata/load/userstorage/apis/wardle
// +groupName=wardle.example.com
package v1alpha1
