/*
Copyright 2026 The cronjob Authors.

Licensed under the Apache License, Version 2.0.
*/

package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConcurrencyPolicy describes how the job will be handled.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

// CronField is a cron field: a number, a range, a list or an asterisk.
// +kubebuilder:validation:Pattern=`^[0-9*/,-]+$`
type CronField string

// CronSchedule is a cron schedule, field by field.
type CronSchedule struct {
	// minute of the hour.
	// +optional
	Minute *CronField `json:"minute,omitempty"`
	// hour of the day.
	// +optional
	Hour *CronField `json:"hour,omitempty"`
	// dayOfMonth of the month.
	// +optional
	DayOfMonth *CronField `json:"dayOfMonth,omitempty"`
	// month of the year.
	// +optional
	Month *CronField `json:"month,omitempty"`
	// dayOfWeek of the week.
	// +optional
	DayOfWeek *CronField `json:"dayOfWeek,omitempty"`
}

// CronJobSpec defines the desired state of CronJob.
type CronJobSpec struct {
	// schedule, field by field.
	// +required
	Schedule CronSchedule `json:"schedule"`

	// startingDeadlineSeconds is the deadline in seconds for starting the job.
	// +optional
	// +kubebuilder:validation:Minimum=0
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy specifies how to treat concurrent executions of a Job.
	// +optional
	// +kubebuilder:default:=Allow
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// suspend tells the controller to suspend subsequent executions.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// successfulJobsHistoryLimit is the number of successful finished jobs to retain.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`
}

// CronJobStatus defines the observed state of CronJob.
type CronJobStatus struct {
	// lastScheduleTime is when the job was last successfully scheduled.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// observedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// CronJob is the Schema for the cronjobs API.
type CronJob struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec defines the desired state of CronJob.
	// +required
	Spec CronJobSpec `json:"spec"`

	// status defines the observed state of CronJob.
	// +optional
	Status CronJobStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// CronJobList contains a list of CronJob.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJob{}, &CronJobList{})
}
