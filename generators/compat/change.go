package compat

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/apigen-dev/apigen/generators/model"
)

// Severity says what a change asks of the people who run the API: nothing (Additive), a
// storage migration (NeedsMigration), or a new API version instead (Breaking).
type Severity string

// The severities of a Change, as `apigen verify --against` prints them.
const (
	// Breaking changes break clients of the version or objects already stored; the check
	// exits 1 on any that is not allowed.
	Breaking Severity = "breaking"
	// NeedsMigration changes leave stored objects in an older form until they are rewritten
	// (a storage version switch): the check says how, and passes.
	NeedsMigration Severity = "needs-migration"
	// Additive changes keep every request that worked working: listed, never failing.
	Additive Severity = "additive"
)

// Change is one difference between the API at the ref and now, in one served version of one
// kind (or in a version or group as a whole).
type Change struct {
	// Name names the change: one of compatmarkers.Breaking for a breaking change (what
	// +apigen:allow-breaking and --allow take), "storage-version-changed", or an additive
	// change's name ("field-added", "enum-value-added", "validation-loosened", ...).
	Name     string
	Severity Severity
	// Group, Version and Kind say where; Path is the JSON path in the kind's object
	// (".spec.replicas", ".spec.ports[*].name", ".spec.labels{*}"), "" for the kind itself.
	Group   string
	Version string
	Kind    string
	Path    string
	// Pos is the declaration: the new one, or the removed one at the ref when AtRef.
	Pos   model.Position
	AtRef bool
	// Reason is one line saying what changed and why it matters, after Kubernetes' API
	// change guidelines.
	Reason string
	// Allowed is set on a breaking change accepted by +apigen:allow-breaking at its
	// declaration or by the --allow flag; AllowedBy says which.
	Allowed   bool
	AllowedBy string
	// allow are the names +apigen:allow-breaking accepts at the change's declaration.
	allow []string
}

// Fails reports whether the change fails the check: breaking and not allowed.
func (c Change) Fails() bool { return c.Severity == Breaking && !c.Allowed }

// Where is "group/version Kind .path" (or less, for a version or a kind).
func (c Change) Where() string {
	s := c.Group + "/" + c.Version
	if c.Kind != "" {
		s += " " + c.Kind
	}
	if c.Path != "" {
		s += " " + c.Path
	}
	return s
}

// String formats the change for people: "file:line: severity: reason (where) [name]".
func (c Change) String() string {
	sev := string(c.Severity)
	if c.Allowed {
		sev += " (allowed by " + c.AllowedBy + ")"
	}
	at := ""
	if c.AtRef {
		at = " (at the ref)"
	}
	return fmt.Sprintf("%s%s: %s: %s (%s) [%s]", c.Pos, at, sev, c.Reason, c.Where(), c.Name)
}

// Allow marks every breaking change whose name is in names as allowed by the flag, and
// every one whose declaration carries +apigen:allow-breaking=<its name> as allowed by the
// marker.
func Allow(changes []Change, names []string) {
	for i := range changes {
		c := &changes[i]
		if c.Severity != Breaking {
			continue
		}
		switch {
		case slices.Contains(c.allow, c.Name):
			c.Allowed, c.AllowedBy = true, "+apigen:allow-breaking="+c.Name
		case slices.Contains(names, c.Name):
			c.Allowed, c.AllowedBy = true, "--allow="+c.Name
		}
	}
}

// sortChanges orders changes by file, line, name and where, and drops exact repeats (a
// type shared by several paths of one kind).
func sortChanges(changes []Change) []Change {
	slices.SortStableFunc(changes, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Where(), b.Where()))
	})
	return slices.CompactFunc(changes, func(a, b Change) bool {
		return a.Pos == b.Pos && a.Name == b.Name && a.Where() == b.Where() && a.Reason == b.Reason
	})
}
