package webhook

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/matching"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

// ValidatingPluginName is the validating plugin's name in --enable-admission-plugins and
// --disable-admission-plugins, as kube-apiserver's.
const ValidatingPluginName = "ValidatingAdmissionWebhook"

// Validating is the ValidatingAdmissionWebhook plugin (see the package doc).
type Validating struct {
	base
}

var _ admission.ValidationInterface = (*Validating)(nil)

// NewValidating returns the plugin; it calls webhooks once the server gave it its storage
// (SetListers), scheme (SetScheme) and ran its caches. It fits admission.Factory.
func NewValidating() (admission.Interface, error) {
	return &Validating{base{resource: admregv1.Resource("validatingwebhookconfigurations"), hooksOf: validatingHooks,
		clients: newClients(nil)}}, nil
}

// invocation is a webhook to call and what it matched.
type invocation struct {
	hook  *hook
	match matching.Match
}

// encoded is the JSON of a request's object and old object in one kind.
type encoded struct {
	obj, old []byte
}

// Validate calls the validating webhooks that apply to a in parallel and returns the first
// refusal or failure (in webhook order), as kube's validating dispatcher. Errors: see the
// package doc.
func (p *Validating) Validate(ctx context.Context, a *admission.Attributes) error {
	hooks, err := p.hooksFor(ctx, a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	var calls []invocation
	bodies := map[schema.GroupVersionKind]encoded{}
	for _, h := range hooks {
		m, ok, err := p.shouldCall(ctx, h, a)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		calls = append(calls, invocation{h, m})
		if _, done := bodies[m.Kind]; !done {
			obj, old, err := p.versionedObjects(a, m.Kind)
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			var e encoded
			if e.obj, e.old, err = p.encodeBoth(obj, old); err != nil {
				return apierrors.NewInternalError(err)
			}
			bodies[m.Kind] = e
		}
	}
	if len(calls) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
	}
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil && !c.hook.ignores() {
					errs[i] = apierrors.NewInternalError(fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", c.hook.name, r))
				}
			}()
			errs[i] = failure(ctx, c.hook, p.call(ctx, c, a, bodies[c.match.Kind]))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// call calls one validating webhook. Errors: as Mutating.call's, without patches (a
// validating webhook returning one is a *callError).
func (p *Validating) call(ctx context.Context, c invocation, a *admission.Attributes, e encoded) error {
	if err := checkDryRun(c.hook, a); err != nil {
		return err
	}
	_, err := p.ask(ctx, c.hook, a, c.match, e.obj, e.old, false)
	return err
}
