// Package shop is the internal ("hub") version of the shop.example.com API group, laid out as
// Kubernetes' code-generator expects: deepcopy-gen runs here, conversion-gen and
// defaulter-gen in the versions. Clients never see this package.
//
// +k8s:deepcopy-gen=package
// +groupName=shop.example.com
package shop
