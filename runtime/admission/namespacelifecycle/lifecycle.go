package namespacelifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/informer"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// PluginName is the plugin's name in --enable-admission-plugins and
// --disable-admission-plugins, as kube-apiserver's.
const PluginName = "NamespaceLifecycle"

// ImmortalNamespaces may not be deleted, as kube's plugin's immortalNamespaces.
var ImmortalNamespaces = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic}

// namespacesResource is the resource whose storage the plugin reads namespaces from.
var namespacesResource = schema.GroupResource{Group: "", Resource: "namespaces"}

// Plugin is the NamespaceLifecycle admission plugin (see the package doc). It mutates nothing
// but runs among the mutating plugins, first, as kube's does, so that a create in a missing
// namespace is refused before other plugins and validation see it; the deletion of immortal
// namespaces is refused in its validating step.
type Plugin struct {
	// namespaces reads a namespace by name; nil (no core group served) admits everything.
	namespaces rest.Getter
	// cache answers lookups once Run runs.
	cache cache
}

var (
	_ admission.MutationInterface   = &Plugin{}
	_ admission.ValidationInterface = &Plugin{}
	_ admission.WantsListers        = &Plugin{}
)

// New returns the plugin; it reads namespaces once the server calls SetListers. Its error is
// always nil (it fits admission.Factory).
func New() (admission.Interface, error) { return &Plugin{}, nil }

// SetListers takes the storage of the core group's namespaces from lister: it must also be a
// rest.Getter (the namespaces REST is), and a rest.Watcher for Run to cache namespaces.
// Without one the plugin admits everything.
func (p *Plugin) SetListers(lister func(schema.GroupResource) rest.Lister) {
	l := lister(namespacesResource)
	if g, ok := l.(rest.Getter); ok {
		p.namespaces = g
	}
	if s, ok := l.(informer.Source); ok {
		p.cache.namespaces = informer.New(s)
	}
}

// Run keeps a cache of every namespace's phase (a list, then a watch) until ctx ends, as
// kube's plugin reads a namespace informer; the server runs it as a post-start hook's
// goroutine. While the cache is not watching (before its first list, after a failure until
// it lists again), and for a namespace whose DELETE was admitted in the last 30 s (the cache
// may not show it Terminating yet) or that the cache does not know, the plugin reads the
// namespace from storage. Without Run it always reads storage.
func (p *Plugin) Run(ctx context.Context) {
	if p.cache.namespaces != nil {
		p.cache.namespaces.Run(ctx)
	}
}

// Handles returns true for CREATE, UPDATE and DELETE.
func (p *Plugin) Handles(op admission.Operation) bool {
	return op == admission.Create || op == admission.Update || op == admission.Delete
}

// isNamespace reports whether a is about a namespace itself.
func isNamespace(a *admission.Attributes) bool {
	return a.Resource.Group == "" && a.Resource.Resource == "namespaces"
}

// Admit refuses a create or update of a namespaced object in a namespace that does not exist
// (404) and a create in a terminating one (403 with a NamespaceTerminating cause).
// Errors reading the namespace are returned as the storage gave them (503 ServiceUnavailable
// or 504 Timeout while etcd is unreachable), others as 500 InternalError.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if p.namespaces == nil || isNamespace(a) || a.Namespace == "" ||
		(a.Operation != admission.Create && a.Operation != admission.Update) {
		return nil
	}
	if phase, ok := p.cache.lookup(a.Namespace, time.Now()); ok {
		return refuseTerminating(a, phase)
	}
	obj, err := p.namespaces.Get(request.WithNamespace(ctx, ""), a.Namespace, &metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return apierrors.NewNotFound(namespacesResource, a.Namespace)
	case err != nil:
		if _, ok := err.(apierrors.APIStatus); ok {
			return err // e.g. 503 or 504 while etcd is unreachable, as the write itself would fail
		}
		return apierrors.NewInternalError(err)
	}
	if ns, ok := obj.(*corev1.Namespace); ok {
		return refuseTerminating(a, ns.Status.Phase)
	}
	return nil
}

// refuseTerminating refuses a create in a namespace of the Terminating phase.
func refuseTerminating(a *admission.Attributes, phase corev1.NamespacePhase) error {
	if a.Operation != admission.Create || phase != corev1.NamespaceTerminating {
		return nil
	}
	refusal := apierrors.NewForbidden(a.Resource.GroupResource(), a.Name,
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
	refusal.ErrStatus.Details.Causes = append(refusal.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
		Field:   "metadata.namespace",
	})
	return refusal
}

// errImmortal is why default, kube-system and kube-public may not be deleted, in kube's words.
var errImmortal = errors.New("this namespace may not be deleted")

// Validate refuses the deletion of an immortal namespace (403 Forbidden); the deletion of
// another namespace makes creates in it read storage for a while (see Run).
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Delete || !isNamespace(a) {
		return nil
	}
	if slices.Contains(ImmortalNamespaces, a.Name) {
		return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, errImmortal)
	}
	if !a.DryRun {
		p.cache.forceLiveLookup(a.Name, time.Now())
	}
	return nil
}
