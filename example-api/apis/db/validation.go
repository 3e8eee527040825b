package db

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateDatabase is the hand-written validation of a Database, found by name at generate
// time (as Kubernetes' strategies call their ValidateX functions): the generated strategy
// calls it on create and, as the package declares no ValidateDatabaseUpdate, on update, after
// the checks generated from the versioned types' markers. It returns one field.Invalid at
// spec.backup.schedule when a backup schedule is set but is not a cron expression of five
// fields ("0 3 * * *"); a nil ErrorList otherwise.
func ValidateDatabase(obj *Database) field.ErrorList {
	var errs field.ErrorList
	if b := obj.Spec.Backup; b != nil && b.Schedule != "" && len(strings.Fields(b.Schedule)) != 5 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "backup", "schedule"), b.Schedule,
			"must be a cron expression of five fields, e.g. \"0 3 * * *\""))
	}
	return errs
}
