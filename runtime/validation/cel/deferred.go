package cel

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DeferredRule is a rule compiled at its first use rather than where it is declared: the
// rules of generated validation code, which the generator has already compiled once (so they
// compile), are declared as package variables that compile on the first object they check.
// A server that is never written to, or only with creates its transition rules do not check,
// never builds the CEL environment nor compiles a rule (about 0.4 MiB of heap kept for the
// process's life, and the parser's and checker's code paged in); the first write that runs a
// rule pays for its compilation instead (a few milliseconds, the environment, shared by every
// rule, included). Safe for concurrent use.
type DeferredRule struct {
	spec        Spec
	usesOldSelf bool
	compiled    func() (*Rule, error)
}

// Defer returns the rule Compile(spec, self) compiles, compiled at the first call of its
// Validate that evaluates it, once. usesOldSelf must be what the compiled rule's UsesOldSelf
// reports (the generator compiles the rule to know it): a transition rule is not compiled
// for an object it does not check (a create, or an update without the old value).
func Defer(spec Spec, self Type, usesOldSelf bool) *DeferredRule {
	return &DeferredRule{spec: spec, usesOldSelf: usesOldSelf,
		compiled: sync.OnceValues(func() (*Rule, error) { return Compile(spec, self) })}
}

// Validate evaluates the rule as Rule.Validate does, compiling it first at the first call
// that evaluates it: one where self is present and, for a transition rule without
// OptionalOldSelf, op is an update with oldSelf present. A rule that does not compile yields
// one internal error at fldPath, with Compile's error, at every such call.
func (d *DeferredRule) Validate(ctx context.Context, op operation.Operation, fldPath *field.Path, self, oldSelf any) field.ErrorList {
	if op.Type != operation.Update {
		oldSelf = nil
	}
	if !runs(d.spec, d.usesOldSelf, self, oldSelf) {
		return nil // not compiled for an object the rule does not check
	}
	r, err := d.compiled()
	if err != nil {
		return field.ErrorList{field.InternalError(fldPath, err)}
	}
	return r.Validate(ctx, op, fldPath, self, oldSelf)
}
