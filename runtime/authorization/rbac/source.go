package rbac

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission/informer"
	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
)

// readTimeout bounds one read of the policy from storage.
const readTimeout = 5 * time.Second

// resources are the four RBAC resources the policy is read from, in the order a Policy lists
// them: Roles then ClusterRoles, RoleBindings then ClusterRoleBindings.
var resources = [4]string{"roles", "clusterroles", "rolebindings", "clusterrolebindings"}

// StoragePolicy is the PolicySource of the served RBAC API, as kube-apiserver's RBAC
// authorizer reads its informers: once Run, it follows Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings through one list and watch each (informer.Cache over their stores, so
// over the watch cache when the server has one), and every decision uses the policy as of
// the last event each watch delivered: a grant or revocation applies to the next request
// once the watch has delivered its write (milliseconds), however long nothing changed
// before. While a watch is not following its storage (before Run, before the first list,
// or after a broken watch until the list that follows) the policy is read from storage for
// each request instead, so it is never older than storage. Safe for concurrent use.
type StoragePolicy struct {
	sources [4]informer.Source
	caches  [4]*informer.Cache

	// built is the policy made from the caches and the generations it was made at.
	built atomic.Pointer[builtPolicy]
	mu    sync.Mutex // held while building from the caches
}

// builtPolicy is a policy made from the caches when their generations were gens.
type builtPolicy struct {
	gens   [4]uint64
	policy *Policy
}

// NewStoragePolicy reads the policy through the stores of info, the group
// runtime/apis/rbac/v1/install builds; it reads storage for every request until Run.
// Errors: info lacks one of the four resources, or one cannot be listed and watched.
func NewStoragePolicy(info *registry.APIGroupInfo) (*StoragePolicy, error) {
	p := &StoragePolicy{}
	stores := info.VersionedResourcesStorageMap["v1"]
	for i, name := range resources {
		s, ok := stores[name].(informer.Source)
		if !ok {
			return nil, fmt.Errorf("the RBAC group serves no %s that can be listed and watched", name)
		}
		p.sources[i], p.caches[i] = s, informer.New(s)
	}
	return p, nil
}

// Run follows the four resources until ctx ends (a failed list or an ended watch is retried
// after informer.RelistInterval). It returns once every cache has read its first list, or
// ctx ended; the caches keep running in the background.
func (p *StoragePolicy) Run(ctx context.Context) {
	for _, c := range p.caches {
		go c.Run(ctx)
	}
	for _, c := range p.caches {
		c.WaitForSync(ctx)
	}
}

// Policy implements PolicySource: the policy of the caches, as of the last event each watch
// delivered, while all four follow their storage; else the policy read from storage now
// (within 5s). Errors: that read failing.
func (p *StoragePolicy) Policy(ctx context.Context) (*Policy, error) {
	for _, c := range p.caches {
		if !c.Watching() {
			return p.Current(ctx)
		}
	}
	var gens [4]uint64
	for i, c := range p.caches {
		gens[i] = c.Generation()
	}
	if b := p.built.Load(); b != nil && b.gens == gens {
		return b.policy, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if b := p.built.Load(); b != nil && b.gens == gens {
		return b.policy, nil
	}
	// The generations are read before the objects: a change applied in between makes the
	// next call build again, never serve an older policy under newer generations.
	var lists [4][]runtime.Object
	for i, c := range p.caches {
		lists[i] = c.List()
	}
	policy, err := policyOf(lists)
	if err != nil {
		return nil, err
	}
	p.built.Store(&builtPolicy{gens: gens, policy: policy})
	return policy, nil
}

// Current reads the policy from storage now (within 5s), as kube's escalation checks read
// roles and bindings from storage rather than a cache: a role created a moment ago can be
// bound at once. Errors: the read failing.
func (p *StoragePolicy) Current(ctx context.Context) (*Policy, error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	var lists [4][]runtime.Object
	for i, s := range p.sources {
		obj, err := s.List(ctx, &metainternalversion.ListOptions{})
		if err != nil {
			return nil, err
		}
		if lists[i], err = meta.ExtractList(obj); err != nil {
			return nil, err
		}
	}
	return policyOf(lists)
}

// policyOf makes the policy of the objects of the four resources, in the order of resources.
// Errors: an object of another type.
func policyOf(lists [4][]runtime.Object) (*Policy, error) {
	out := &Policy{}
	for _, list := range lists {
		for _, obj := range list {
			switch o := obj.(type) {
			case *rbacv1.Role:
				out.Roles = append(out.Roles, Role{Namespace: o.Namespace, Name: o.Name, Rules: Rules(o.Rules)})
			case *rbacv1.ClusterRole:
				out.Roles = append(out.Roles, Role{Name: o.Name, Rules: Rules(o.Rules)})
			case *rbacv1.RoleBinding:
				out.Bindings = append(out.Bindings, Binding{Namespace: o.Namespace, Name: o.Name,
					RoleRef: RoleRef{Kind: o.RoleRef.Kind, Name: o.RoleRef.Name}, Subjects: subjects(o.Subjects)})
			case *rbacv1.ClusterRoleBinding:
				out.Bindings = append(out.Bindings, Binding{Name: o.Name,
					RoleRef: RoleRef{Kind: o.RoleRef.Kind, Name: o.RoleRef.Name}, Subjects: subjects(o.Subjects)})
			default:
				return nil, fmt.Errorf("unexpected RBAC object %T", obj)
			}
		}
	}
	return out, nil
}

// Rules converts served rules (runtime/apis/rbac/v1) to the evaluation's.
func Rules(in []rbacv1.PolicyRule) []PolicyRule {
	out := make([]PolicyRule, len(in))
	for i, r := range in {
		out[i] = PolicyRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources,
			ResourceNames: r.ResourceNames, NonResourceURLs: r.NonResourceURLs}
	}
	return out
}

func subjects(in []rbacv1.Subject) []Subject {
	out := make([]Subject, len(in))
	for i, s := range in {
		out[i] = Subject{Kind: s.Kind, Name: s.Name, Namespace: s.Namespace}
	}
	return out
}
