package apiextensions

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/webhook"
	"github.com/apigen-dev/apigen/runtime/apiextensions/customresource"
	"github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1/install"
	"github.com/apigen-dev/apigen/runtime/openapi"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/server"
)

// ControllersHookName is the post-start hook that starts the CRD controllers, as
// kube-apiserver's "start-apiextensions-controllers".
const ControllersHookName = "start-apiextensions-controllers"

// StorageFactory creates the storage of CustomResourceDefinitions (typed, registry.StorageFactory)
// and of custom resources (unstructured, customresource.StorageFactory); *etcd3.StorageFactory
// is both.
type StorageFactory interface {
	registry.StorageFactory
	customresource.StorageFactory
}

// Config configures the extensions server.
type Config struct {
	// Server configures the extensions server's own runtime/server.Server (its Name, Logger
	// and Metrics matter; its filters are not used, as the top of the chain runs them).
	Server server.Config
	// Scheme is the chain's shared scheme: apiextensions.k8s.io/v1 is installed into it.
	Scheme *runtime.Scheme
	// Storage creates the storage of CRDs and of custom resources; required.
	Storage StorageFactory
	// Admission is run on every write of CRDs and of custom resources; nil admits everything.
	Admission *admission.Chain
	// Delegate gets every request the extensions server does not serve; nil means
	// server.NewEmptyDelegate() (404 NotFound).
	Delegate server.DelegationTarget
	// ServiceResolver resolves the Services of conversion webhooks, as the admission
	// webhooks'; nil is webhook.DNSServiceResolver (https://<name>.<namespace>.svc:<port>).
	ServiceResolver webhook.ServiceResolver
}

// Extensions is the extensions server link of the delegation chain: Server serves
// apiextensions.k8s.io/v1 and delegates to the custom resources Handler, which delegates to
// Config.Delegate. Use Server as the typed server's delegate.
type Extensions struct {
	// Server is the link: a runtime/server.Server serving apiextensions.k8s.io/v1, with the
	// post-start hook ControllersHookName.
	Server *server.Server
	// Handler serves the custom resources of the established CRDs; it is also the
	// runtime/namespace.ContentDeleter of custom resources.
	Handler *customresource.Handler

	log         *slog.Logger
	crds        *registry.Store
	status      rest.Updater
	terminating *resourceSet
	// served is closed once the controllers have served the CRDs stored at start.
	served chan struct{}
}

// Served is closed once the post-start hook ControllersHookName has served every CRD stored
// when the server started (their custom resources are then in Handler.ServedResources), as
// kube-apiserver's readiness waits for its CRD informer: a controller that must see every
// resource from its first pass (the garbage collector) waits for it.
func (e *Extensions) Served() <-chan struct{} { return e.served }

// New builds the extensions server over cfg. Errors: a missing Scheme or Storage, or the CRD
// group or the Handler cannot be built.
func New(cfg Config) (*Extensions, error) {
	if cfg.Scheme == nil || cfg.Storage == nil {
		return nil, errors.New("cannot build the extensions server: a scheme and a storage factory are required")
	}
	next := cfg.Delegate
	if next == nil {
		next = server.NewEmptyDelegate()
	}
	handler, err := customresource.NewHandler(customresource.Config{Storage: cfg.Storage, Admission: cfg.Admission,
		NotFound: next.UnprotectedHandler(), ServiceResolver: cfg.ServiceResolver})
	if err != nil {
		return nil, fmt.Errorf("cannot build the extensions server: %w", err)
	}
	info, err := install.NewAPIGroupInfo(cfg.Scheme, cfg.Storage)
	if err != nil {
		return nil, fmt.Errorf("cannot build the extensions server: %w", err)
	}
	resources := info.VersionedResourcesStorageMap["v1"]
	crds, ok1 := resources["customresourcedefinitions"].(*registry.Store)
	status, ok2 := resources["customresourcedefinitions/status"].(rest.Updater)
	if !ok1 || !ok2 {
		return nil, errors.New("cannot build the extensions server: the generated CRD storage is not a registry.Store")
	}
	crds.Strategy = crdStrategy{Strategy: crds.Strategy}
	crds.Admission = cfg.Admission
	crds.TableConvertor = crdTable{}
	log := cfg.Server.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &Extensions{Handler: handler, log: log, crds: crds, status: status, terminating: &resourceSet{}, served: make(chan struct{})}
	e.Server = server.New(cfg.Server, &customResources{ext: e, next: next})
	if err := e.Server.InstallAPIGroups(info); err != nil {
		return nil, fmt.Errorf("cannot build the extensions server: %w", err)
	}
	if err := e.Server.AddPostStartHook(ControllersHookName, e.startControllers); err != nil {
		return nil, err
	}
	return e, nil
}

// customResources is the link after the extensions server: it serves custom resources
// through the Handler, refuses creates of a terminating CRD's resources, and lists the
// custom resource groups in /apis.
type customResources struct {
	ext  *Extensions
	next server.DelegationTarget
}

var (
	_ server.DelegationTarget     = (*customResources)(nil)
	_ server.OpenAPISource        = (*customResources)(nil)
	_ server.AggregatedDiscoverer = (*customResources)(nil)
)

// UnprotectedHandler serves custom resources: a create of a resource whose CRD is being
// deleted gets 405 MethodNotAllowed "create not allowed while custom resource definition is
// terminating", as apiextensions-apiserver's crdHandler; everything else goes to the Handler.
func (c *customResources) UnprotectedHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info, err := request.InfoFor(r); err == nil && info.IsResourceRequest && info.Verb == "create" &&
			info.Subresource == "" && c.ext.terminating.has(info.APIGroup, info.Resource) {
			err := apierrors.NewMethodNotSupported(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Verb)
			err.ErrStatus.Message = fmt.Sprintf("%v not allowed while custom resource definition is terminating", info.Verb)
			responsewriters.WriteError(w, err)
			return
		}
		c.ext.Handler.ServeHTTP(w, r)
	})
}

// ServeOpenAPI publishes the custom resources' OpenAPI documents through svc
// (server.OpenAPISource), as apiextensions-apiserver's OpenAPI controllers.
func (c *customResources) ServeOpenAPI(svc *openapi.Service) { c.ext.Handler.ServeOpenAPI(svc) }

// AggregatedGroups describes the served custom resource groups in aggregated discovery
// (server.AggregatedDiscoverer).
func (c *customResources) AggregatedGroups() []apidiscoveryv2.APIGroupDiscovery {
	return c.ext.Handler.AggregatedGroups()
}

// APIGroups lists the served custom resource groups, for /apis of the chain.
func (c *customResources) APIGroups() []metav1.APIGroup { return c.ext.Handler.APIGroups() }

// HealthzChecks returns none: the link has no checks of its own.
func (c *customResources) HealthzChecks() []server.HealthChecker { return nil }

// PostStartHooks returns none: the controllers are the extensions server's hook.
func (c *customResources) PostStartHooks() map[string]server.PostStartHookFunc { return nil }

// ListedPaths returns none: custom resource groups come and go; /apis lists them.
func (c *customResources) ListedPaths() []string { return nil }

// NextDelegate returns the rest of the chain.
func (c *customResources) NextDelegate() server.DelegationTarget { return c.next }

// resourceSet is a set of group/resource pairs safe for concurrent use.
type resourceSet struct {
	mu  sync.RWMutex
	set map[schema.GroupResource]bool
}

// has reports whether group/resource is in the set.
func (s *resourceSet) has(group, resource string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set[schema.GroupResource{Group: group, Resource: resource}]
}

// put adds (on) or removes (!on) gr.
func (s *resourceSet) put(gr schema.GroupResource, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[schema.GroupResource]bool{}
	}
	if on {
		s.set[gr] = true
	} else {
		delete(s.set, gr)
	}
}
