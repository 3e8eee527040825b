package policy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/cel-go/common/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	admissioncel "github.com/apigen-dev/apigen/runtime/admission/cel"
	"github.com/apigen-dev/apigen/runtime/admission/matching"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/warning"
)

// maxMessageBytes is the longest message a messageExpression may yield, as kube's
// MaxEvaluatedMessageExpressionSizeBytes.
const maxMessageBytes = 5 * 1024

// denial is a failed validation (or an error under failurePolicy Fail) of a policy and
// binding (nil for a policy's own configuration error).
type denial struct {
	policy  string
	binding string
	reason  metav1.StatusReason
	message string
}

// Validate applies the bound policies that select a, as kube's validating policy
// dispatcher; see the package doc for what it refuses and how.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	hooks, err := p.hooksFor(ctx, a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	var denials []denial
	for _, h := range hooks {
		d, err := p.applyPolicy(ctx, h, a)
		if err != nil {
			return err
		}
		denials = append(denials, d...)
	}
	if len(denials) == 0 {
		return nil
	}
	return refusal(a, denials[0])
}

// applyPolicy applies one policy and its bindings to a and returns the denials. Errors: the
// request's namespace cannot be read.
func (p *Plugin) applyPolicy(ctx context.Context, h *hook, a *admission.Attributes) ([]denial, error) {
	var denials []denial
	configError := func(err error, binding string) {
		if !h.failClosed() {
			return
		}
		what := "policy"
		if binding != "" {
			what = "binding"
		}
		denials = append(denials, denial{policy: h.policy.Name, binding: binding, message: fmt.Sprintf("failed to configure %s: %v", what, err)})
	}
	m, ok, err := matching.MatchResources(ctx, h.policy.Spec.MatchConstraints, a, p.resources, p.namespaces.Labels)
	switch {
	case err != nil:
		configError(err, "")
		return denials, nil
	case !ok:
		return nil, nil
	case h.compileErr != nil:
		configError(h.compileErr, "")
		return denials, nil
	}
	for _, b := range h.bindings {
		if mr := b.Spec.MatchResources; mr != nil {
			if _, ok, err := matching.MatchResources(ctx, mr, a, p.resources, p.namespaces.Labels); err != nil {
				configError(err, b.Name)
				continue
			} else if !ok {
				continue
			}
		}
		params, err := p.collectParams(ctx, h.compiled, b, a)
		if err != nil {
			configError(err, b.Name)
			continue
		}
		in, err := p.input(ctx, a, m)
		if err != nil {
			return nil, err
		}
		for _, param := range params {
			in.Params = param
			for _, f := range p.evaluate(ctx, h.compiled, in) {
				denials = append(denials, p.act(ctx, h, b, f)...)
			}
		}
	}
	return denials, nil
}

// act applies a binding's validationActions to a failure: Deny returns it, Warn adds it to
// the response's warnings, Audit is not recorded (see the package doc).
func (p *Plugin) act(ctx context.Context, h *hook, b *admregv1.ValidatingAdmissionPolicyBinding, f failure) []denial {
	if f.isError {
		return []denial{{policy: h.policy.Name, binding: b.Name, message: f.message}} // under Fail; Ignore dropped it
	}
	var out []denial
	for _, action := range b.Spec.ValidationActions {
		switch action {
		case admregv1.Deny:
			out = append(out, denial{policy: h.policy.Name, binding: b.Name, reason: f.reason, message: f.message})
		case admregv1.Warn:
			warning.AddWarning(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", h.policy.Name, b.Name, f.message))
		}
	}
	return out
}

// input is what the policy's expressions see of a, matched as m (parameters are set per
// parameter object). Errors: the namespace cannot be read, an object cannot be converted.
func (p *Plugin) input(ctx context.Context, a *admission.Attributes, m matching.Match) (*admissioncel.Input, error) {
	in := &admissioncel.Input{User: admissioncel.UserInfo(a.User), Authorizer: authorization.CELAuthorizer(p.authz), Resource: admissioncel.Resource(a)}
	var err error
	if in.Object, err = p.versioned(a.Object, m.Kind); err != nil {
		return nil, err
	}
	if in.OldObject, err = p.versioned(a.OldObject, m.Kind); err != nil {
		return nil, err
	}
	req, err := admissioncel.RequestValue(admission.NewAdmissionRequest(a, "", m.Resource, m.Kind))
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	in.Request = req
	if a.Namespace != "" && !matching.IsNamespace(a) {
		ns, err := p.namespaces.Get(ctx, a.Namespace)
		if err != nil {
			return nil, err
		}
		if ns != nil {
			if in.Namespace, err = p.versioned(ns, schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}); err != nil {
				return nil, err
			}
		}
	}
	return in, nil
}

// versioned returns obj (nil for none) as gvk's JSON. Errors: 500 when it cannot be
// converted.
func (p *Plugin) versioned(obj runtime.Object, gvk schema.GroupVersionKind) (map[string]any, error) {
	m, err := p.converter.VersionedMap(obj, gvk)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return m, nil
}

// refusal is the error of a denial, as kube's: Forbidden's message naming the object, with
// the denial's reason (Invalid when none) and its code, and the message as a cause.
func refusal(a *admission.Attributes, d denial) error {
	message := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	if d.binding == "" {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	}
	err := apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, errors.New(message))
	reason := d.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	err.ErrStatus.Reason, err.ErrStatus.Code = reason, codeOf(reason)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: message})
	return err
}

// codeOf is the HTTP code of a validation's reason, as kube's reasonToCode.
func codeOf(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusUnprocessableEntity
}

// failure is a failed validation, or (isError) an expression that could not be evaluated
// under failurePolicy Fail.
type failure struct {
	isError bool
	reason  metav1.StatusReason
	message string
}

// evaluate runs c's match conditions, then its validations and audit annotations, on in, as
// kube's validator, and returns the failures.
func (p *Plugin) evaluate(ctx context.Context, c *compiled, in *admissioncel.Input) []failure {
	var out []failure
	fail := func(err error) {
		if c.failClosed() {
			out = append(out, failure{isError: true, message: err.Error()})
		}
	}
	if matches, err := p.matchConditions(ctx, c, in); err != nil {
		fail(err)
		return out
	} else if !matches {
		return nil
	}
	act := c.compiler.NewActivation(ctx, in, admissioncel.RuntimeCELCostBudget)
	for i, v := range c.validations {
		if v.err != nil {
			fail(compileError(v.err))
			continue
		}
		res, err := act.Eval(v.expr)
		if err != nil {
			fail(err)
			if e, ok := err.(*admissioncel.EvalError); ok && e.OutOfBudget {
				return out
			}
			continue
		}
		if res != types.True {
			out = append(out, failure{reason: reasonOf(c.policy.Spec.Validations[i]), message: message(act, c, i)})
		}
	}
	for _, an := range c.audits {
		if err := auditValue(act, an); err != nil {
			if _, isType := err.(wrongType); isType || c.failClosed() {
				out = append(out, failure{isError: true, message: err.Error()})
			}
		}
	}
	return out
}

// matchConditions reports whether c's match conditions all hold, as kube's matcher: any false
// is a no; otherwise an evaluation error is an error.
func (p *Plugin) matchConditions(ctx context.Context, c *compiled, in *admissioncel.Input) (bool, error) {
	if len(c.conditions) == 0 {
		return true, nil
	}
	act := c.compiler.NewActivation(ctx, in, admissioncel.RuntimeCELCostBudgetMatchConditions)
	var errs []string
	for _, mc := range c.conditions {
		if mc.err != nil {
			errs = append(errs, compileError(mc.err).Error())
			continue
		}
		res, err := act.Eval(mc.expr)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if res == types.False {
			return false, nil
		}
	}
	if len(errs) > 0 {
		return false, errors.New(strings.Join(errs, ", "))
	}
	return true, nil
}

func reasonOf(v admregv1.Validation) metav1.StatusReason {
	if v.Reason == nil {
		return metav1.StatusReasonInvalid
	}
	return *v.Reason
}

// message is validation i's failure message, as kube's: its messageExpression's result when
// it yields a non-empty single-line string of at most 5 KiB, else its message, else "failed
// expression: <expression>".
func message(act *admissioncel.Activation, c *compiled, i int) string {
	if m := c.messages[i]; m.expr != nil {
		if res, err := act.Eval(m.expr); err == nil {
			if s, ok := res.Value().(string); ok {
				if s = strings.TrimSpace(s); s != "" && len(s) <= maxMessageBytes && !strings.Contains(s, "\n") {
					return s
				}
			}
		}
	}
	v := c.policy.Spec.Validations[i]
	if msg := strings.TrimSpace(v.Message); msg != "" {
		return msg
	}
	return "failed expression: " + strings.TrimSpace(v.Expression)
}

// wrongType is an audit annotation's value of another type than string or null, an error
// whatever the failurePolicy, as kube's.
type wrongType struct{ error }

// auditValue evaluates an audit annotation. Its value is not recorded (see the package doc);
// errors: the expression failed, or yielded a wrong type.
func auditValue(act *admissioncel.Activation, an expression) error {
	if an.err != nil {
		return compileError(an.err)
	}
	res, err := act.Eval(an.expr)
	if err != nil {
		return err
	}
	if res.Type() != types.StringType && res.Type() != types.NullType {
		return wrongType{fmt.Errorf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.", an.expr.Source, res.Type())}
	}
	return nil
}
