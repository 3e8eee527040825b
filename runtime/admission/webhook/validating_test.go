package webhook

import (
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/admissiontest"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// denyRed refuses red widgets with a 422 and a warning, and allows the rest.
func denyRed(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	var w testapi.Widget
	_ = jsonUnmarshal(req.Object.Raw, &w)
	if w.Spec.Color == "red" {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Code: http.StatusUnprocessableEntity, Message: "red widgets are not allowed"},
			Warnings: []string{"widgets should be blue"}}
	}
	return &admissionv1.AdmissionResponse{Allowed: true}
}

func validatingConfig(name string, hooks ...admregv1.ValidatingWebhook) *admregv1.ValidatingWebhookConfiguration {
	return &admregv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: hooks}
}

func validatingHook(name string, cc admregv1.WebhookClientConfig, rules []admregv1.RuleWithOperations) admregv1.ValidatingWebhook {
	return admregv1.ValidatingWebhook{Name: name, ClientConfig: cc, Rules: rules,
		SideEffects: admissiontest.Ptr(admregv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}}
}

// TestValidatingRefuses stores a configuration whose webhook refuses red widgets: the plugin
// sees it through its cache, calls the webhook with the review kube sends (the object in the
// rule's version, user, dry run, options), and returns the webhook's refusal with kube's
// message.
func TestValidatingRefuses(t *testing.T) {
	e := admissiontest.New(t)
	srv := newServer(t, denyRed)
	p, _ := NewValidating()
	e.Start(p)
	e.Create(t, "validatingwebhookconfigurations", validatingConfig("deny-red", validatingHook("deny.widgets.example.com", srv.clientConfig("/validate"), admissiontest.WidgetRule("v1"))))
	waitForHooks(t, &p.(*Validating).base, 1)

	red := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w1", Namespace: "team-a"}, Spec: testapi.WidgetSpec{Color: "red"}}
	err := p.(admission.ValidationInterface).Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", red, nil))
	status, ok := err.(*apierrors.StatusError)
	if !ok || status.ErrStatus.Code != http.StatusUnprocessableEntity ||
		status.ErrStatus.Message != `admission webhook "deny.widgets.example.com" denied the request: red widgets are not allowed` {
		t.Fatalf("red widget: %#v", err)
	}
	req := srv.last()
	if req.Operation != admissionv1.Create || req.Name != "w1" || req.Namespace != "team-a" || req.UserInfo.Username != "alice" ||
		req.Kind.Kind != "Widget" || req.Resource.Resource != "widgets" || req.DryRun == nil || *req.DryRun ||
		!strings.Contains(string(req.Object.Raw), `"apiVersion":"test.apigen.dev/v1"`) || len(req.OldObject.Raw) != 0 {
		t.Errorf("the review: %+v\nobject %s", req, req.Object.Raw)
	}
	blue := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w2"}, Spec: testapi.WidgetSpec{Color: "blue"}}
	if err := p.(admission.ValidationInterface).Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", blue, nil)); err != nil {
		t.Errorf("blue widget: %v", err)
	}
	// An update carries the old object; a v2 request is matched by the v1 rule (Equivalent)
	// and sent as v1.
	a := admissiontest.WidgetAttrs(admission.Update, "team-a", blue, red)
	a.Resource, a.Kind = admissiontest.WidgetsV2, admissiontest.WidgetsV2.GroupVersion().WithKind("Widget")
	if err := p.(admission.ValidationInterface).Validate(e.Ctx, a); err != nil {
		t.Errorf("update: %v", err)
	}
	if req := srv.last(); req.Resource.Version != "v1" || req.RequestResource.Version != "v2" || !strings.Contains(string(req.OldObject.Raw), `"color":"red"`) {
		t.Errorf("equivalent update review: resource %v, requestResource %v, old %s", req.Resource, req.RequestResource, req.OldObject.Raw)
	}
}

// TestFailurePolicy calls a webhook that is down: Ignore admits, Fail refuses with kube's
// 500 "failed calling webhook"; a webhook slower than its timeout fails the same way.
func TestFailurePolicy(t *testing.T) {
	e := admissiontest.New(t)
	down := newServer(t, denyRed)
	cc := down.clientConfig("/validate")
	down.Close()
	slow := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		time.Sleep(2500 * time.Millisecond)
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
	ignore := validatingHook("ignore.widgets.example.com", cc, admissiontest.WidgetRule("*"))
	ignore.FailurePolicy = admissiontest.Ptr(admregv1.Ignore)
	p, _ := NewValidating()
	e.Start(p)
	e.Create(t, "validatingwebhookconfigurations", validatingConfig("a-ignore", ignore))
	waitForHooks(t, &p.(*Validating).base, 1)
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}}
	if err := p.(admission.ValidationInterface).Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", w, nil)); err != nil {
		t.Errorf("failurePolicy Ignore: %v", err)
	}

	fail := validatingHook("fail.widgets.example.com", cc, admissiontest.WidgetRule("*"))
	e.Create(t, "validatingwebhookconfigurations", validatingConfig("b-fail", fail))
	waitForHooks(t, &p.(*Validating).base, 2)
	err := p.(admission.ValidationInterface).Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", w, nil))
	if !apierrors.IsInternalError(err) || !strings.HasPrefix(err.Error(), `Internal error occurred: failed calling webhook "fail.widgets.example.com": failed to call webhook: Post "`+down.URL+`/validate?timeout=10s": dial tcp`) {
		t.Errorf("failurePolicy Fail: %v", err)
	}

	e = admissiontest.New(t)
	p, _ = NewValidating()
	e.Start(p)
	timeout := validatingHook("slow.widgets.example.com", slow.clientConfig("/slow"), admissiontest.WidgetRule("*"))
	timeout.TimeoutSeconds = admissiontest.Ptr(int32(1))
	e.Create(t, "validatingwebhookconfigurations", validatingConfig("c-slow", timeout))
	waitForHooks(t, &p.(*Validating).base, 1)
	start := time.Now()
	err = p.(admission.ValidationInterface).Validate(e.Ctx, admissiontest.WidgetAttrs(admission.Create, "team-a", w, nil))
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `failed calling webhook "slow.widgets.example.com"`) ||
		!strings.Contains(err.Error(), "context deadline exceeded") {
		t.Errorf("timeout: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a 1s timeout took %v", d)
	}
}
