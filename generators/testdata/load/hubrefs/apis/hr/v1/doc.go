// Package v1 converts to a package that is not its hub.
//
// +k8s:conversion-gen=github.com/apigen-dev/apigen/generators/testdata/load/hubrefs/apis/other
// +groupName=hr.example.com
package v1
