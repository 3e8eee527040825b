// Package wardle is the internal version of wardle.example.com, laid out as
// k8s.io/sample-apiserver's pkg/apis/wardle.
//
// +groupName=wardle.example.com
package wardle
