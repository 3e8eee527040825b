package cel

import (
	"context"
	"fmt"
	"math"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/lazy"
	"k8s.io/apiserver/pkg/cel/library"
)

// Input is what the expressions evaluated for one request see. Objects are in their JSON
// shape (map[string]any with int64 integers, as sigs.k8s.io/json decodes them); nil is null.
type Input struct {
	Object, OldObject map[string]any
	// Params is the parameter object (a policy with a paramKind), or nil.
	Params map[string]any
	// Request is the AdmissionRequest as JSON, without uid, object and oldObject.
	Request map[string]any
	// Namespace is the object's Namespace as JSON, or nil (cluster-scoped objects).
	Namespace map[string]any
	// Authorizer, when not nil, answers authorizer checks for User; Resource is the
	// request's resource, for authorizer.requestResource.
	Authorizer authorizer.UnconditionalAuthorizer
	User       user.Info
	Resource   library.Resource
}

// EvalError is an expression that failed at evaluation: Detail is kube's wording.
// OutOfBudget is set when the request's cost budget ran out (no further expression may run).
type EvalError struct {
	Detail      string
	OutOfBudget bool
}

// Error returns Detail.
func (e *EvalError) Error() string { return e.Detail }

// errOutOfBudget is kube's message for a request that exhausted its cost budget.
const errOutOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run"

// Activation binds an Input for evaluating one compiler's expressions for one request, with
// a cost budget they share. Not safe for concurrent use.
type Activation struct {
	ctx       context.Context
	values    map[string]any
	remaining int64
	varCost   int64
}

var _ interpreter.Activation = (*Activation)(nil)

// NewActivation binds in for the expressions of c, with budget CEL cost units for all of
// them (RuntimeCELCostBudget, RuntimeCELCostBudgetMatchConditions).
func (c *Compiler) NewActivation(ctx context.Context, in *Input, budget int64) *Activation {
	a := &Activation{ctx: ctx, remaining: budget, values: map[string]any{
		ObjectVar:    nullable(in.Object),
		OldObjectVar: nullable(in.OldObject),
		ParamsVar:    nullable(in.Params),
		RequestVar:   nullable(in.Request),
		NamespaceVar: nullable(in.Namespace),
	}}
	if in.Authorizer != nil {
		a.values[AuthorizerVar] = library.NewAuthorizerVal(in.User, in.Authorizer)
		if in.Resource != nil {
			a.values[RequestResourceAuthorizerVar] = library.NewResourceAuthorizerVal(in.User, in.Authorizer, in.Resource)
		}
	}
	vars := lazy.NewMapValue(c.varsType)
	for _, v := range c.variables {
		v := v
		vars.Append(v.name, func(*lazy.MapValue) ref.Val { return a.variable(v) })
	}
	a.values[VariablesVar] = vars
	return a
}

// nullable returns m, or CEL's null for a nil map.
func nullable(m map[string]any) any {
	if m == nil {
		return types.NullValue
	}
	return m
}

// ResolveName implements interpreter.Activation.
func (a *Activation) ResolveName(name string) (any, bool) {
	v, ok := a.values[name]
	return v, ok
}

// Parent implements interpreter.Activation: there is none.
func (a *Activation) Parent() interpreter.Activation { return nil }

// variable evaluates a policy variable when an expression first reads it, charging its cost
// to the budget, as kube's composition.
func (a *Activation) variable(v *variable) ref.Val {
	if v.err != nil {
		return types.NewErr("composited variable %q fails to compile: %v", v.name, v.err)
	}
	out, details, err := v.expr.program.ContextEval(a.ctx, a)
	if details != nil && details.ActualCost() != nil {
		a.varCost += clampCost(*details.ActualCost())
	}
	if err != nil {
		return types.NewErr("composited variable %q fails to evaluate: %v", v.name, err)
	}
	return out
}

func clampCost(c uint64) int64 {
	if c > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(c)
}

// Eval evaluates e, charging its cost (and that of the variables it read) to the budget, as
// kube's evaluationActivation.Evaluate. Errors: an *EvalError, "expression '<e>' resulted in
// error: <cel-go's error>", or the exhausted budget (OutOfBudget).
func (a *Activation) Eval(e *Expression) (ref.Val, error) {
	out, details, err := e.program.ContextEval(a.ctx, a)
	cost := a.varCost
	a.varCost = 0
	if details != nil && details.ActualCost() != nil {
		cost += clampCost(*details.ActualCost())
	}
	if cost > a.remaining {
		a.remaining = -1
		return nil, &EvalError{Detail: errOutOfBudget, OutOfBudget: true}
	}
	a.remaining -= cost
	if err != nil {
		return nil, &EvalError{Detail: fmt.Sprintf("expression '%v' resulted in error: %v", e.Source, err)}
	}
	return out, nil
}
