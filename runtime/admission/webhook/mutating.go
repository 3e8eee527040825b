package webhook

import (
	"context"
	"fmt"
	"log/slog"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/matching"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/warning"
)

// MutatingPluginName is the mutating plugin's name in --enable-admission-plugins and
// --disable-admission-plugins, as kube-apiserver's.
const MutatingPluginName = "MutatingAdmissionWebhook"

// Mutating is the MutatingAdmissionWebhook plugin (see the package doc).
type Mutating struct {
	base
}

var _ admission.MutationInterface = (*Mutating)(nil)

// NewMutating returns the plugin; it calls webhooks once the server gave it its storage
// (SetListers), scheme (SetScheme) and ran its caches. It fits admission.Factory.
func NewMutating() (admission.Interface, error) {
	return &Mutating{base{resource: admregv1.Resource("mutatingwebhookconfigurations"), hooksOf: mutatingHooks,
		clients: newClients(nil)}}, nil
}

// Admit calls the mutating webhooks that apply to a, in order, applying their patches to
// a.Object, then once more those with reinvocationPolicy IfNeeded that ran before a webhook
// changed the object, as kube's mutating dispatcher. Errors: see the package doc.
func (p *Mutating) Admit(ctx context.Context, a *admission.Attributes) error {
	hooks, err := p.hooksFor(ctx, a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	var invoked []string // IfNeeded webhooks called so far
	reinvoke := map[string]bool{}
	for round := 0; round < 2; round++ {
		for _, h := range hooks {
			if round == 1 && !reinvoke[h.uid] {
				continue
			}
			m, ok, err := p.shouldCall(ctx, h, a)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			changed, err := p.call(ctx, h, a, m)
			if changed && round == 0 {
				for _, uid := range invoked {
					reinvoke[uid] = true
				}
			}
			if h.reinvoke && round == 0 {
				invoked = append(invoked, h.uid)
			}
			if err := failure(ctx, h, err); err != nil {
				return err
			}
		}
		if len(reinvoke) == 0 {
			return nil
		}
	}
	return nil
}

// failure is what a webhook's error does to the request: nil for none and for a call
// failure under failurePolicy Ignore (unless the request itself timed out), 500 for a call
// failure under Fail, the refusal itself otherwise.
func failure(ctx context.Context, h *hook, err error) error {
	if err == nil {
		return nil
	}
	callErr, ok := err.(*callError)
	if !ok {
		return err
	}
	if !h.ignores() {
		slog.Warn("failed calling webhook, failing closed", "webhook", h.name, "err", callErr)
		return apierrors.NewInternalError(callErr)
	}
	slog.Warn("failed calling webhook, failing open", "webhook", h.name, "err", callErr)
	if ctx.Err() != nil {
		return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
	}
	return nil
}

// call calls h about a as matched by m and applies its patch to a.Object; changed tells
// whether the object changed. Errors: a *callError (failurePolicy decides), the webhook's
// refusal, a dry run it does not support, or a patch that cannot be applied (500).
func (p *Mutating) call(ctx context.Context, h *hook, a *admission.Attributes, m matching.Match) (changed bool, err error) {
	if err := checkDryRun(h, a); err != nil {
		return false, err
	}
	obj, old, err := p.versionedObjects(a, m.Kind)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	objJSON, oldJSON, err := p.encodeBoth(obj, old)
	if err != nil {
		return false, &callError{webhook: h.name, reason: fmt.Errorf("could not create admission objects: %w", err), status: apierrors.NewBadRequest("error creating admission objects")}
	}
	ans, err := p.ask(ctx, h, a, m, objJSON, oldJSON, true)
	if err != nil {
		return false, err
	}
	if len(ans.patch) == 0 {
		return false, nil
	}
	patch, err := jsonpatch.DecodePatch(ans.patch)
	if err != nil {
		return false, &callError{webhook: h.name, reason: fmt.Errorf("received undecodable patch in webhook response: %w", err), status: apierrors.NewServiceUnavailable("error decoding patch in webhook response")}
	}
	if len(patch) == 0 {
		return false, nil
	}
	if obj == nil {
		return false, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	if ans.patchType != admissionv1.PatchTypeJSONPatch {
		return false, &callError{webhook: h.name, reason: fmt.Errorf("unsupported patch type %q", ans.patchType), status: refusal(h.name, ans.result)}
	}
	patched, err := patch.Apply(objJSON)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	newObj, err := p.converter.Decode(patched, m.Kind, obj)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	if !equality.Semantic.DeepEqual(obj, newObj) {
		changed = true
		if err := p.converter.Into(newObj, a.Object); err != nil {
			return false, apierrors.NewInternalError(err)
		}
	}
	return changed, nil
}

// encodeBoth returns the JSON of obj and old (nil for nil).
func (p *base) encodeBoth(obj, old runtime.Object) (objJSON, oldJSON []byte, err error) {
	if obj != nil {
		if objJSON, err = p.converter.Encode(obj); err != nil {
			return nil, nil, err
		}
	}
	if old != nil {
		if oldJSON, err = p.converter.Encode(old); err != nil {
			return nil, nil, err
		}
	}
	return objJSON, oldJSON, nil
}

// ask posts the review of a (objects given as JSON) to h and returns its verified answer,
// after passing its warnings on to the response. Errors: a *callError for a failed call or
// an invalid answer, the webhook's refusal.
func (p *base) ask(ctx context.Context, h *hook, a *admission.Attributes, m matching.Match, objJSON, oldJSON []byte, mutating bool) (*answer, error) {
	uid, body, version, err := newReview(h, a, m, objJSON, oldJSON)
	if err != nil {
		return nil, &callError{webhook: h.name, reason: fmt.Errorf("could not create admission objects: %w", err), status: apierrors.NewBadRequest("error creating admission objects")}
	}
	callCtx := ctx
	if h.timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, h.timeout)
		defer cancel()
	}
	data, err := p.clients.post(callCtx, &h.clientConfig, body)
	if err != nil {
		status, ok := err.(*apierrors.StatusError)
		if !ok {
			status = apierrors.NewServiceUnavailable("error calling webhook")
		}
		return nil, &callError{webhook: h.name, reason: fmt.Errorf("failed to call webhook: %w", err), status: status}
	}
	ans, err := verifyAnswer(data, uid, mutating, version)
	if err != nil {
		return nil, &callError{webhook: h.name, reason: fmt.Errorf("received invalid webhook response: %w", err), status: apierrors.NewServiceUnavailable("error validating webhook response")}
	}
	for _, w := range ans.warnings {
		warning.AddWarning(ctx, w)
	}
	if !ans.allowed {
		return nil, refusal(h.name, ans.result)
	}
	return ans, nil
}
