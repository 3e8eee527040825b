/*
Copyright 2026 The cronjob Authors.

Licensed under the Apache License, Version 2.0.
*/

package v1

// Hub marks this type as a conversion hub.
func (*CronJob) Hub() {}
