package cel

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/cel-go/cel"
)

// Spec is one validation rule as written in its marker, as apiextensions' ValidationRule.
type Spec struct {
	// Rule is the CEL expression; it must evaluate to a bool.
	Rule string
	// Message is the error detail when Rule is false; "" means "failed rule: <Rule>".
	Message string
	// MessageExpression is a CEL expression over self (and oldSelf) yielding the detail
	// instead; when it fails or yields "" the Message (or its default) is used.
	MessageExpression string
	// Reason is the field.ErrorType name of the error reported when Rule is false:
	// ReasonInvalid (also when ""), ReasonForbidden, ReasonRequired or ReasonDuplicate.
	Reason string
	// FieldPath is a relative JSON path below the rule's field (".spec.engine") the error
	// is reported at; "" reports it at the field.
	FieldPath string
	// OptionalOldSelf makes a transition rule run on create too, with oldSelf an optional
	// value (optional.none() when there is no old value).
	OptionalOldSelf bool
}

// The reasons a Spec may name, as apiextensions' FieldValueErrorReason.
const (
	ReasonInvalid   = "FieldValueInvalid"
	ReasonForbidden = "FieldValueForbidden"
	ReasonRequired  = "FieldValueRequired"
	ReasonDuplicate = "FieldValueDuplicate"
)

// PerCallLimit is the cost limit of one evaluation of a rule, in CEL cost units, as
// k8s.io/apiserver/pkg/apis/cel.PerCallLimit: about a million simple operations.
const PerCallLimit uint64 = 1000000

// The names a rule refers to its subject by.
const (
	selfVar    = "self"
	oldSelfVar = "oldSelf"
)

// Rule is a compiled validation rule. It is safe for concurrent use: compile it once and
// evaluate it for every request.
type Rule struct {
	spec        Spec
	self        Type
	program     cel.Program
	message     cel.Program // nil without a MessageExpression
	usesOldSelf bool
	fieldPath   string // FieldPath without its leading dot
}

// Compile compiles spec for a subject of shape self with the per-call cost limit
// PerCallLimit. Errors: "cannot compile rule ...: <cel-go's message>" for a rule or
// message expression that does not parse or type-check, does not yield a bool (a string
// for the message expression), or for an unknown reason or malformed field path.
func Compile(spec Spec, self Type) (*Rule, error) {
	return CompileWithCostLimit(spec, self, PerCallLimit)
}

// CompileWithCostLimit is Compile with a per-call cost limit in CEL cost units; an
// evaluation that exceeds it is reported as an Invalid error by Validate.
func CompileWithCostLimit(spec Spec, self Type, costLimit uint64) (*Rule, error) {
	r, err := compile(spec, self, costLimit)
	if err != nil {
		return nil, fmt.Errorf("cannot compile rule %q: %w", spec.Rule, err)
	}
	return r, nil
}

func compile(spec Spec, self Type, costLimit uint64) (*Rule, error) {
	if strings.TrimSpace(spec.Rule) == "" {
		return nil, errors.New("the rule is empty")
	}
	if err := checkReason(spec.Reason); err != nil {
		return nil, err
	}
	fieldPath, err := normalizeFieldPath(spec.FieldPath)
	if err != nil {
		return nil, err
	}
	env, err := ruleEnv(self, spec.OptionalOldSelf)
	if err != nil {
		return nil, err
	}
	ast, err := check(env, spec.Rule, cel.BoolType)
	if err != nil {
		return nil, err
	}
	opts := append(ProgramOptions(), cel.CostLimit(costLimit))
	r := &Rule{spec: spec, self: self, fieldPath: fieldPath, usesOldSelf: refersTo(ast, oldSelfVar)}
	if r.program, err = env.Program(ast, opts...); err != nil {
		return nil, err
	}
	if spec.MessageExpression != "" {
		msgAST, err := check(env, spec.MessageExpression, cel.StringType)
		if err != nil {
			return nil, fmt.Errorf("messageExpression: %w", err)
		}
		if r.message, err = env.Program(msgAST, opts...); err != nil {
			return nil, fmt.Errorf("messageExpression: %w", err)
		}
	}
	return r, nil
}

// check parses and type-checks expr, which must yield want.
func check(env *cel.Env, expr string, want *cel.Type) (*cel.Ast, error) {
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	if out := ast.OutputType(); !out.IsExactType(want) && !out.IsExactType(cel.DynType) {
		return nil, fmt.Errorf("the expression must evaluate to %s, not %s", want, out)
	}
	return ast, nil
}

// refersTo reports whether the checked ast refers to the variable name.
func refersTo(ast *cel.Ast, name string) bool {
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == name {
			return true
		}
	}
	return false
}

func checkReason(reason string) error {
	switch reason {
	case "", ReasonInvalid, ReasonForbidden, ReasonRequired, ReasonDuplicate:
		return nil
	}
	return fmt.Errorf("reason %q is not one of %s, %s, %s, %s", reason, ReasonInvalid, ReasonForbidden, ReasonRequired, ReasonDuplicate)
}

// fieldPathSyntax accepts relative JSON paths of names and bracketed keys: .a.b, .a['b.c'].
var fieldPathSyntax = regexp.MustCompile(`^(\.[A-Za-z_$][A-Za-z0-9_$-]*|\['[^']*'\])+$`)

// normalizeFieldPath checks a rule's fieldPath and returns it without its leading dot, as
// apiextensions' NormalizedRuleFieldPath.
func normalizeFieldPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	if !fieldPathSyntax.MatchString(p) {
		return "", fmt.Errorf("fieldPath %q is not a relative JSON path such as .spec.name", p)
	}
	return strings.TrimPrefix(p, "."), nil
}

// ruleEnv is baseEnv with self and oldSelf declared for a subject of shape self.
func ruleEnv(self Type, optionalOldSelf bool) (*cel.Env, error) {
	base, err := baseEnv()
	if err != nil {
		return nil, err
	}
	oldType := self.celType()
	if optionalOldSelf {
		oldType = cel.OptionalType(oldType)
	}
	return base.Extend(cel.Variable(selfVar, self.celType()), cel.Variable(oldSelfVar, oldType))
}
