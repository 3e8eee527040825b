/*
Copyright 2026 The cronjob Authors.

Licensed under the Apache License, Version 2.0.
*/

// Package fuzzer keeps randomly filled CronJobs to schedules both versions can represent, as
// Kubernetes' pkg/apis/<group>/fuzzer packages do: v1's spec.schedule is five cron fields
// separated by spaces, which v2 holds one by one (an unset v2 field is "*" in v1, so every
// v2 field is set). apigen's generated round-trip test (api/v2/install) fills objects with
// Funcs.
package fuzzer

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	v1 "example.com/cronjob/api/v1"
	v2 "example.com/cronjob/api/v2"
)

// cronFields are values of one cron field.
var cronFields = []string{"*", "0", "5", "*/15", "1-5", "MON"}

// Funcs are the group's fuzzer functions, an apimachinery fuzzer.FuzzerFuncs.
func Funcs(serializer.CodecFactory) []interface{} {
	field := func(c randfill.Continue) v2.CronField { return v2.CronField(cronFields[c.Intn(len(cronFields))]) }
	return []interface{}{
		func(s *v1.CronJobSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			parts := make([]string, 5)
			for i := range parts {
				parts[i] = string(field(c))
			}
			s.Schedule = strings.Join(parts, " ")
		},
		func(s *v2.CronSchedule, c randfill.Continue) {
			for _, f := range []**v2.CronField{&s.Minute, &s.Hour, &s.DayOfMonth, &s.Month, &s.DayOfWeek} {
				v := field(c)
				*f = &v
			}
		},
	}
}
