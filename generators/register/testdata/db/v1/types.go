// Package v1 is the register golden test's stable version.
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Backup is a registered type.
type Backup struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

// DeepCopyObject is a shallow copy: the test only needs runtime.Object.
func (in *Backup) DeepCopyObject() runtime.Object { out := *in; return &out }

// BackupList is a registered type.
type BackupList struct {
	metav1.TypeMeta
	metav1.ListMeta
}

// DeepCopyObject is a shallow copy: the test only needs runtime.Object.
func (in *BackupList) DeepCopyObject() runtime.Object { out := *in; return &out }

// Database is a registered type.
type Database struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

// DeepCopyObject is a shallow copy: the test only needs runtime.Object.
func (in *Database) DeepCopyObject() runtime.Object { out := *in; return &out }

// DatabaseList is a registered type.
type DatabaseList struct {
	metav1.TypeMeta
	metav1.ListMeta
}

// DeepCopyObject is a shallow copy: the test only needs runtime.Object.
func (in *DatabaseList) DeepCopyObject() runtime.Object { out := *in; return &out }

// DatabaseSpec is not registered.
type DatabaseSpec struct{}
