// Package compatmarkers registers the marker the compatibility check (generators/compat,
// `apigen verify --against <ref>`) owns, +apigen:allow-breaking, and names the incompatible
// changes it accepts. It is a package of its own, beside the check, so that the loader can
// read the registration without importing the check (which imports the loader).
package compatmarkers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the check this marker belongs to.
const Owner = "compat"

// Breaking names every incompatible change the check reports as breaking, each with what it
// is, as Kubernetes' API change guidelines (contributors/devel/sig-architecture/api_changes.md)
// forbid it in a served version; +apigen:allow-breaking and `--allow` take these names.
var Breaking = []struct{ Name, Help string }{
	{"kind-removed", "a kind is no longer served in a version"},
	{"version-removed", "a served version is removed"},
	{"version-unserved", "a version stops being served"},
	{"scope-changed", "a kind changes between namespaced and cluster scope"},
	{"field-removed", "a field is removed"},
	{"field-renamed", "a field's JSON name changes"},
	{"type-changed", "a field's JSON type changes"},
	{"format-changed", "a field's format changes (int32 to int64, a string format)"},
	{"omission-changed", "a field turns from pointer to value or back, changing when it is omitted"},
	{"enum-value-removed", "an enum value is no longer accepted"},
	{"enum-added", "an enum now restricts a field that accepted any value"},
	{"field-required", "an optional field becomes required"},
	{"required-field-added", "a new field is required and has no default"},
	{"minimum-raised", "a minimum is set or raised (or made exclusive)"},
	{"maximum-lowered", "a maximum is set or lowered (or made exclusive)"},
	{"min-length-raised", "a minLength is set or raised"},
	{"max-length-lowered", "a maxLength is set or lowered"},
	{"min-items-raised", "a minItems is set or raised"},
	{"max-items-lowered", "a maxItems is set or lowered"},
	{"min-properties-raised", "a minProperties is set or raised"},
	{"max-properties-lowered", "a maxProperties is set or lowered"},
	{"multiple-of-changed", "a multipleOf is set or changed"},
	{"unique-items-added", "list items must now be unique"},
	{"nullable-removed", "null is no longer accepted"},
	{"pattern-changed", "a pattern is set or changed"},
	{"validation-rule-added", "a CEL rule without oldSelf is added to an existing field"},
	{"validation-rule-changed", "a CEL rule without oldSelf replaces another"},
	{"default-changed", "the default of an existing field is added, changed or removed"},
	{"list-type-changed", "x-kubernetes-list-type changes (+listType)"},
	{"list-map-keys-changed", "x-kubernetes-list-map-keys change (+listMapKey)"},
	{"map-type-changed", "x-kubernetes-map-type of a map changes (+mapType)"},
	{"struct-type-changed", "x-kubernetes-map-type of a struct changes (+structType)"},
	{"lossy-conversion", "a hub field is added that a served version cannot carry"},
}

// Known reports whether name is one of Breaking.
func Known(name string) bool {
	return slices.ContainsFunc(Breaking, func(b struct{ Name, Help string }) bool { return b.Name == name })
}

// CheckName returns an error naming the known names when name is not one of them.
func CheckName(name string) error {
	if Known(name) {
		return nil
	}
	names := make([]string, len(Breaking))
	for i, b := range Breaking {
		names[i] = b.Name
	}
	return fmt.Errorf("unknown breaking change %q: one of %s", name, strings.Join(names, ", "))
}

// Register registers the compatibility check's marker in reg.
func Register(reg *markers.Registry) {
	reg.MustRegister(
		markers.Definition{Name: "apigen:allow-breaking", Level: markers.PackageLevel | markers.TypeLevel | markers.FieldLevel, Owner: Owner,
			Apply: markers.Names(CheckName, func(m *model.Markers) *[]string { return &m.AllowBreaking }),
			Args:  "=<change>[,<change>...]",
			Help:  "Accepts the named breaking changes (field-removed, ...) that apigen verify --against reports at this field, type and its fields, or package."},
	)
}
