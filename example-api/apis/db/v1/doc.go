// Package v1 is the stable version of the db.example.com API: Databases, the
// DatabaseClasses they are made from, and their Backups. It is the storage version.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/apigen-dev/apigen/example-api/apis/db
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +groupName=db.example.com
package v1
