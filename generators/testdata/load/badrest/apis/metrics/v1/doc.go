// Package v1 is metrics.example.com/v1, whose kinds' REST the user writes
// (+apigen:storage=rest) but whose install package does not declare it.
//
// +groupName=metrics.example.com
package v1
