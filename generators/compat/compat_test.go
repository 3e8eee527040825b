package compat_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/generators/compat"
	"github.com/apigen-dev/apigen/generators/compat/compatmarkers"
	"github.com/apigen-dev/apigen/generators/load"
)

// change is one change TestCheck expects: its name and severity, where (a file of the
// scratch repository and a text on the line, in testdata/after, or in testdata/before for
// something removed), a fragment of its reason, and whether a marker allows it.
type change struct {
	name     string
	severity compat.Severity
	file     string
	line     string
	atRef    bool
	reason   string
	allowed  bool
}

const shop = "apis/shop/v1/types.go"

// wantChanges are the changes from testdata/before to testdata/after, every one of them:
// each kind of incompatible change the checker knows, and additive ones that must not fail.
var wantChanges = []change{
	// Fields removed, renamed, retyped.
	{"field-removed", compat.Breaking, shop, "Removed string", true, "field .spec.removed is removed", false},
	{"field-renamed", compat.Breaking, shop, `json:"newName`, false, `.spec.oldName is renamed "newName"`, false},
	{"type-changed", compat.Breaking, shop, "Count   string", false, "type of .spec.count changes from integer to string", false},
	{"format-changed", compat.Breaking, shop, "Size    int64", false, `format of .spec.size changes from "int32" to "int64"`, false},
	{"omission-changed", compat.Breaking, shop, "Ptr     int32", false, ".spec.ptr changes from *int32,omitempty to int32,omitempty", false},
	// Enums: a value removed (at the type, whose marker changed), an enum added, a value added.
	{"enum-value-removed", compat.Breaking, shop, "type Mode string", false, `.spec.mode no longer accepts "Off"`, false},
	{"enum-added", compat.Breaking, shop, "Tier string", false, `.spec.tier now accepts only "gold", "silver"`, false},
	{"enum-value-added", compat.Additive, shop, "type Color string", false, `.spec.color also accepts "blue"`, false},
	// Required.
	{"field-required", compat.Breaking, shop, `json:"opt"`, false, ".spec.opt becomes required", false},
	{"required-field-added", compat.Breaking, shop, "MustHave string", false, "new field .spec.mustHave is required and has no default", false},
	{"field-added", compat.Additive, shop, "Extra string", false, "new optional field .spec.extra", false},
	{"field-added", compat.Additive, shop, "Defaulted string", false, "new optional field .spec.defaulted", false},
	// Tightened validation.
	{"minimum-raised", compat.Breaking, shop, "Min int32", false, "minimum of .spec.min changes from 1 to 2", false},
	{"maximum-lowered", compat.Breaking, shop, "Max int32", false, "maximum of .spec.max changes from 10 to 5", false},
	{"max-length-lowered", compat.Breaking, shop, "Title string", false, "maxLength of .spec.title changes from 20 to 10", false},
	{"min-length-raised", compat.Breaking, shop, "Short string", false, "minLength of .spec.short changes from 1 to 3", false},
	{"max-items-lowered", compat.Breaking, shop, "Tags []string", false, "maxItems of .spec.tags changes from 5 to 3", false},
	{"pattern-changed", compat.Breaking, shop, "Code string", false, `pattern of .spec.code changes from "^[a-z]+$" to "^[a-z]{2,}$"`, false},
	{"format-changed", compat.Breaking, shop, "Host string", false, `format of .spec.host changes from "hostname" to "ipv4"`, false},
	{"validation-rule-added", compat.Breaking, shop, "Rule string", false, `new CEL rule "self.size() > 1" on .spec.rule, without oldSelf`, false},
	{"validation-rule-changed", compat.Breaking, shop, "Changed string", false, `CEL rule "self.size() < 10" on .spec.changed becomes "self.size() < 5"`, false},
	{"transition-rule-added", compat.Additive, shop, "Ratch string", false, `transition rule "self == oldSelf" on .spec.ratch uses oldSelf`, false},
	{"validation-loosened", compat.Additive, shop, "Loose int32", false, "maximum of .spec.loose changes from 5 to 50", false},
	// Defaults and topology.
	{"default-changed", compat.Breaking, shop, "Def string", false, `default of .spec.def changes from "a" to "b"`, false},
	{"list-type-changed", compat.Breaking, shop, "Set []string", false, "list type of .spec.set changes from set to atomic", false},
	{"list-map-keys-changed", compat.Breaking, shop, "Items []Item", false, "list-map keys of .spec.items change from name to name,port", false},
	{"map-type-changed", compat.Breaking, shop, "Labels map[string]string", false, "map type of .spec.labels changes from granular to atomic", false},
	{"struct-type-changed", compat.Breaking, shop, "Ref Ref", false, "struct type of .spec.ref changes from granular to atomic", false},
	// Allowed by a marker on the field and on the struct that held a removed field.
	{"maximum-lowered", compat.Breaking, shop, "Ceiling int32", false, "maximum of .spec.ceiling changes from 100 to 50", true},
	{"field-removed", compat.Breaking, shop, "Legacy string", true, "field .status.legacy is removed", true},
	// Kinds: removed, added, scope.
	{"kind-removed", compat.Breaking, shop, "type Gadget struct", true, "kind Gadget is no longer served in shop.example.com/v1", false},
	{"kind-added", compat.Additive, shop, "type Doohickey struct", false, "new kind Doohickey", false},
	{"scope-changed", compat.Breaking, shop, "type Gizmo struct", false, "Gizmo changes from namespace to cluster scope", false},
	// Versions: removed, no longer served while it is the storage version; storage switched.
	{"version-removed", compat.Breaking, "apis/old/v1alpha1/doc.go", "package v1alpha1", true, "version old.example.com/v1alpha1 is no longer served", false},
	{"version-unserved", compat.Breaking, "apis/store/v1/types.go", "type Thing struct", false, "stops being served (+kubebuilder:unservedversion): every client of it fails; it is the storage version of Thing", false},
	{"storage-version-changed", compat.NeedsMigration, "apis/store/v2/types.go", "type Thing struct", false, "create a StorageVersionMigration (storagemigration.k8s.io/v1) with spec.resource {group: store.example.com, resource: things}", false},
	// A hub field the spoke cannot carry.
	{"lossy-conversion", compat.Breaking, "apis/conv/v1/types.go", "Color string", false, "v1 field .spec.color has no counterpart in conv.example.com/v1beta1", false},
	{"field-added", compat.Additive, "apis/conv/v1/types.go", "Color string", false, "new optional field .spec.color", false},
	{"lossy-conversion", compat.Breaking, "apis/hub/types.go", "Pitch int32", false, "the internal version field .spec.pitch has no counterpart in hub.example.com/v1", false},
	// Spelled otherwise (+k8s:maximum for +kubebuilder:validation:Maximum), or moved from the
	// field to its type, a constraint is the same: no change (any would be unexpected).
}

// lineOf returns the 1-based line of testdata/<tree>/file holding text.
func lineOf(t *testing.T, tree, file, text string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", tree, file))
	if err != nil {
		t.Fatal(err)
	}
	var found []int
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, text) {
			found = append(found, i+1)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%q is on lines %v of testdata/%s/%s, want one", text, found, tree, file)
	}
	return found[0]
}

// TestCheck commits testdata/before in a scratch git repository, then testdata/after (each
// change of wantChanges at once: the changes are independent, each at a line of its own),
// and checks that Check against HEAD~1 reports exactly wantChanges: each at its file:line
// with its reason and severity, allowed where a marker says so, nothing else.
func TestCheck(t *testing.T) {
	t.Parallel()
	start := time.Now()
	dir := scratchRepo(t, "before")
	commitTree(t, dir, "after", "after")
	now, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	res, err := compat.Check(dir, "HEAD~1", []string{"./..."}, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded and compared in %v", time.Since(start))
	top, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]compat.Change{}
	for _, c := range res.Changes {
		file := c.Pos.File
		if rel, err := filepath.Rel(top, file); err == nil {
			file = rel
		}
		key := fmt.Sprintf("%s:%d %s", file, c.Pos.Line, c.Name)
		if _, dup := got[key]; dup {
			t.Errorf("reported twice: %s", c)
		}
		got[key] = c
	}
	for _, w := range wantChanges {
		tree := "after"
		if w.atRef {
			tree = "before"
		}
		key := fmt.Sprintf("%s:%d %s", w.file, lineOf(t, tree, w.file, w.line), w.name)
		c, ok := got[key]
		if !ok {
			t.Errorf("missing: %s (%s)", key, w.reason)
			continue
		}
		delete(got, key)
		if c.Severity != w.severity || c.AtRef != w.atRef || c.Allowed != w.allowed || !strings.Contains(c.Reason, w.reason) {
			t.Errorf("%s:\n got %s\nwant severity %s, at ref %v, allowed %v, reason containing %q", key, c, w.severity, w.atRef, w.allowed, w.reason)
		}
		if c.Fails() != (w.severity == compat.Breaking && !w.allowed) {
			t.Errorf("%s: Fails() = %v", key, c.Fails())
		}
	}
	for key, c := range got {
		t.Errorf("unexpected: %s: %s", key, c)
	}
	breaking := 0
	for _, w := range wantChanges {
		if w.severity != compat.Additive {
			breaking++
		}
	}
	if breaking < 25 {
		t.Errorf("%d breaking changes in the table, want at least 25", breaking)
	}
}

// TestCheckUnchanged: the API against its own commit has no change, and an API added
// since the ref (the directory absent there) is additive only.
func TestCheckUnchanged(t *testing.T) {
	t.Parallel()
	dir := scratchRepo(t, "before")
	now, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	same, err := compat.Check(dir, "HEAD", []string{"./..."}, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(same.Changes) != 0 {
		t.Errorf("changes against HEAD: %v", same.Changes)
	}
	// A root commit without apis/: everything is new.
	gitIn(t, dir, "checkout", "-q", "--orphan", "empty")
	gitIn(t, dir, "rm", "-q", "-r", "--cached", "apis")
	gitIn(t, dir, "commit", "-q", "-m", "no apis")
	fresh, err := compat.Check(dir, "empty", []string{"./..."}, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fresh.Changes {
		if c.Severity != compat.Additive || !slices.Contains([]string{"version-added", "kind-added"}, c.Name) {
			t.Errorf("against a tree without the API: %s", c)
		}
	}
	if len(fresh.Changes) == 0 {
		t.Errorf("against a tree without the API: no change, want every version added")
	}
}

// TestREADMENames checks that the README's table of breaking changes names each of them.
func TestREADMENames(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range compatmarkers.Breaking {
		if !strings.Contains(string(readme), "| `"+b.Name+"` | "+b.Help+" |") {
			t.Errorf("README.md has no row | `%s` | %s |", b.Name, b.Help)
		}
	}
}
