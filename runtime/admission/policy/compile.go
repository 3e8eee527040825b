package policy

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/runtime/schema"

	admissioncel "github.com/apigen-dev/apigen/runtime/admission/cel"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

// compiled is a policy with its expressions compiled. Expressions that did not compile are
// kept with their error, which fails evaluation as kube's "compilation error".
type compiled struct {
	policy     *admregv1.ValidatingAdmissionPolicy
	compiler   *admissioncel.Compiler
	compileErr error // the compiler could not be built
	paramKind  schema.GroupVersionKind
	conditions []expression
	// validations and messages are in step: messages[i] is validations[i]'s
	// messageExpression (expr nil when there is none).
	validations []expression
	messages    []expression
	audits      []expression
}

// expression is a compiled expression and what it is; expr is nil when err is set (or
// there is no expression).
type expression struct {
	name string // a match condition's name, an audit annotation's key
	expr *admissioncel.Expression
	err  error
}

// failClosed reports whether errors refuse requests (failurePolicy Fail, the default).
func (c *compiled) failClosed() bool {
	return c.policy.Spec.FailurePolicy == nil || *c.policy.Spec.FailurePolicy != admregv1.Ignore
}

// compilePolicy compiles every expression of p: variables first (so the others can use them),
// then match conditions, validations and their message expressions, audit annotations.
func compilePolicy(p *admregv1.ValidatingAdmissionPolicy) *compiled {
	c := &compiled{policy: p}
	opts := admissioncel.Options{HasAuthorizer: true}
	if pk := p.Spec.ParamKind; pk != nil {
		opts.HasParams = true
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			c.paramKind = gv.WithKind(pk.Kind)
		}
	}
	if c.compiler, c.compileErr = admissioncel.NewCompiler(opts); c.compileErr != nil {
		return c
	}
	for _, v := range p.Spec.Variables {
		_ = c.compiler.AddVariable(v.Name, v.Expression) // a broken variable fails where it is used
	}
	compile := func(name, source string, want ...*cel.Type) expression {
		e, err := c.compiler.Compile(source, want...)
		return expression{name: name, expr: e, err: err}
	}
	for _, mc := range p.Spec.MatchConditions {
		c.conditions = append(c.conditions, compile(mc.Name, mc.Expression, cel.BoolType))
	}
	for _, v := range p.Spec.Validations {
		c.validations = append(c.validations, compile("", v.Expression, cel.BoolType))
		msg := expression{}
		if v.MessageExpression != "" {
			msg = compile("", v.MessageExpression, cel.StringType)
		}
		c.messages = append(c.messages, msg)
	}
	for _, a := range p.Spec.AuditAnnotations {
		c.audits = append(c.audits, compile(a.Key, a.ValueExpression, cel.StringType, cel.NullType))
	}
	return c
}

// compileError is how an expression that did not compile fails at evaluation, as kube's.
func compileError(err error) error {
	return fmt.Errorf("compilation error: %w", err)
}
