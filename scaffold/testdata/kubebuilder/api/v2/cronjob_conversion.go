/*
Copyright 2026 The cronjob Authors.

Licensed under the Apache License, Version 2.0.
*/

package v2

import (
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v1 "example.com/cronjob/api/v1"
)

// ConvertTo converts this CronJob (v2) to the Hub version (v1).
func (src *CronJob) ConvertTo(dstRaw conversion.Hub) error {
	dst := dstRaw.(*v1.CronJob)
	parts := []string{"*", "*", "*", "*", "*"}
	for i, f := range []*CronField{src.Spec.Schedule.Minute, src.Spec.Schedule.Hour, src.Spec.Schedule.DayOfMonth,
		src.Spec.Schedule.Month, src.Spec.Schedule.DayOfWeek} {
		if f != nil {
			parts[i] = string(*f)
		}
	}
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Schedule = strings.Join(parts, " ")
	dst.Spec.StartingDeadlineSeconds = src.Spec.StartingDeadlineSeconds
	dst.Spec.ConcurrencyPolicy = v1.ConcurrencyPolicy(src.Spec.ConcurrencyPolicy)
	dst.Spec.Suspend = src.Spec.Suspend
	dst.Spec.SuccessfulJobsHistoryLimit = src.Spec.SuccessfulJobsHistoryLimit
	dst.Status.LastScheduleTime = src.Status.LastScheduleTime
	dst.Status.ObservedGeneration = src.Status.ObservedGeneration
	return nil
}

// ConvertFrom converts from the Hub version (v1) to this version (v2). A schedule that is not
// five cron fields is refused.
func (dst *CronJob) ConvertFrom(srcRaw conversion.Hub) error {
	src := srcRaw.(*v1.CronJob)
	parts := strings.Fields(src.Spec.Schedule)
	if len(parts) != 5 {
		return fmt.Errorf("schedule %q is not five cron fields", src.Spec.Schedule)
	}
	fields := make([]*CronField, 5)
	for i, p := range parts {
		f := CronField(p)
		fields[i] = &f
	}
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Schedule = CronSchedule{Minute: fields[0], Hour: fields[1], DayOfMonth: fields[2], Month: fields[3], DayOfWeek: fields[4]}
	dst.Spec.StartingDeadlineSeconds = src.Spec.StartingDeadlineSeconds
	dst.Spec.ConcurrencyPolicy = ConcurrencyPolicy(src.Spec.ConcurrencyPolicy)
	dst.Spec.Suspend = src.Spec.Suspend
	dst.Spec.SuccessfulJobsHistoryLimit = src.Spec.SuccessfulJobsHistoryLimit
	dst.Status.LastScheduleTime = src.Status.LastScheduleTime
	dst.Status.ObservedGeneration = src.Status.ObservedGeneration
	return nil
}
