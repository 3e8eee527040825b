package customresource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/webhook"
	"github.com/apigen-dev/apigen/runtime/discovery"
	"github.com/apigen-dev/apigen/runtime/openapi"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// StorageFactory creates the storage of one custom resource. *etcd3.StorageFactory implements
// it (NewStorageWithCodec), keying objects under <etcd-prefix>/<group>/<plural>, as
// kube-apiserver stores custom resources.
type StorageFactory interface {
	// NewStorageWithCodec returns storage for resource that encodes and decodes objects with
	// codec, decoding into objects from newFunc.
	NewStorageWithCodec(resource schema.GroupResource, codec runtime.Codec, newFunc func() runtime.Object) (storage.Interface, error)
}

// Config configures a Handler.
type Config struct {
	// Storage creates each custom resource's storage; required.
	Storage StorageFactory
	// Admission is run on every custom resource write, as for typed stores
	// (NamespaceLifecycle etc.); nil admits everything.
	Admission *admission.Chain
	// NotFound serves requests for groups and resources the Handler does not serve (the rest
	// of the delegation chain); nil answers 404 NotFound as a metav1.Status.
	NotFound http.Handler
	// ServiceResolver resolves the Services of conversion webhooks, as the admission
	// webhooks' (webhook.ServiceResolver); nil is webhook.DNSServiceResolver.
	ServiceResolver webhook.ServiceResolver
}

// Handler serves the custom resources of CustomResourceDefinitions, as apiextensions-apiserver's
// crdHandler: every Set definition under /apis/<group>/<version>/..., with the same REST
// semantics as typed resources (runtime/endpoints over runtime/registry.Store) for
// unstructured objects, plus /apis/<group> and /apis/<group>/<version> discovery. Routes
// change atomically on Set and Remove: a request is served entirely by the definitions
// current when it arrived. Safe for concurrent use.
type Handler struct {
	cfg Config
	// webhooks calls the conversion webhooks.
	webhooks *webhook.Client
	// mu serializes Set and Remove; served is replaced (copy on write) under it and read
	// without it.
	mu     sync.Mutex
	served atomic.Pointer[map[string]*group]
	// listeners are called after every change of what is served (OnChange); guarded by mu.
	listeners []func()
	// openAPI serves the served groups' OpenAPI documents (ServeOpenAPI), or nil; guarded by mu.
	openAPI *openapi.Service
}

// NewHandler returns a Handler serving no definitions yet. Errors: cfg.Storage is nil.
func NewHandler(cfg Config) (*Handler, error) {
	if cfg.Storage == nil {
		return nil, errors.New("cannot serve custom resources without storage")
	}
	h := &Handler{cfg: cfg, webhooks: webhook.NewClient(cfg.ServiceResolver)}
	h.served.Store(&map[string]*group{})
	return h, nil
}

// Set serves def, new or changed: the routes and discovery of def's group switch atomically
// (in-flight requests finish on the old ones). Errors: def lacks names, versions or a storage
// version, or cannot be installed; the served definitions are then unchanged. Each Set builds
// new storage for def (over the same etcd keys), so objects read afterwards get def's
// defaults; watches opened before keep their storage until they end, or, when def.UID
// differs from the served definition's (a recreated CRD), end now.
func (h *Handler) Set(def Definition) error {
	if err := def.check(); err != nil {
		return err
	}
	def = cloneDefinition(def)
	if err := h.set(def); err != nil {
		return err
	}
	h.notify()
	return nil
}

// set is Set under the lock.
func (h *Handler) set(def Definition) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := *h.served.Load()
	defs := map[string]*resource{}
	if g := old[def.Group]; g != nil {
		for plural, r := range g.resources {
			defs[plural] = r
		}
	}
	r, err := h.newResource(def)
	if err != nil {
		return err
	}
	prev := defs[def.Names.Plural]
	defs[def.Names.Plural] = r
	g, err := newGroup(def.Group, defs)
	if err != nil {
		r.remove()
		return err
	}
	h.swap(def.Group, g)
	if prev != nil && prev.def.UID != def.UID {
		prev.remove() // a recreated CRD: the old one's watches end
	}
	return nil
}

// Remove stops serving group/plural: requests get 404 afterwards, its open watches end, and
// discovery no longer lists it (nor the group, when it was its last resource). Unknown
// resources are ignored.
func (h *Handler) Remove(group, plural string) {
	if h.remove(group, plural) {
		h.notify()
	}
}

// remove is Remove under the lock; it reports whether group/plural was served.
func (h *Handler) remove(group, plural string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := *h.served.Load()
	g := old[group]
	if g == nil || g.resources[plural] == nil {
		return false
	}
	defer g.resources[plural].remove() // its watches end
	defs := map[string]*resource{}
	for p, r := range g.resources {
		if p != plural {
			defs[p] = r
		}
	}
	if len(defs) == 0 {
		h.swap(group, nil)
		return true
	}
	ng, err := newGroup(group, defs)
	if err != nil { // the remaining definitions were all installed before
		ng = nil
	}
	h.swap(group, ng)
	return true
}

// swap publishes a copy of the served groups with group set to g (removed when nil), and
// their OpenAPI documents; h.mu must be held.
func (h *Handler) swap(name string, g *group) {
	old := *h.served.Load()
	next := make(map[string]*group, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	if g == nil {
		delete(next, name)
	} else {
		next[name] = g
	}
	h.served.Store(&next)
	h.publishOpenAPI()
}

// ServeHTTP serves /apis/<group>/<version>/... of every Set definition, /apis/<group> and
// /apis/<group>/<version> discovery of their groups, and hands anything else to NotFound.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 4)
	if len(parts) >= 2 && parts[0] == "apis" {
		if g := (*h.served.Load())[parts[1]]; g != nil && g.serves(parts) {
			g.ServeHTTP(w, r)
			return
		}
	}
	if h.cfg.NotFound != nil {
		h.cfg.NotFound.ServeHTTP(w, r)
		return
	}
	responsewriters.WriteStatus(w, responsewriters.NotFound())
}

// APIGroups lists the served custom resource groups, sorted by name, each with its versions
// in kube's priority order (preferred first), for /apis.
func (h *Handler) APIGroups() []metav1.APIGroup {
	served := *h.served.Load()
	out := make([]metav1.APIGroup, 0, len(served))
	for _, g := range served {
		out = append(out, g.apiGroup)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// AggregatedGroups returns the aggregated discovery entries of the served custom resource
// groups, sorted by name, every version Current, as apiextensions-apiserver publishes them.
func (h *Handler) AggregatedGroups() []apidiscoveryv2.APIGroupDiscovery {
	served := *h.served.Load()
	out := make([]apidiscoveryv2.APIGroupDiscovery, 0, len(served))
	for name, g := range served {
		out = append(out, discovery.GroupDiscovery(name, g.lists, apidiscoveryv2.DiscoveryFreshnessCurrent))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lookup returns the served resource group/plural, or nil.
func (h *Handler) lookup(group, plural string) *resource {
	if g := (*h.served.Load())[group]; g != nil {
		return g.resources[plural]
	}
	return nil
}

// DeleteAll deletes every object of group/plural (in all namespaces), as the CRD finalizer
// (customresourcecleanup.apiextensions.k8s.io) does before a CRD goes, and returns how many
// are left (objects with finalizers are only marked deleted). Errors: the resource is not
// served, or a storage error.
func (h *Handler) DeleteAll(ctx context.Context, group, plural string) (remaining int, err error) {
	r := h.lookup(group, plural)
	if r == nil {
		return 0, fmt.Errorf("cannot delete the objects of %s: it is not served", schema.GroupResource{Group: group, Resource: plural})
	}
	return r.deleteAll(ctx, "")
}

// DeleteNamespaceContent deletes every object of every served namespaced custom resource in
// namespace and returns how many are left, as runtime/namespace.ContentDeleter.
func (h *Handler) DeleteNamespaceContent(ctx context.Context, namespace string) (remaining int, err error) {
	var errs []error
	for _, g := range *h.served.Load() {
		for _, r := range g.resources {
			if !r.def.Namespaced {
				continue
			}
			n, err := r.deleteAll(ctx, namespace)
			remaining += n
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return remaining, errors.Join(errs...)
}

// cloneDefinition copies def's slices so later changes by the caller do not reach the
// served definition.
func cloneDefinition(def Definition) Definition {
	def.Names.ShortNames = append([]string(nil), def.Names.ShortNames...)
	def.Names.Categories = append([]string(nil), def.Names.Categories...)
	def.Versions = append([]Version(nil), def.Versions...)
	for i := range def.Versions {
		v := &def.Versions[i]
		v.PrinterColumns = append(v.PrinterColumns[:0:0], v.PrinterColumns...)
		v.SelectableFields = append([]string(nil), v.SelectableFields...)
		if v.Scale != nil {
			s := *v.Scale
			v.Scale = &s
		}
	}
	if def.Webhook != nil {
		w := *def.Webhook
		w.ReviewVersions = append([]string(nil), w.ReviewVersions...)
		w.ClientConfig = *w.ClientConfig.DeepCopy()
		def.Webhook = &w
	}
	return def
}
