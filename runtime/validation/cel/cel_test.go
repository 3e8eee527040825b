package cel

import (
	"context"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	ctx    = context.Background()
	create = operation.Operation{Type: operation.Create}
	update = operation.Operation{Type: operation.Update}
	path   = field.NewPath("spec", "engine")
)

func mustCompile(t *testing.T, spec Spec, self Type) *Rule {
	t.Helper()
	r, err := Compile(spec, self)
	if err != nil {
		t.Fatalf("Compile(%q): %v", spec.Rule, err)
	}
	return r
}

// render renders errors as "type field: detail".
func render(errs field.ErrorList) string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field+": "+e.Detail)
	}
	return strings.Join(out, "\n")
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		self Type
		want string
	}{
		{"syntax", Spec{Rule: "self.size() >"}, String, `cannot compile rule "self.size() >": ERROR: <input>:1:14: Syntax error`},
		{"not a bool", Spec{Rule: "self + 1"}, Int, "the expression must evaluate to bool, not int"},
		{"type mismatch", Spec{Rule: "self > 3"}, String, "found no matching overload for '_>_' applied to '(string, int)'"},
		{"unknown variable", Spec{Rule: "other == self"}, String, "undeclared reference to 'other'"},
		{"empty", Spec{Rule: "  "}, String, "the rule is empty"},
		{"bad reason", Spec{Rule: "true", Reason: "FieldValueWrong"}, String, `reason "FieldValueWrong" is not one of`},
		{"bad field path", Spec{Rule: "true", FieldPath: "spec..name"}, Object, `fieldPath "spec..name" is not a relative JSON path`},
		{"message expression not a string", Spec{Rule: "true", MessageExpression: "1"}, String, "messageExpression: the expression must evaluate to string, not int"},
		{"oldSelf optional without optionalOldSelf", Spec{Rule: "oldSelf.hasValue()"}, String, "found no matching overload for 'hasValue'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.spec, tc.self)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile(%q) = %v, want an error containing %q", tc.spec.Rule, err, tc.want)
			}
		})
	}
}

func TestSelf(t *testing.T) {
	type spec struct {
		Engine   string            `json:"engine"`
		Replicas *int32            `json:"replicas,omitempty"`
		Tags     []string          `json:"tags,omitempty"`
		Params   map[string]string `json:"params,omitempty"`
	}
	for _, tc := range []struct {
		name string
		rule string
		self Type
		ok   any
		bad  any
	}{
		{"string", "self.startsWith('pg-')", String, "pg-16", "mysql"},
		{"named string", "self in ['postgres', 'mysql']", String, engine("mysql"), engine("oracle")},
		{"int32", "self % 2 == 0", Int, int32(4), int32(3)},
		{"uint64", "self < 10", Int, uint64(9), uint64(10)},
		{"float as double", "self > 0.5", Double, 0.75, 0.25},
		{"integral float as double", "self >= 1.0", Double, 2.0, 0.0},
		{"bool", "self", Bool, true, false},
		{"list", "self.size() <= 2 && self.all(x, x != '')", List, []string{"a", "b"}, []string{"a", ""}},
		{"struct has", "!has(self.replicas) || self.replicas <= 9", Object, spec{Engine: "pg"}, spec{Replicas: ptr(int32(12))}},
		{"struct fields", "self.engine != 'oracle' && self.params.size() <= 1", Object,
			spec{Engine: "pg", Params: map[string]string{"a": "b"}}, spec{Engine: "oracle"}},
		{"map", "self.all(k, k.size() < 4)", Object, map[string]int{"abc": 1}, map[string]int{"abcd": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCompile(t, Spec{Rule: tc.rule, Message: "rejected"}, tc.self)
			if errs := r.Validate(ctx, create, path, tc.ok, nil); len(errs) != 0 {
				t.Errorf("%v rejected: %s", tc.ok, render(errs))
			}
			errs := r.Validate(ctx, create, path, tc.bad, nil)
			if len(errs) != 1 || errs[0].Type != field.ErrorTypeInvalid || errs[0].Detail != "rejected" || errs[0].Field != "spec.engine" {
				t.Errorf("%v: got %q, want one Invalid spec.engine: rejected", tc.bad, render(errs))
			}
		})
	}
}

type engine string

func ptr[T any](v T) *T { return &v }

func TestOldSelf(t *testing.T) {
	immutable := mustCompile(t, Spec{Rule: "self == oldSelf", Message: "engine is immutable"}, String)
	if !immutable.UsesOldSelf() {
		t.Error("UsesOldSelf() = false for self == oldSelf")
	}
	if errs := immutable.Validate(ctx, create, path, "postgres", nil); len(errs) != 0 {
		t.Errorf("a transition rule ran on create: %s", render(errs))
	}
	if errs := immutable.Validate(ctx, create, path, "postgres", "mysql"); len(errs) != 0 {
		t.Errorf("a transition rule saw an old value on create: %s", render(errs))
	}
	if errs := immutable.Validate(ctx, update, path, "postgres", nil); len(errs) != 0 {
		t.Errorf("a transition rule ran on an update without an old value: %s", render(errs))
	}
	if errs := immutable.Validate(ctx, update, path, "postgres", "postgres"); len(errs) != 0 {
		t.Errorf("an unchanged value was rejected: %s", render(errs))
	}
	want := `FieldValueInvalid spec.engine: engine is immutable`
	if got := render(immutable.Validate(ctx, update, path, "mysql", "postgres")); got != want {
		t.Errorf("changed engine: got %q, want %q", got, want)
	}

	// With optionalOldSelf the rule runs on create too, with oldSelf optional.none().
	setOnce := mustCompile(t, Spec{Rule: "!oldSelf.hasValue() || oldSelf.value() == self", Message: "set once", OptionalOldSelf: true}, String)
	if errs := setOnce.Validate(ctx, create, path, "postgres", nil); len(errs) != 0 {
		t.Errorf("optionalOldSelf on create: %s", render(errs))
	}
	if got := render(setOnce.Validate(ctx, update, path, "mysql", "postgres")); got != "FieldValueInvalid spec.engine: set once" {
		t.Errorf("optionalOldSelf on a change: %q", got)
	}
	if UsesOldSelf := mustCompile(t, Spec{Rule: "self != ''"}, String).UsesOldSelf(); UsesOldSelf {
		t.Error("UsesOldSelf() = true for a rule without oldSelf")
	}
}

func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"default message", Spec{Rule: "self.size() < 3"}, "FieldValueInvalid spec.engine: failed rule: self.size() < 3"},
		{"message", Spec{Rule: "self.size() < 3", Message: "too long"}, "FieldValueInvalid spec.engine: too long"},
		{"message expression", Spec{Rule: "self.size() < 3", Message: "too long", MessageExpression: "'engine ' + self + ' is too long'"},
			"FieldValueInvalid spec.engine: engine mysql is too long"},
		{"empty message expression falls back", Spec{Rule: "self.size() < 3", Message: "too long", MessageExpression: "''"},
			"FieldValueInvalid spec.engine: too long"},
		{"forbidden", Spec{Rule: "self.size() < 3", Message: "no", Reason: ReasonForbidden}, "FieldValueForbidden spec.engine: no"},
		{"required", Spec{Rule: "self.size() < 3", Message: "no", Reason: ReasonRequired}, "FieldValueRequired spec.engine: no"},
		{"duplicate", Spec{Rule: "self.size() < 3", Reason: ReasonDuplicate}, "FieldValueDuplicate spec.engine: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(mustCompile(t, tc.spec, String).Validate(ctx, create, path, "mysql", nil)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFieldPath(t *testing.T) {
	r := mustCompile(t, Spec{Rule: "!has(self.discount) || self.tier != 'free'", Message: "free shops have no discount", FieldPath: ".discount"}, Object)
	got := render(r.Validate(ctx, create, field.NewPath("spec"), map[string]any{"tier": "free", "discount": 5}, nil))
	if want := "FieldValueInvalid spec.discount: free shops have no discount"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEvaluationErrors(t *testing.T) {
	missing := mustCompile(t, Spec{Rule: "self.replicas > 0"}, Object)
	errs := missing.Validate(ctx, create, path, map[string]any{"engine": "pg"}, nil)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeInvalid || errs[0].BadValue != "object" ||
		!strings.Contains(errs[0].Detail, "no such key: replicas evaluating rule: self.replicas > 0") {
		t.Errorf("missing key: got %#v", errs)
	}

	expensive, err := CompileWithCostLimit(Spec{Rule: "self.all(x, self.all(y, x != y || x == y))"}, List, 100)
	if err != nil {
		t.Fatal(err)
	}
	items := make([]int, 50)
	errs = expensive.Validate(ctx, create, path, items, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "call cost exceeds limit for rule") {
		t.Errorf("cost limit: got %q", render(errs))
	}

	var unset *Rule
	if errs := unset.Validate(ctx, create, path, "pg", nil); len(errs) != 1 || errs[0].Type != field.ErrorTypeInternal {
		t.Errorf("nil rule: got %q, want one internal error", render(errs))
	}
}

func TestPresent(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  any
		want bool
	}{
		{"nil pointer to value", Present[string](nil, false), false},
		{"empty string, omitempty", Present(ptr(""), true), false},
		{"empty string, no omitempty", Present(ptr(""), false), true},
		{"zero int, omitempty", Present(ptr(0), true), false},
		{"nil *int", Present(ptr[*int](nil), false), false},
		{"nil slice", Present(ptr[[]string](nil), false), false},
		{"empty slice, omitempty", Present(ptr([]string{}), true), false},
		{"empty slice, no omitempty", Present(ptr([]string{}), false), true},
		{"nil map", Present(ptr[map[string]string](nil), false), false},
		{"value", Present(ptr("pg"), true), true},
	} {
		if (tc.got != nil) != tc.want {
			t.Errorf("%s: Present = %#v, want present=%v", tc.name, tc.got, tc.want)
		}
	}
	// An absent subject is not validated.
	r := mustCompile(t, Spec{Rule: "false"}, String)
	if errs := r.Validate(ctx, create, path, Present(ptr(""), true), nil); len(errs) != 0 {
		t.Errorf("an absent value was validated: %s", render(errs))
	}
}

// TestCompileOnceValidateConcurrently compiles a rule once and evaluates it from many
// goroutines at once, as every request of a server does (run with -race).
func TestCompileOnceValidateConcurrently(t *testing.T) {
	r := mustCompile(t, Spec{Rule: "self == oldSelf", Message: "engine is immutable"}, String)
	var wg sync.WaitGroup
	failures := make(chan string, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			old, self := "postgres", "postgres"
			if i%2 == 1 {
				self = "mysql"
			}
			errs := r.Validate(ctx, update, path, self, old)
			if (len(errs) == 1) != (i%2 == 1) {
				failures <- render(errs)
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("unexpected result: %q", f)
	}
}

// BenchmarkValidate measures one evaluation of a compiled transition rule: the per-request
// cost of an XValidation marker.
func BenchmarkValidate(b *testing.B) {
	r, err := Compile(Spec{Rule: "self == oldSelf", Message: "engine is immutable"}, String)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r.Validate(ctx, update, path, "postgres", "postgres")
	}
}

// BenchmarkCompile measures compiling that rule, which generated code does once per process.
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := Compile(Spec{Rule: "self == oldSelf", Message: "engine is immutable"}, String); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDeferredRule checks that a deferred rule compiles at the first Validate that evaluates
// it, not at Defer nor for a create its transition rule does not check, then validates as
// the compiled rule does, and that one that does not compile reports an internal error at
// the field.
func TestDeferredRule(t *testing.T) {
	spec := Spec{Rule: "self == oldSelf", Message: "engine is immutable"}
	if n := testing.AllocsPerRun(10, func() { Defer(spec, String, true) }); n > 10 {
		t.Errorf("Defer made %v allocations, want a few: it compiled", n)
	}
	compiled := 0
	d := Defer(spec, String, true)
	d.compiled = sync.OnceValues(func() (*Rule, error) {
		compiled++
		return Compile(spec, String)
	})
	if errs := d.Validate(ctx, create, path, "postgres", nil); len(errs) != 0 || compiled != 0 {
		t.Errorf("create: %v, compiled %d times; want no error and no compilation (a transition rule)", errs, compiled)
	}
	if errs := d.Validate(ctx, update, path, nil, "postgres"); len(errs) != 0 || compiled != 0 {
		t.Errorf("absent value: %v, compiled %d times; want no error and no compilation", errs, compiled)
	}
	if errs := d.Validate(ctx, update, path, "postgres", "postgres"); len(errs) != 0 {
		t.Errorf("unchanged value: %v, want no error", errs)
	}
	errs := d.Validate(ctx, update, path, "mysql", "postgres")
	if len(errs) != 1 || errs[0].Detail != "engine is immutable" || errs[0].Field != "spec.engine" {
		t.Errorf("changed value: %v, want one error at spec.engine: engine is immutable", errs)
	}
	if compiled != 1 {
		t.Errorf("compiled %d times, want once", compiled)
	}
	if errs := Defer(Spec{Rule: "self.size() > 3"}, String, false).Validate(ctx, create, path, "ab", nil); len(errs) != 1 || errs[0].Type != field.ErrorTypeInvalid {
		t.Errorf("a rule checked on create: %v, want the compiled rule's one Invalid error", errs)
	}
	if errs := Defer(Spec{Rule: "oldSelf.hasValue()", OptionalOldSelf: true}, String, true).Validate(ctx, create, path, "a", nil); len(errs) != 1 {
		t.Errorf("an optional-oldSelf rule on create: %v, want it to run and fail once", errs)
	}
	bad := Defer(Spec{Rule: "self +"}, String, false)
	for range 2 {
		errs := bad.Validate(ctx, create, path, "a", nil)
		if len(errs) != 1 || errs[0].Type != field.ErrorTypeInternal || errs[0].Field != "spec.engine" ||
			!strings.Contains(errs[0].Detail, "cannot compile rule") {
			t.Errorf("a rule that does not compile: %v, want one internal error at spec.engine", errs)
		}
	}
}
