package policy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/admissiontest"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
	"github.com/apigen-dev/apigen/runtime/warning"
)

// widgetPolicy is a policy on widgets (any version) with validations.
func widgetPolicy(name string, paramKind *admregv1.ParamKind, vars []admregv1.Variable, validations ...admregv1.Validation) *admregv1.ValidatingAdmissionPolicy {
	rules := []admregv1.NamedRuleWithOperations{{RuleWithOperations: admissiontest.WidgetRule("*")[0]}}
	return &admregv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admregv1.ValidatingAdmissionPolicySpec{
		ParamKind: paramKind, MatchConstraints: &admregv1.MatchResources{ResourceRules: rules}, Variables: vars, Validations: validations}}
}

func binding(name, policy string, ref *admregv1.ParamRef, actions ...admregv1.ValidationAction) *admregv1.ValidatingAdmissionPolicyBinding {
	return &admregv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admregv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ParamRef: ref, ValidationActions: actions}}
}

func widget(ns, name, color string, size int32) *testapi.Widget {
	return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: testapi.WidgetSpec{Color: color, Size: size}}
}

// started returns the plugin initialised over e, and a function waiting until it sees n bound
// policies.
func started(t *testing.T, e *admissiontest.Env) (*Plugin, func(n int)) {
	p, _ := New()
	e.Start(p)
	return p.(*Plugin), func(n int) {
		admissiontest.WaitFor(t, "the bound policies", func() bool {
			return p.(*Plugin).policies.HasSynced() && p.(*Plugin).bindings.HasSynced() && len(p.(*Plugin).list()) == n
		})
	}
}

// TestDeny refuses a widget by a CEL validation with kube's message, reason and code; a
// policy without binding does nothing.
func TestDeny(t *testing.T) {
	e := admissiontest.New(t)
	p, waitFor := started(t, e)
	e.Namespace(t, "team-a", nil)
	e.Create(t, "validatingadmissionpolicies", widgetPolicy("max-size", nil,
		[]admregv1.Variable{{Name: "size", Expression: "object.spec.size"}},
		admregv1.Validation{Expression: "variables.size <= 10", MessageExpression: "'size ' + string(variables.size) + ' exceeds 10'"},
		admregv1.Validation{Expression: "object.spec.color != 'black'", Reason: admissiontest.Ptr(metav1.StatusReasonForbidden), Message: "no black widgets"}))
	e.Create(t, "validatingadmissionpolicies", widgetPolicy("unbound", nil, nil, admregv1.Validation{Expression: "false"}))
	e.Create(t, "validatingadmissionpolicybindings", binding("max-size-everywhere", "max-size", nil, admregv1.Deny))
	waitFor(1)

	err := p.Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", widget("team-a", "big", "red", 12), nil))
	status, ok := err.(*apierrors.StatusError)
	want := `widgets.test.apigen.dev "big" is forbidden: ValidatingAdmissionPolicy 'max-size' with binding 'max-size-everywhere' denied request: size 12 exceeds 10`
	if !ok || status.ErrStatus.Code != http.StatusUnprocessableEntity || status.ErrStatus.Reason != metav1.StatusReasonInvalid || status.ErrStatus.Message != want {
		t.Fatalf("a big widget: %#v", err)
	}
	err = p.Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Update, "team-a", widget("team-a", "dark", "black", 1), widget("team-a", "dark", "red", 1)))
	if !apierrors.IsForbidden(err) || !strings.HasSuffix(err.Error(), "denied request: no black widgets") {
		t.Errorf("reason Forbidden: %v", err)
	}
	if err := p.Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", widget("team-a", "small", "red", 3), nil)); err != nil {
		t.Errorf("a small widget: %v", err)
	}
}

// TestWarnAndFailurePolicy: the Warn action adds kube's warning and admits; an expression
// that cannot be evaluated refuses under Fail and is ignored under Ignore.
func TestWarnAndFailurePolicy(t *testing.T) {
	e := admissiontest.New(t)
	p, waitFor := started(t, e)
	e.Namespace(t, "team-a", nil)
	e.Create(t, "validatingadmissionpolicies", widgetPolicy("colors", nil, nil,
		admregv1.Validation{Expression: "object.spec.color in ['red', 'blue']", Message: "unusual color"}))
	e.Create(t, "validatingadmissionpolicybindings", binding("colors-warn", "colors", nil, admregv1.Warn, admregv1.Audit))
	broken := widgetPolicy("broken", nil, nil, admregv1.Validation{Expression: "object.spec.missing == 1"})
	e.Create(t, "validatingadmissionpolicies", broken)
	e.Create(t, "validatingadmissionpolicybindings", binding("broken-deny", "broken", nil, admregv1.Deny))
	waitFor(2)

	rec := httptest.NewRecorder()
	ctx := warning.WithRecorder(e.Ctx, warning.NewRecorder(rec.Header()))
	err := p.Validate(ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", widget("team-a", "w", "green", 1), nil))
	if err == nil || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'broken' with binding 'broken-deny' denied request: expression 'object.spec.missing == 1' resulted in error: no such key: missing") {
		t.Errorf("failurePolicy Fail: %v", err)
	}
	if got := rec.Header().Values("Warning"); len(got) != 1 || got[0] != `299 - "Validation failed for ValidatingAdmissionPolicy 'colors' with binding 'colors-warn': unusual color"` {
		t.Errorf("warnings = %q", got)
	}

	broken.Spec.FailurePolicy = admissiontest.Ptr(admregv1.Ignore)
	e2 := admissiontest.New(t)
	p2, waitFor2 := started(t, e2)
	e2.Namespace(t, "team-a", nil)
	e2.Create(t, "validatingadmissionpolicies", broken)
	e2.Create(t, "validatingadmissionpolicybindings", binding("broken-deny", "broken", nil, admregv1.Deny))
	waitFor2(1)
	if err := p2.Validate(e2.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", widget("team-a", "w", "green", 1), nil)); err != nil {
		t.Errorf("failurePolicy Ignore: %v", err)
	}
}

// TestParams evaluates a policy with its binding's parameters (a Widget named limits, or the
// Widgets a selector picks), with parameterNotFoundAction Deny and Allow, and a binding
// narrowed by a namespace selector seeing namespaceObject.
func TestParams(t *testing.T) {
	e := admissiontest.New(t)
	p, waitFor := started(t, e)
	e.Namespace(t, "team-a", map[string]string{"tier": "gold"})
	e.Namespace(t, "team-b", nil)
	limits := widget("team-a", "limits", "", 5)
	limits.Labels = map[string]string{"role": "limit"}
	e.Create(t, "", limits)
	kind := &admregv1.ParamKind{APIVersion: "test.apigen.dev/v2", Kind: "Widget"}
	e.Create(t, "validatingadmissionpolicies", widgetPolicy("limit", kind, nil,
		admregv1.Validation{Expression: "object.spec.size <= params.spec.size && params.apiVersion == 'test.apigen.dev/v2'",
			MessageExpression: "'at most ' + string(params.spec.size) + ' in ' + namespaceObject.metadata.name"}))
	gold := binding("limit-gold", "limit", &admregv1.ParamRef{Name: "limits", ParameterNotFoundAction: admissiontest.Ptr(admregv1.DenyAction)}, admregv1.Deny)
	gold.Spec.MatchResources = &admregv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}}
	e.Create(t, "validatingadmissionpolicybindings", gold)
	waitFor(1)

	validate := func(ns string, size int32) error {
		return p.Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, ns, widget(ns, "w", "red", size), nil))
	}
	if err := validate("team-a", 6); err == nil || !strings.HasSuffix(err.Error(), "denied request: at most 5 in team-a") {
		t.Errorf("over the parameter's limit: %v", err)
	}
	if err := validate("team-a", 5); err != nil {
		t.Errorf("within the limit: %v", err)
	}
	if err := validate("team-b", 99); err != nil {
		t.Errorf("a namespace the binding does not select: %v", err)
	}

	bySelector := binding("limit-any", "limit", &admregv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "limit"}},
		ParameterNotFoundAction: admissiontest.Ptr(admregv1.DenyAction)}, admregv1.Deny)
	e.Create(t, "validatingadmissionpolicybindings", bySelector)
	admissiontest.WaitFor(t, "the second binding", func() bool { return len(p.list()) == 1 && len(p.list()[0].bindings) == 2 })
	err := validate("team-b", 1)
	if !apierrors.IsInvalid(err) || !strings.HasSuffix(err.Error(), "ValidatingAdmissionPolicy 'limit' with binding 'limit-any' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction") {
		t.Errorf("no parameter in team-b with Deny: %v", err)
	}
	if err := p.Validate(e.Ctx, &admission.Attributes{Operation: admission.Create, Resource: admissiontest.WidgetsV1, Kind: admissiontest.WidgetsV1.GroupVersion().WithKind("Widget"),
		Object: widget("", "cluster", "red", 1), Name: "cluster"}); err == nil || !strings.Contains(err.Error(), "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources") {
		t.Errorf("a cluster-scoped request with a namespaced paramKind: %v", err)
	}
}
