package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/runtime/registry"
)

// TestBuiltinsOrder checks the built-in table: every need is provided by earlier entries
// only, every product provided is needed after it (no stale declaration), names are unique,
// and the groups the table serves are the core group, the own groups, and BuiltinGroups.
func TestBuiltinsOrder(t *testing.T) {
	t.Parallel()
	if err := checkOrder(builtins); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for i, e := range builtins {
		if names[e.name] {
			t.Errorf("two entries named %q", e.name)
		}
		names[e.name] = true
		for _, p := range e.provides {
			if !slices.ContainsFunc(builtins[i+1:], func(o builtin) bool { return slices.Contains(o.needs, p) }) {
				t.Errorf("%s provides %s, which no later entry needs", e.name, p)
			}
		}
		for _, g := range e.groups {
			if g != "" && g != anyGroup && !slices.Contains(BuiltinGroups, g) {
				t.Errorf("%s serves %q, which BuiltinGroups does not list", e.name, g)
			}
		}
		if (len(e.groups) > 0) != slices.Contains(e.provides, apiGroups) {
			t.Errorf("%s: serves groups %q but provides %s: %v; want both or neither", e.name, e.groups, apiGroups, e.provides)
		}
	}
}

// TestCheckOrderRefusesMisorder moves each entry of the table before each entry providing
// one of its needs, and checks that checkOrder refuses the result, naming the moved entry
// (its first unmet need, which may be another); and a need that nothing provides.
func TestCheckOrderRefusesMisorder(t *testing.T) {
	t.Parallel()
	moves := 0
	for i, e := range builtins {
		for _, p := range e.needs {
			for j := range i {
				if !slices.Contains(builtins[j].provides, p) {
					continue
				}
				moved := slices.Insert(slices.Delete(slices.Clone(builtins), i, i+1), j, e)
				err := checkOrder(moved)
				if err == nil || !strings.Contains(err.Error(), "built-in table: "+e.name+" needs ") {
					t.Errorf("%s moved before %s (which provides %s): checkOrder = %v, want an error naming %q", e.name, builtins[j].name, p, err, e.name)
				}
				moves++
			}
		}
	}
	if moves < 15 {
		t.Errorf("only %d moves tried: the table's needs are too few to check its order", moves)
	}
	lonely := []builtin{{name: "alone", needs: []product{coreGroup}}}
	if err := checkOrder(lonely); err == nil || !strings.Contains(err.Error(), "no entry provides") {
		t.Errorf("a need nothing provides: checkOrder = %v", err)
	}
}

// TestWiringRefusesUndeclared checks that a start fails when an entry uses a product its
// needs do not declare, or serves a group outside its groups; and that a declared use passes.
func TestWiringRefusesUndeclared(t *testing.T) {
	t.Parallel()
	provider := builtin{name: "provider", provides: []product{authorizer}}
	reads := func(w *wiring) ([]*registry.APIGroupInfo, error) { w.authorizer(); return nil, nil }
	for _, tc := range []struct {
		name    string
		table   []builtin
		wantErr string
	}{
		{"undeclared", []builtin{provider, {name: "reader", build: reads}},
			"reader uses the authorizer, which its needs do not declare"},
		{"declared", []builtin{provider, {name: "reader", needs: []product{authorizer}, build: reads}}, ""},
		{"foreign group", []builtin{{name: "server", groups: []string{"a.example.com"}, build: func(*wiring) ([]*registry.APIGroupInfo, error) {
			return []*registry.APIGroupInfo{{Group: "b.example.com"}}, nil
		}}}, `server serves the group "b.example.com", not among its groups`},
		{"misordered", []builtin{{name: "reader", needs: []product{authorizer}, build: reads}, provider},
			"reader needs the authorizer, which provider provides at or after it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &wiring{table: tc.table, sec: &security{}}
			err := w.build()
			if tc.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("build = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestWiringCoreGroupLeads checks that the typed link's groups are in table order with the
// leading entry's (the core group's) first, as kube-apiserver installs /api before /apis.
func TestWiringCoreGroupLeads(t *testing.T) {
	t.Parallel()
	serves := func(group string) func(*wiring) ([]*registry.APIGroupInfo, error) {
		return func(*wiring) ([]*registry.APIGroupInfo, error) { return []*registry.APIGroupInfo{{Group: group}}, nil }
	}
	w := &wiring{table: []builtin{
		{name: "a", groups: []string{"a"}, build: serves("a")},
		{name: "b", groups: []string{"b"}, build: serves("b")},
		{name: "core", groups: []string{""}, leads: true, build: serves("")},
		{name: "c", groups: []string{"c"}, build: serves("c")},
	}}
	if err := w.build(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, info := range w.groups {
		got = append(got, info.Group)
	}
	if want := []string{"", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
}

// tableChecks returns the /readyz checks the built-in table declares.
func tableChecks() []string {
	var out []string
	for _, e := range builtins {
		out = append(out, e.checks...)
	}
	return out
}

// tableControllers returns the leader-elected controllers (their Leases) the built-in table
// declares.
func tableControllers() []string {
	var out []string
	for _, e := range builtins {
		out = append(out, e.controllers...)
	}
	return out
}
