package policy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/informer"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// paramSyncTimeout is how long a request waits for a new parameter cache, as kube's.
const paramSyncTimeout = time.Second

// paramSources are the caches of parameter resources, started when a binding first needs
// one. Safe for concurrent use.
type paramSources struct {
	mu     sync.Mutex
	ctx    context.Context // nil until start
	caches map[schema.GroupResource]*informer.Cache
}

// start lets the sources run caches until ctx ends.
func (s *paramSources) start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx = ctx
}

// cache returns the cache of gr, started on first use; nil before start or when source is
// nil.
func (s *paramSources) cache(gr schema.GroupResource, source informer.Source) *informer.Cache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil || source == nil {
		return nil
	}
	if c, ok := s.caches[gr]; ok {
		return c
	}
	if s.caches == nil {
		s.caches = map[schema.GroupResource]*informer.Cache{}
	}
	c := informer.New(source)
	s.caches[gr] = c
	go c.Run(s.ctx)
	return c
}

// collectParams returns the parameter objects of binding b of policy c for request a (in c's
// paramKind version, as JSON), as kube's CollectParams: [nil] without paramKind or paramRef;
// the object named, or those selected, in paramRef.namespace or a's namespace for a
// namespaced kind. Errors (configuration errors): an unknown paramKind, a namespaced one for a
// cluster-scoped request, a namespace on a cluster-scoped one, no parameter with
// parameterNotFoundAction Deny, a storage failure.
func (p *Plugin) collectParams(ctx context.Context, c *compiled, b *admregv1.ValidatingAdmissionPolicyBinding, a *admission.Attributes) ([]map[string]any, error) {
	ref := b.Spec.ParamRef
	if c.policy.Spec.ParamKind == nil || ref == nil {
		return []map[string]any{nil}, nil
	}
	gvr, ok := p.resources.ResourceFor(c.paramKind)
	lister := p.listers(gvr.GroupResource())
	if !ok || lister == nil {
		return nil, fmt.Errorf("paramKind kind `%v` not known", c.paramKind)
	}
	namespaced := false
	if s, ok := lister.(rest.Scoper); ok {
		namespaced = s.NamespaceScoped()
	}
	ns := ref.Namespace
	switch {
	case !namespaced && ns != "":
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	case namespaced && ns == "":
		if ns = a.Namespace; ns == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	}
	objs, err := p.findParams(ctx, gvr.GroupResource(), lister, ns, ref)
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admregv1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	out := make([]map[string]any, 0, len(objs))
	for _, obj := range objs {
		m, err := p.converter.VersionedMap(obj, c.paramKind)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// findParams returns the objects of gr in namespace ns that ref names or selects: from the
// parameter cache once synced (within paramSyncTimeout), else, and for a name the cache does
// not have yet, from storage.
func (p *Plugin) findParams(ctx context.Context, gr schema.GroupResource, lister rest.Lister, ns string, ref *admregv1.ParamRef) ([]runtime.Object, error) {
	src, _ := lister.(informer.Source)
	cache := p.params.cache(gr, src)
	if cache != nil && !cache.HasSynced() {
		wait, cancel := context.WithTimeout(ctx, paramSyncTimeout)
		cache.WaitForSync(wait)
		cancel()
	}
	synced := cache != nil && cache.HasSynced()
	if ref.Name != "" {
		if synced {
			if obj, ok := cache.Get(ns, ref.Name); ok {
				return []runtime.Object{obj}, nil
			}
		}
		getter, ok := lister.(rest.Getter)
		if !ok {
			return nil, nil
		}
		obj, err := getter.Get(request.WithNamespace(ctx, ns), ref.Name, &metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []runtime.Object{obj}, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
	if err != nil {
		return nil, err
	}
	var all []runtime.Object
	if synced {
		all = cache.List()
	} else if list, err := lister.List(request.WithNamespace(ctx, ns), &metainternalversion.ListOptions{}); err != nil {
		return nil, err
	} else if all, err = meta.ExtractList(list); err != nil {
		return nil, err
	}
	return selectIn(all, ns, sel), nil
}

// selectIn returns the objects of objs in namespace ns whose labels sel selects.
func selectIn(objs []runtime.Object, ns string, sel labels.Selector) []runtime.Object {
	var out []runtime.Object
	for _, obj := range objs {
		m, err := meta.Accessor(obj)
		if err == nil && m.GetNamespace() == ns && sel.Matches(labels.Set(m.GetLabels())) {
			out = append(out, obj)
		}
	}
	return out
}
