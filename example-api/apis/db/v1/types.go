package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Engine is a database engine.
// +kubebuilder:validation:Enum=postgres;mysql
type Engine string

// The supported engines.
const (
	EnginePostgres Engine = "postgres"
	EngineMySQL    Engine = "mysql"
)

// DatabasePhase is a coarse summary of where a Database is in its life cycle.
type DatabasePhase string

// The phases of a Database.
const (
	DatabasePending DatabasePhase = "Pending"
	DatabaseReady   DatabasePhase = "Ready"
	DatabaseFailed  DatabasePhase = "Failed"
)

// Database is a managed database instance.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=db,categories=all
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.readyReplicas
// +kubebuilder:selectablefield:JSONPath=`.spec.engine`
// +kubebuilder:printcolumn:name="Engine",type=string,JSONPath=`.spec.engine`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.spec.version`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Storage",type=string,JSONPath=`.spec.storage`,priority=1
// +kubebuilder:storageversion
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatabaseSpec   `json:"spec"`
	Status DatabaseStatus `json:"status,omitempty"`
}

// DatabaseSpec is the desired state of a Database.
type DatabaseSpec struct {
	// Engine is the database engine. It cannot be changed once the Database exists.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="engine is immutable"
	Engine Engine `json:"engine"`
	// Version is the engine version, e.g. "16.2".
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)*$`
	Version string `json:"version,omitempty"`
	// Replicas is the number of instances, 0 to 9.
	// +optional
	// +default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=9
	Replicas *int32 `json:"replicas,omitempty"`
	// Storage is the volume size of each instance.
	// +optional
	// +kubebuilder:default="10Gi"
	Storage resource.Quantity `json:"storage,omitempty,omitzero"` // omitzero: a server-side apply without it gets the default, not "0"
	// Parameters are engine configuration parameters, at most 64.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Parameters map[string]string `json:"parameters,omitempty"`
	// Backup schedules backups; unset means no backups.
	// +optional
	Backup *BackupPolicy `json:"backup,omitempty"`
}

// BackupPolicy says when backups are taken and how long they are kept.
type BackupPolicy struct {
	// Schedule is a cron expression, e.g. "0 3 * * *".
	// +optional
	Schedule string `json:"schedule,omitempty"`
	// RetentionDays is how many days a backup is kept.
	// +optional
	// +default=7
	// +kubebuilder:validation:Minimum=1
	RetentionDays int32 `json:"retentionDays,omitempty"`
}

// DatabaseStatus is the observed state of a Database.
type DatabaseStatus struct {
	// Phase summarises the database's state.
	// +optional
	Phase DatabasePhase `json:"phase,omitempty"`
	// ReadyReplicas is the number of instances serving.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are the latest observations, one per type.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// DatabaseList is a list of Databases.
//
// +kubebuilder:object:root=true
type DatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Database `json:"items"`
}

// DatabaseClass is a cluster-wide template for Databases.
//
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Engine",type=string,JSONPath=`.spec.engine`
// +kubebuilder:printcolumn:name="Default Version",type=string,JSONPath=`.spec.defaultVersion`
// +kubebuilder:printcolumn:name="Max Storage",type=string,JSONPath=`.spec.maxStorage`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type DatabaseClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DatabaseClassSpec `json:"spec"`
}

// DatabaseClassSpec is the desired state of a DatabaseClass.
type DatabaseClassSpec struct {
	// Engine is the engine of Databases of this class.
	// +required
	Engine Engine `json:"engine"`
	// DefaultVersion is the engine version used when a Database gives none.
	// +optional
	DefaultVersion string `json:"defaultVersion,omitempty"`
	// MaxStorage caps the storage of Databases of this class.
	// +optional
	MaxStorage resource.Quantity `json:"maxStorage,omitempty"`
}

// DatabaseClassList is a list of DatabaseClasses.
//
// +kubebuilder:object:root=true
type DatabaseClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []DatabaseClass `json:"items"`
}

// Backup is a scheduled backup of one Database.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Database",type=string,JSONPath=`.spec.databaseName`
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Last Success",type=date,JSONPath=`.status.lastSuccessfulTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackupSpec   `json:"spec"`
	Status BackupStatus `json:"status,omitempty"`
}

// BackupSpec is the desired state of a Backup.
type BackupSpec struct {
	// DatabaseName names the Database, in the Backup's namespace, to back up.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Format=k8s-long-name
	DatabaseName string `json:"databaseName"`
	// Schedule is a cron expression; empty means once.
	// +optional
	Schedule string `json:"schedule,omitempty"`
}

// BackupStatus is the observed state of a Backup.
type BackupStatus struct {
	// LastSuccessfulTime is when the last backup completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
}

// BackupList is a list of Backups.
//
// +kubebuilder:object:root=true
type BackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Backup `json:"items"`
}

// DatabaseUsage is the resource usage of one Database (of the same name and namespace),
// computed when it is read and never stored, as metrics-server's PodMetrics: the example of a
// resource whose REST the user writes (+apigen:storage=rest; the REST is in the install
// package, databaseusage.go). It is read-only: get, list and watch.
//
// +genclient
// +genclient:onlyVerbs=get,list,watch
// +kubebuilder:object:root=true
// +apigen:storage=rest
// +kubebuilder:printcolumn:name="Connections",type=integer,JSONPath=`.usage.connections`
// +kubebuilder:printcolumn:name="CPU(cores)",type=string,JSONPath=`.usage.cpu`
// +kubebuilder:printcolumn:name="Storage(bytes)",type=string,JSONPath=`.usage.storage`
// +kubebuilder:printcolumn:name="Engine",type=string,JSONPath=`.engine`,priority=1
// +kubebuilder:printcolumn:name="Window",type=string,JSONPath=`.window`,priority=1
// +kubebuilder:selectablefield:JSONPath=`.engine`
type DatabaseUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Engine is the measured Database's engine.
	// +optional
	Engine Engine `json:"engine,omitempty"`
	// Timestamp is the start of the window the usage was measured over.
	// +optional
	Timestamp metav1.Time `json:"timestamp,omitempty"`
	// Window is the length of that window.
	// +optional
	Window metav1.Duration `json:"window,omitempty"`
	// Usage is what the Database uses.
	// +optional
	Usage DatabaseUsageValues `json:"usage,omitempty"`
}

// DatabaseUsageValues are the measured values of a DatabaseUsage.
type DatabaseUsageValues struct {
	// Connections is the number of open client connections.
	// +optional
	Connections int32 `json:"connections,omitempty"`
	// CPU is the processor time used per second, in cores.
	// +optional
	CPU resource.Quantity `json:"cpu,omitempty"`
	// Storage is the data stored, in bytes.
	// +optional
	Storage resource.Quantity `json:"storage,omitempty"`
}

// DatabaseUsageList is a list of DatabaseUsages.
//
// +kubebuilder:object:root=true
type DatabaseUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []DatabaseUsage `json:"items"`
}

// BackupRecord records one completed backup run. Records are kept in a PostgreSQL table
// (example-api/storage/sqlstore, with the server's --backup-records-dsn), not in etcd: the
// install package's newBackupRecordStorage returns their storage.
//
// +genclient
// +kubebuilder:object:root=true
// +apigen:storage=interface
// +kubebuilder:printcolumn:name="Backup",type=string,JSONPath=`.spec.backupName`
// +kubebuilder:printcolumn:name="Database",type=string,JSONPath=`.spec.databaseName`
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.sizeBytes`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BackupRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BackupRecordSpec `json:"spec"`
}

// BackupRecordSpec describes a completed backup run.
type BackupRecordSpec struct {
	// BackupName names the Backup, in the record's namespace, that ran.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	BackupName string `json:"backupName"`
	// DatabaseName names the Database backed up.
	// +optional
	DatabaseName string `json:"databaseName,omitempty"`
	// Location is where the backup's data was written, e.g. s3://bucket/key.
	// +optional
	Location string `json:"location,omitempty"`
	// SizeBytes is the size of the backup's data.
	// +optional
	// +kubebuilder:validation:Minimum=0
	SizeBytes int64 `json:"sizeBytes,omitempty"`
}

// BackupRecordList is a list of BackupRecords.
//
// +kubebuilder:object:root=true
type BackupRecordList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BackupRecord `json:"items"`
}
