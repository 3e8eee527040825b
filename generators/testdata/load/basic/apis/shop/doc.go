// Package shop is the internal (hub) version of the shop.example.com group.
//
// +k8s:deepcopy-gen=package
// +groupName=shop.example.com
package shop
