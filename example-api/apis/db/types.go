package db

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Engine is a database engine.
type Engine string

// The supported engines.
const (
	EnginePostgres Engine = "postgres"
	EngineMySQL    Engine = "mysql"
)

// DatabasePhase is a coarse summary of where a Database is in its life cycle.
type DatabasePhase string

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Database is a managed database instance.
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatabaseSpec   `json:"spec"`
	Status DatabaseStatus `json:"status,omitempty"`
}

// DatabaseSpec is the desired state of a Database.
type DatabaseSpec struct {
	// Engine is the database engine.
	Engine Engine `json:"engine"`
	// Version is the engine version, e.g. "16.2".
	Version string `json:"version,omitempty"`
	// Replicas is the number of instances; nil means the default.
	Replicas *int32 `json:"replicas,omitempty"`
	// Storage is the volume size of each instance.
	Storage resource.Quantity `json:"storage,omitempty"`
	// Parameters are engine configuration parameters.
	Parameters map[string]string `json:"parameters,omitempty"`
	// Backup schedules backups; nil means no backups.
	Backup *BackupPolicy `json:"backup,omitempty"`
}

// BackupPolicy says when backups are taken and how long they are kept.
type BackupPolicy struct {
	// Schedule is a cron expression.
	Schedule string `json:"schedule,omitempty"`
	// RetentionDays is how many days a backup is kept.
	RetentionDays int32 `json:"retentionDays,omitempty"`
}

// DatabaseStatus is the observed state of a Database.
type DatabaseStatus struct {
	// Phase summarises the database's state.
	Phase DatabasePhase `json:"phase,omitempty"`
	// ReadyReplicas is the number of instances serving.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// ObservedGeneration is the generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are the latest observations, one per type.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DatabaseList is a list of Databases.
type DatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Database `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DatabaseClass is a cluster-wide template for Databases.
type DatabaseClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DatabaseClassSpec `json:"spec"`
}

// DatabaseClassSpec is the desired state of a DatabaseClass.
type DatabaseClassSpec struct {
	// Engine is the engine of Databases of this class.
	Engine Engine `json:"engine"`
	// DefaultVersion is the engine version used when a Database gives none.
	DefaultVersion string `json:"defaultVersion,omitempty"`
	// MaxStorage caps the storage of Databases of this class.
	MaxStorage resource.Quantity `json:"maxStorage,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DatabaseClassList is a list of DatabaseClasses.
type DatabaseClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []DatabaseClass `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Backup is a scheduled backup of one Database.
type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackupSpec   `json:"spec"`
	Status BackupStatus `json:"status,omitempty"`
}

// BackupSpec is the desired state of a Backup.
type BackupSpec struct {
	// DatabaseName names the Database, in the Backup's namespace, to back up.
	DatabaseName string `json:"databaseName"`
	// Schedule is a cron expression; empty means once.
	Schedule string `json:"schedule,omitempty"`
}

// BackupStatus is the observed state of a Backup.
type BackupStatus struct {
	// LastSuccessfulTime is when the last backup completed.
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BackupList is a list of Backups.
type BackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Backup `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DatabaseUsage is the resource usage of one Database, computed when it is read (never
// stored), as metrics-server's PodMetrics.
type DatabaseUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Engine is the measured Database's engine.
	Engine Engine `json:"engine"`
	// Timestamp is the start of the window the usage was measured over.
	Timestamp metav1.Time `json:"timestamp"`
	// Window is the length of that window.
	Window metav1.Duration `json:"window"`
	// Usage is what the Database uses.
	Usage DatabaseUsageValues `json:"usage"`
}

// DatabaseUsageValues are the measured values of a DatabaseUsage.
type DatabaseUsageValues struct {
	// Connections is the number of open client connections.
	Connections int32 `json:"connections"`
	// CPU is the processor time used per second, in cores.
	CPU resource.Quantity `json:"cpu"`
	// Storage is the data stored, in bytes.
	Storage resource.Quantity `json:"storage"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DatabaseUsageList is a list of DatabaseUsages.
type DatabaseUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []DatabaseUsage `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BackupRecord records one completed backup run. Records live in a PostgreSQL table beside
// the backups themselves, not in etcd (+apigen:storage=interface in v1).
type BackupRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BackupRecordSpec `json:"spec"`
}

// BackupRecordSpec describes a completed backup run.
type BackupRecordSpec struct {
	// BackupName names the Backup, in the record's namespace, that ran.
	BackupName string `json:"backupName"`
	// DatabaseName names the Database backed up.
	DatabaseName string `json:"databaseName,omitempty"`
	// Location is where the backup's data was written, e.g. s3://bucket/key.
	Location string `json:"location,omitempty"`
	// SizeBytes is the size of the backup's data.
	SizeBytes int64 `json:"sizeBytes,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BackupRecordList is a list of BackupRecords.
type BackupRecordList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BackupRecord `json:"items"`
}
