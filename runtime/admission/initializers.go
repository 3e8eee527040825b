package admission

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resources knows the server's resources, as kube's EquivalentResourceMapper: which
// group/version/resources serve the same objects, and the kind of each (matchPolicy
// Equivalent of webhooks and policies).
type Resources interface {
	// EquivalentResourcesFor returns every resource serving the same objects as gvr (gvr
	// itself included) with the same subresource; nil when none is known.
	EquivalentResourcesFor(gvr schema.GroupVersionResource, subresource string) []schema.GroupVersionResource
	// KindFor returns the kind gvr (with subresource) serves, or the zero GVK when unknown.
	KindFor(gvr schema.GroupVersionResource, subresource string) schema.GroupVersionKind
	// ResourceFor returns the resource serving kind gvk (not a subresource), as a REST
	// mapper does for a policy's paramKind; ok is false when none does.
	ResourceFor(gvk schema.GroupVersionKind) (gvr schema.GroupVersionResource, ok bool)
}

// WantsScheme is a plugin that converts admitted objects between versions (webhooks,
// policies), as kube's plugins given ObjectInterfaces: the server calls SetScheme once,
// before serving, with its scheme and resources.
type WantsScheme interface {
	SetScheme(scheme *runtime.Scheme, resources Resources)
}

// CacheRunner is a plugin that keeps caches of stored objects (webhook configurations,
// policies), as kube's plugins read informers: the server runs RunCaches in a post-start
// hook's goroutine until it stops. A plugin must cope with requests before its caches
// synced (kube's plugins wait for them, then refuse).
type CacheRunner interface {
	RunCaches(ctx context.Context)
}
