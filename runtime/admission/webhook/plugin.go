package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/google/cel-go/common/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/apigen-dev/apigen/runtime/admission"
	admissioncel "github.com/apigen-dev/apigen/runtime/admission/cel"
	"github.com/apigen-dev/apigen/runtime/admission/informer"
	"github.com/apigen-dev/apigen/runtime/admission/matching"
	"github.com/apigen-dev/apigen/runtime/admission/versioned"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// readyTimeout is how long a request waits for the configurations to be read before it is
// refused, as kube's WaitForReady.
const readyTimeout = 10 * time.Second

// base is what both plugins share: the stored configurations, the server's scheme,
// resources, namespaces and authorizer, and the HTTP clients.
type base struct {
	resource   schema.GroupResource
	hooksOf    func(runtime.Object) []*hook
	src        *source
	namespaces *matching.Namespaces
	converter  *versioned.Converter
	resources  admission.Resources
	authz      authorization.Authorizer
	clients    *clients
}

var (
	_ admission.WantsListers        = (*base)(nil)
	_ admission.WantsScheme         = (*base)(nil)
	_ authorization.WantsAuthorizer = (*base)(nil)
	_ admission.CacheRunner         = (*base)(nil)
)

// Handles returns true for CREATE, UPDATE, DELETE and CONNECT.
func (p *base) Handles(admission.Operation) bool { return true }

// SetServiceResolver makes the plugin resolve webhook Services with r instead of the
// cluster DNS names (DNSServiceResolver). Call it before serving.
func (p *base) SetServiceResolver(r ServiceResolver) { p.clients = newClients(r) }

// SetListers takes the configurations' storage (which must list and watch) and the core
// group's namespaces from lister. Without the configurations' storage the plugin calls no
// webhook.
func (p *base) SetListers(lister func(schema.GroupResource) rest.Lister) {
	if src, ok := lister(p.resource).(informer.Source); ok {
		p.src = &source{cache: informer.New(src), hooksOf: p.hooksOf}
	}
	p.namespaces = matching.NewNamespaces(lister(matching.NamespacesResource))
}

// SetScheme takes the scheme objects are converted through and the server's resources.
func (p *base) SetScheme(scheme *runtime.Scheme, resources admission.Resources) {
	p.converter, p.resources = versioned.NewConverter(scheme), resources
}

// SetAuthorizer takes the authorizer match conditions' authorizer variable asks.
func (p *base) SetAuthorizer(authz authorization.Authorizer) { p.authz = authz }

// RunCaches reads the configurations and namespaces until ctx ends.
func (p *base) RunCaches(ctx context.Context) {
	if p.src != nil {
		go p.src.cache.Run(ctx)
	}
	p.namespaces.RunCaches(ctx)
}

// hooksFor returns the webhooks that might apply to a, waiting up to readyTimeout for the
// configurations to be read. Errors: 403 "not yet ready to handle request".
func (p *base) hooksFor(ctx context.Context, a *admission.Attributes) ([]*hook, error) {
	if p.src == nil || p.converter == nil || matching.IsExemptConfiguration(a) {
		return nil, nil
	}
	if !p.src.cache.HasSynced() {
		wait, cancel := context.WithTimeout(ctx, readyTimeout)
		defer cancel()
		if !p.src.cache.WaitForSync(wait) {
			return nil, apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, fmt.Errorf("not yet ready to handle request"))
		}
	}
	return p.src.list(), nil
}

// shouldCall returns what h is called with for a, or ok false when h does not apply, as
// kube's ShouldCallHook: namespace and object selectors, rules (and equivalent resources),
// then match conditions. Errors (status errors): a missing namespace (404), a match
// condition that cannot be evaluated under failurePolicy Fail (403).
func (p *base) shouldCall(ctx context.Context, h *hook, a *admission.Attributes) (m matching.Match, ok bool, err error) {
	if h.selectorErr != nil {
		return m, false, apierrors.NewInternalError(h.selectorErr)
	}
	nsMatch, nsErr := matching.MatchNamespaceSelector(ctx, h.nsSelector, a, p.namespaces.Labels)
	if !nsMatch && nsErr == nil {
		return m, false, nil
	}
	if !matching.MatchObjectSelector(h.objSelector, a) {
		return m, false, nil
	}
	m, ok, err = matching.MatchRules(h.rules, h.matchPolicy, a, p.resources)
	if err != nil {
		return m, false, apierrors.NewInternalError(err)
	}
	if !ok {
		return m, false, nil
	}
	if nsErr != nil {
		return m, false, nsErr
	}
	if len(h.conditions) == 0 {
		return m, true, nil
	}
	return p.matchConditions(ctx, h, a, m)
}

// matchConditions evaluates h's match conditions, as kube's matchconditions.Matcher: any false
// skips the webhook; otherwise errors fail the request under Fail and skip it under Ignore.
func (p *base) matchConditions(ctx context.Context, h *hook, a *admission.Attributes, m matching.Match) (matching.Match, bool, error) {
	compiler, err := admissioncel.SharedCompiler(admissioncel.Options{HasAuthorizer: true})
	var errs []error
	if err == nil {
		var in *admissioncel.Input
		if in, err = p.celInput(ctx, a, m); err == nil {
			act := compiler.NewActivation(ctx, in, admissioncel.RuntimeCELCostBudgetMatchConditions)
			for _, c := range h.conditions {
				if c.err != nil {
					errs = append(errs, fmt.Errorf("compilation error: %w", c.err))
					continue
				}
				out, err := act.Eval(c.expr)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if out == types.False {
					return m, false, nil
				}
			}
		}
	}
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return m, true, nil
	}
	if h.ignores() {
		return m, false, nil
	}
	return m, false, apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, utilerrors.NewAggregate(errs))
}

// celInput is what match conditions see of a, its objects in m's version.
func (p *base) celInput(ctx context.Context, a *admission.Attributes, m matching.Match) (*admissioncel.Input, error) {
	in := &admissioncel.Input{User: admissioncel.UserInfo(a.User), Authorizer: authorization.CELAuthorizer(p.authz),
		Resource: admissioncel.Resource(a)}
	var err error
	if in.Object, err = p.converter.VersionedMap(a.Object, m.Kind); err != nil {
		return nil, err
	}
	if in.OldObject, err = p.converter.VersionedMap(a.OldObject, m.Kind); err != nil {
		return nil, err
	}
	in.Request, err = admissioncel.RequestValue(admission.NewAdmissionRequest(a, "", m.Resource, m.Kind))
	return in, err
}

// versionedObjects returns a's object and old object as kind gvk.
func (p *base) versionedObjects(a *admission.Attributes, gvk schema.GroupVersionKind) (obj, old runtime.Object, err error) {
	if obj, err = p.converter.ToVersion(a.Object, gvk); err != nil {
		return nil, nil, err
	}
	if old, err = p.converter.ToVersion(a.OldObject, gvk); err != nil {
		return nil, nil, err
	}
	return obj, old, nil
}

// checkDryRun refuses a dry run to a webhook with side effects, as kube's dispatchers.
func checkDryRun(h *hook, a *admission.Attributes) error {
	if !a.DryRun {
		return nil
	}
	if h.sideEffects == nil {
		return &callError{webhook: h.name, reason: fmt.Errorf("Webhook SideEffects is nil"), status: apierrors.NewBadRequest("Webhook SideEffects is nil")}
	}
	if *h.sideEffects != admregv1.SideEffectClassNone && *h.sideEffects != admregv1.SideEffectClassNoneOnDryRun {
		return dryRunUnsupported(h.name)
	}
	return nil
}
