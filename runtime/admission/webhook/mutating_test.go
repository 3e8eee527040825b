package webhook

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/admissiontest"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// labelPatch returns a webhook answer adding label key=value when the object lacks it.
func labelPatch(key, value string) func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var w testapi.Widget
		_ = json.Unmarshal(req.Object.Raw, &w)
		if w.Labels[key] == value {
			return &admissionv1.AdmissionResponse{Allowed: true}
		}
		op := `{"op":"add","path":"/metadata/labels","value":{}},`
		if w.Labels != nil {
			op = ""
		}
		patch := fmt.Sprintf(`[%s{"op":"add","path":"/metadata/labels/%s","value":%q}]`, op, key, value)
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(patch), PatchType: admissiontest.Ptr(admissionv1.PatchTypeJSONPatch)}
	}
}

func mutatingHook(name string, cc admregv1.WebhookClientConfig, reinvoke admregv1.ReinvocationPolicyType) admregv1.MutatingWebhook {
	return admregv1.MutatingWebhook{Name: name, ClientConfig: cc, Rules: admissiontest.WidgetRule("v1"), ReinvocationPolicy: &reinvoke,
		SideEffects: admissiontest.Ptr(admregv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}}
}

// TestMutatingPatchAndReinvocation runs two mutating webhooks: each patch is applied to the
// admitted (internal) object, and the first, with reinvocationPolicy IfNeeded, is called once
// more because the second changed the object after it.
func TestMutatingPatchAndReinvocation(t *testing.T) {
	e := admissiontest.New(t)
	first := newServer(t, labelPatch("team", "widgets"))
	second := newServer(t, labelPatch("tier", "gold"))
	p, _ := NewMutating()
	e.Start(p)
	e.Create(t, "mutatingwebhookconfigurations", &admregv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "labels"},
		Webhooks: []admregv1.MutatingWebhook{
			mutatingHook("team.widgets.example.com", first.clientConfig("/team"), admregv1.IfNeededReinvocationPolicy),
			mutatingHook("tier.widgets.example.com", second.clientConfig("/tier"), admregv1.NeverReinvocationPolicy),
		}})
	waitForHooks(t, &p.(*Mutating).base, 2)
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: testapi.WidgetSpec{Color: "red"}}
	if err := p.(admission.MutationInterface).Admit(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", w, nil)); err != nil {
		t.Fatal(err)
	}
	if w.Labels["team"] != "widgets" || w.Labels["tier"] != "gold" || w.Spec.Color != "red" {
		t.Errorf("patched object: %+v", w.ObjectMeta)
	}
	if first.calls() != 2 || second.calls() != 1 {
		t.Errorf("calls: first %d (want 2, reinvoked), second %d (want 1)", first.calls(), second.calls())
	}
	if !strings.Contains(string(first.last().Object.Raw), `"tier":"gold"`) {
		t.Errorf("the reinvoked webhook did not see the second patch: %s", first.last().Object.Raw)
	}

	// A patch on a delete (no object) is an error, as kube's. (The webhook is called for
	// DELETE too: the configuration's rule has every operation.)
	p2, _ := NewMutating()
	e2 := admissiontest.New(t)
	e2.Start(p2)
	cfg := &admregv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "del"},
		Webhooks: []admregv1.MutatingWebhook{mutatingHook("del.widgets.example.com", second.clientConfig("/del"), admregv1.NeverReinvocationPolicy)}}
	e2.Create(t, "mutatingwebhookconfigurations", cfg)
	waitForHooks(t, &p2.(*Mutating).base, 1)
	err := p2.(admission.MutationInterface).Admit(e2.Ctx, admissiontest.WidgetAttrs(admission.Delete, "team-a", nil, &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}}))
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `admission webhook "del.widgets.example.com" attempted to modify the object, which is not supported for this operation`) {
		t.Errorf("a patch on a delete: %v", err)
	}
}

// TestDryRun sends a dry run to a NoneOnDryRun webhook (with dryRun true) and refuses it,
// without calling, for a webhook with side effects (a v1beta1 leftover), as kube.
func TestDryRun(t *testing.T) {
	e := admissiontest.New(t)
	srv := newServer(t, denyRed)
	p, _ := NewValidating()
	e.Start(p)
	hook := validatingHook("dry.widgets.example.com", srv.clientConfig("/dry"), admissiontest.WidgetRule("*"))
	hook.SideEffects = admissiontest.Ptr(admregv1.SideEffectClassNoneOnDryRun)
	e.Create(t, "validatingwebhookconfigurations", validatingConfig("dry", hook))
	waitForHooks(t, &p.(*Validating).base, 1)
	a := admissiontest.WidgetAttrs(admission.Create, "team-a", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}}, nil)
	a.DryRun = true
	if err := p.(admission.ValidationInterface).Validate(e.Ctx, a); err != nil {
		t.Fatal(err)
	}
	if req := srv.last(); req.DryRun == nil || !*req.DryRun || !strings.Contains(string(req.Options.Raw), `"dryRun":["All"]`) {
		t.Errorf("the review of a dry run: dryRun %v, options %s", req.DryRun, req.Options.Raw)
	}

	some := newHook("stored", 0, hookFields{name: "some.widgets.example.com", clientConfig: srv.clientConfig("/some"),
		rules: admissiontest.WidgetRule("*"), sideEffects: admissiontest.Ptr(admregv1.SideEffectClassSome), versions: []string{"v1"}})
	calls := srv.calls()
	err := p.(*Validating).call(e.Ctx, invocation{hook: some}, a, encoded{})
	if !apierrors.IsBadRequest(err) || err.Error() != `admission webhook "some.widgets.example.com" does not support dry run` || srv.calls() != calls {
		t.Errorf("side effects on a dry run: %v (calls %d -> %d)", err, calls, srv.calls())
	}
}

// TestSelectorsAndConditions skips a webhook by namespace selector, object selector and a
// false match condition, and fails a request whose condition cannot be evaluated (403).
func TestSelectorsAndConditions(t *testing.T) {
	e := admissiontest.New(t)
	srv := newServer(t, denyRed)
	p, _ := NewValidating()
	e.Start(p)
	e.Namespace(t, "prod", map[string]string{"env": "prod"})
	e.Namespace(t, "dev", map[string]string{"env": "dev"})
	hook := validatingHook("sel.widgets.example.com", srv.clientConfig("/sel"), admissiontest.WidgetRule("*"))
	hook.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	hook.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "skip", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	hook.MatchConditions = []admregv1.MatchCondition{
		{Name: "not-bob", Expression: "request.userInfo.username != 'bob'"},
		{Name: "size", Expression: "object == null || object.spec.size < 100"},
	}
	e.Create(t, "validatingwebhookconfigurations", validatingConfig("sel", hook))
	waitForHooks(t, &p.(*Validating).base, 1)
	red := func(labels map[string]string, size int32) *testapi.Widget {
		return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: labels}, Spec: testapi.WidgetSpec{Color: "red", Size: size}}
	}
	validate := func(a *admission.Attributes) error { return p.(admission.ValidationInterface).Validate(e.Ctx, a) }
	if err := validate(admissiontest.WidgetAttrs(admission.Create, "prod", red(nil, 1), nil)); err == nil {
		t.Error("a red widget in prod was admitted")
	}
	if err := validate(admissiontest.WidgetAttrs(admission.Create, "dev", red(nil, 1), nil)); err != nil {
		t.Errorf("namespace selector: %v", err)
	}
	if err := validate(admissiontest.WidgetAttrs(admission.Create, "prod", red(map[string]string{"skip": "yes"}, 1), nil)); err != nil {
		t.Errorf("object selector: %v", err)
	}
	bob := admissiontest.WidgetAttrs(admission.Create, "prod", red(nil, 1), nil)
	bob.User.Name = "bob"
	if err := validate(bob); err != nil {
		t.Errorf("a false match condition: %v", err)
	}
	if err := validate(admissiontest.WidgetAttrs(admission.Create, "missing", red(nil, 1), nil)); !apierrors.IsNotFound(err) {
		t.Errorf("a missing namespace: %v, want 404", err)
	}
	calls := srv.calls()
	err := validate(admissiontest.WidgetAttrs(admission.Create, "prod", red(nil, 0), nil)) // size 0 is omitted from the JSON
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "no such key: size") || srv.calls() != calls {
		t.Errorf("a condition that cannot be evaluated: %v", err)
	}
}

// TestServiceClientConfig calls a webhook through a service reference: the resolver gives
// the address, the certificate must be for <name>.<namespace>.svc and verify with caBundle.
func TestServiceClientConfig(t *testing.T) {
	bundle, err := certs.EnsureSelfSigned(t.TempDir(), []string{"hook.webhooks.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tlsCertificate(bundle)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		_ = json.NewDecoder(r.Body).Decode(&review)
		if r.URL.Path != "/check" {
			http.NotFound(w, r)
			return
		}
		out, _ := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta,
			Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Result: &metav1.Status{Message: "via service"}}})
		_, _ = w.Write(out)
	}))
	srv.TLS = cert
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca, err := os.ReadFile(bundle.CertFile(certs.CAName))
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	e := admissiontest.New(t)
	p, _ := NewValidating()
	p.(*Validating).SetServiceResolver(resolverFunc(func(ns, name string, _ int32) (*url.URL, error) {
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(host, port)}, nil
	}))
	e.Start(p)
	hook := validatingHook("svc.widgets.example.com", admregv1.WebhookClientConfig{
		Service: &admregv1.ServiceReference{Namespace: "webhooks", Name: "hook", Path: admissiontest.Ptr("/check")}, CABundle: ca}, admissiontest.WidgetRule("*"))
	e.Create(t, "validatingwebhookconfigurations", validatingConfig("svc", hook))
	waitForHooks(t, &p.(*Validating).base, 1)
	err = p.(admission.ValidationInterface).Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}}, nil))
	if err == nil || err.Error() != `admission webhook "svc.widgets.example.com" denied the request: via service` {
		t.Errorf("service webhook: %v", err)
	}
}

type resolverFunc func(namespace, name string, port int32) (*url.URL, error)

func (f resolverFunc) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return f(namespace, name, port)
}

// TestReviewV1beta1 calls a webhook accepting only v1beta1 AdmissionReviews: it receives one
// and its patch, without patchType (as v1beta1 allows), is applied.
func TestReviewV1beta1(t *testing.T) {
	e := admissiontest.New(t)
	srv := newServer(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(`[{"op":"replace","path":"/spec/color","value":"blue"}]`)}
	})
	p, _ := NewMutating()
	e.Start(p)
	hook := mutatingHook("beta.widgets.example.com", srv.clientConfig("/beta"), admregv1.NeverReinvocationPolicy)
	hook.AdmissionReviewVersions = []string{"v1beta1"}
	e.Create(t, "mutatingwebhookconfigurations", &admregv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "beta"},
		Webhooks: []admregv1.MutatingWebhook{hook}})
	waitForHooks(t, &p.(*Mutating).base, 1)
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: testapi.WidgetSpec{Color: "red"}}
	if err := p.(admission.MutationInterface).Admit(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", w, nil)); err != nil {
		t.Fatal(err)
	}
	if v := srv.lastVersion(); v != "admission.k8s.io/v1beta1" || w.Spec.Color != "blue" {
		t.Errorf("review version %q, color %q", v, w.Spec.Color)
	}
}
