// Package db is the internal ("hub") version of the db.example.com API group: every served
// version converts to and from these types, and the server validates and stores them.
// Clients never see this package; they use v1 or v1alpha1.
//
// +k8s:deepcopy-gen=package
// +groupName=db.example.com
package db
