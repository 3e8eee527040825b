package policy

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/informer"
	"github.com/apigen-dev/apigen/runtime/admission/matching"
	"github.com/apigen-dev/apigen/runtime/admission/versioned"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// PluginName is the plugin's name in --enable-admission-plugins and
// --disable-admission-plugins, as kube-apiserver's.
const PluginName = "ValidatingAdmissionPolicy"

// readyTimeout is how long a request waits for the policies and bindings to be read before
// it is refused, as kube's plugins wait for their informers.
const readyTimeout = 10 * time.Second

// Plugin is the ValidatingAdmissionPolicy plugin (see the package doc).
type Plugin struct {
	policies, bindings *informer.Cache
	namespaces         *matching.Namespaces
	listers            func(schema.GroupResource) rest.Lister
	converter          *versioned.Converter
	resources          admission.Resources
	authz              authorization.Authorizer
	params             paramSources

	mu       sync.Mutex // held while rebuilding
	current  atomic.Pointer[snapshot]
	compiled map[string]*compiledAt // by policy name; under mu
}

// snapshot is the bound policies compiled from one generation of the two caches.
type snapshot struct {
	gens  [2]uint64
	hooks []*hook
}

// hook is a policy with the bindings naming it, in name order.
type hook struct {
	*compiled
	bindings []*admregv1.ValidatingAdmissionPolicyBinding
}

// compiledAt is a policy compiled at a resourceVersion, reused while it does not change.
type compiledAt struct {
	resourceVersion string
	c               *compiled
}

var (
	_ admission.ValidationInterface = (*Plugin)(nil)
	_ admission.WantsListers        = (*Plugin)(nil)
	_ admission.WantsScheme         = (*Plugin)(nil)
	_ authorization.WantsAuthorizer = (*Plugin)(nil)
	_ admission.CacheRunner         = (*Plugin)(nil)
)

// New returns the plugin; it applies policies once the server gave it its storage
// (SetListers), scheme (SetScheme) and ran its caches. It fits admission.Factory.
func New() (admission.Interface, error) {
	return &Plugin{compiled: map[string]*compiledAt{}}, nil
}

// Handles returns true for every operation.
func (p *Plugin) Handles(admission.Operation) bool { return true }

// SetListers takes the storage of policies and bindings (which must list and watch), the core
// group's namespaces, and lister for parameters. Without the policies' storage the plugin
// admits everything.
func (p *Plugin) SetListers(lister func(schema.GroupResource) rest.Lister) {
	p.listers = lister
	pol, ok1 := lister(admregv1.Resource("validatingadmissionpolicies")).(informer.Source)
	bind, ok2 := lister(admregv1.Resource("validatingadmissionpolicybindings")).(informer.Source)
	if ok1 && ok2 {
		p.policies, p.bindings = informer.New(pol), informer.New(bind)
	}
	p.namespaces = matching.NewNamespaces(lister(matching.NamespacesResource))
}

// SetScheme takes the scheme objects and parameters are converted through, and the server's
// resources (matchPolicy Equivalent, paramKind).
func (p *Plugin) SetScheme(scheme *runtime.Scheme, resources admission.Resources) {
	p.converter, p.resources = versioned.NewConverter(scheme), resources
}

// SetAuthorizer takes the authorizer the authorizer variable asks.
func (p *Plugin) SetAuthorizer(authz authorization.Authorizer) { p.authz = authz }

// RunCaches reads policies, bindings, namespaces and (once a binding needs them) parameters
// until ctx ends.
func (p *Plugin) RunCaches(ctx context.Context) {
	p.params.start(ctx)
	if p.policies != nil {
		go p.policies.Run(ctx)
		go p.bindings.Run(ctx)
	}
	p.namespaces.RunCaches(ctx)
}

// hooksFor returns the bound policies, waiting up to readyTimeout for them to be read.
// Errors: 403 "not yet ready to handle request".
func (p *Plugin) hooksFor(ctx context.Context, a *admission.Attributes) ([]*hook, error) {
	if p.policies == nil || p.converter == nil || matching.IsExemptConfiguration(a) {
		return nil, nil
	}
	if !p.policies.HasSynced() || !p.bindings.HasSynced() {
		wait, cancel := context.WithTimeout(ctx, readyTimeout)
		defer cancel()
		if !p.policies.WaitForSync(wait) || !p.bindings.WaitForSync(wait) {
			return nil, apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, fmt.Errorf("not yet ready to handle request"))
		}
	}
	return p.list(), nil
}

// list returns the policies that have bindings, compiled, rebuilt when a cache changed (a
// policy whose resourceVersion did not change is not compiled again). It takes no lock
// unless a cache changed since the last call (every write asks).
func (p *Plugin) list() []*hook {
	gens := [2]uint64{p.policies.Generation(), p.bindings.Generation()}
	if cur := p.current.Load(); cur != nil && cur.gens == gens {
		return cur.hooks
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if cur := p.current.Load(); cur != nil && cur.gens == gens {
		return cur.hooks
	}
	byPolicy := map[string][]*admregv1.ValidatingAdmissionPolicyBinding{}
	for _, obj := range p.bindings.List() {
		if b, ok := obj.(*admregv1.ValidatingAdmissionPolicyBinding); ok {
			byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
		}
	}
	var hooks []*hook
	seen := map[string]*compiledAt{}
	for _, obj := range p.policies.List() {
		pol, ok := obj.(*admregv1.ValidatingAdmissionPolicy)
		if !ok {
			continue
		}
		c := p.compiled[pol.Name]
		if c == nil || c.resourceVersion != pol.ResourceVersion {
			c = &compiledAt{resourceVersion: pol.ResourceVersion, c: compilePolicy(pol)}
		}
		seen[pol.Name] = c
		if bs := byPolicy[pol.Name]; len(bs) > 0 {
			sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
			hooks = append(hooks, &hook{compiled: c.c, bindings: bs})
		}
	}
	p.compiled = seen
	p.current.Store(&snapshot{gens: gens, hooks: hooks})
	return hooks
}
