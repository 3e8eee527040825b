package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StorageVersionMigration represents a migration of stored data to the latest
// storage version.
//
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
type StorageVersionMigration struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Specification of the migration.
	// +optional
	Spec StorageVersionMigrationSpec `json:"spec,omitempty"`
	// Status of the migration.
	// +optional
	Status StorageVersionMigrationStatus `json:"status,omitempty"`
}

// StorageVersionMigrationSpec is the spec of a StorageVersionMigration: the resource to
// migrate. It cannot change once created.
type StorageVersionMigrationSpec struct {
	// The resource that is being migrated. The migrator sends requests to
	// the endpoint serving the resource.
	// Immutable.
	Resource metav1.GroupResource `json:"resource"`
}

// MigrationConditionType is the type of a StorageVersionMigration's condition.
type MigrationConditionType string

const (
	// MigrationRunning indicates that a migrator job is running.
	MigrationRunning MigrationConditionType = "Running"
	// MigrationSucceeded indicates that the migration has completed successfully.
	MigrationSucceeded MigrationConditionType = "Succeeded"
	// MigrationFailed indicates that the migration has failed.
	MigrationFailed MigrationConditionType = "Failed"
)

// StorageVersionMigrationStatus is the status of a StorageVersionMigration.
type StorageVersionMigrationStatus struct {
	// The latest available observations of the migration's current state.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// ResourceVersion to compare with the GC cache for performing the migration.
	// This is the current resource version of given group, version and resource when
	// kube-controller-manager first observes this StorageVersionMigration resource.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// StorageVersionMigrationList is a collection of storage version migrations.
//
// +kubebuilder:object:root=true
type StorageVersionMigrationList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items is the list of StorageVersionMigration
	Items []StorageVersionMigration `json:"items"`
}
