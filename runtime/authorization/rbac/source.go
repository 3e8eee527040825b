package rbac

import (
	"context"
	"fmt"
	"sync"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// DefaultPolicyTTL is how long StoragePolicy reuses what it read before it reads again: a
// change to roles or bindings applies within about that long.
const DefaultPolicyTTL = time.Second

// readTimeout bounds one read of the policy.
const readTimeout = 5 * time.Second

// StoragePolicy is the PolicySource of the served RBAC API: it lists Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings through their stores, standing in for kube-apiserver's
// informer-fed RBAC authorizer: once read, the policy is served from memory, and read again
// in the background when older than the TTL, so an unavailable etcd never holds up a
// request's authorization (the last policy read stays in force). Safe for concurrent use.
type StoragePolicy struct {
	roles, clusterRoles, roleBindings, clusterRoleBindings rest.Lister
	ttl                                                    time.Duration

	mu         sync.Mutex
	cached     *Policy
	at         time.Time
	refreshing bool
	now        func() time.Time
}

// NewStoragePolicy reads the policy through the stores of info, the group
// runtime/apis/rbac/v1/install builds; ttl <= 0 means DefaultPolicyTTL.
// Errors: info lacks one of the four resources.
func NewStoragePolicy(info *registry.APIGroupInfo, ttl time.Duration) (*StoragePolicy, error) {
	if ttl <= 0 {
		ttl = DefaultPolicyTTL
	}
	p := &StoragePolicy{ttl: ttl, now: time.Now}
	stores := info.VersionedResourcesStorageMap["v1"]
	for name, dst := range map[string]*rest.Lister{"roles": &p.roles, "clusterroles": &p.clusterRoles,
		"rolebindings": &p.roleBindings, "clusterrolebindings": &p.clusterRoleBindings} {
		l, ok := stores[name].(rest.Lister)
		if !ok {
			return nil, fmt.Errorf("the RBAC group serves no %s", name)
		}
		*dst = l
	}
	return p, nil
}

// Policy implements PolicySource: the policy in memory, refreshed in the background when
// older than the TTL; the first call reads it (within 5s). Errors: the first read failing.
func (p *StoragePolicy) Policy(ctx context.Context) (*Policy, error) {
	p.mu.Lock()
	cached := p.cached
	if cached != nil && p.now().Sub(p.at) >= p.ttl && !p.refreshing {
		p.refreshing = true
		go p.refresh()
	}
	p.mu.Unlock()
	if cached != nil {
		return cached, nil
	}
	return p.Current(ctx)
}

// Current reads the policy from storage now (within 5s) and keeps it as the one in memory, as
// kube's escalation checks read roles and bindings from storage rather than a cache: a role
// created a moment ago can be bound at once. Errors: the read failing (the policy in memory
// stays).
func (p *StoragePolicy) Current(ctx context.Context) (*Policy, error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	policy, err := p.read(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cached, p.at = policy, p.now()
	return policy, nil
}

// refresh reads the policy again; on failure the last one stays, and the next call after the
// TTL tries again.
func (p *StoragePolicy) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	policy, err := p.read(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refreshing = false
	p.at = p.now()
	if err == nil {
		p.cached = policy
	}
}

// read lists the four resources in every namespace.
func (p *StoragePolicy) read(ctx context.Context) (*Policy, error) {
	list := func(l rest.Lister) (runtime.Object, error) {
		return l.List(ctx, &metainternalversion.ListOptions{})
	}
	out := &Policy{}
	obj, err := list(p.roles)
	if err != nil {
		return nil, err
	}
	for _, r := range obj.(*rbacv1.RoleList).Items {
		out.Roles = append(out.Roles, Role{Namespace: r.Namespace, Name: r.Name, Rules: Rules(r.Rules)})
	}
	if obj, err = list(p.clusterRoles); err != nil {
		return nil, err
	}
	for _, r := range obj.(*rbacv1.ClusterRoleList).Items {
		out.Roles = append(out.Roles, Role{Name: r.Name, Rules: Rules(r.Rules)})
	}
	if obj, err = list(p.roleBindings); err != nil {
		return nil, err
	}
	for _, b := range obj.(*rbacv1.RoleBindingList).Items {
		out.Bindings = append(out.Bindings, Binding{Namespace: b.Namespace, Name: b.Name,
			RoleRef: RoleRef{Kind: b.RoleRef.Kind, Name: b.RoleRef.Name}, Subjects: subjects(b.Subjects)})
	}
	if obj, err = list(p.clusterRoleBindings); err != nil {
		return nil, err
	}
	for _, b := range obj.(*rbacv1.ClusterRoleBindingList).Items {
		out.Bindings = append(out.Bindings, Binding{Name: b.Name,
			RoleRef: RoleRef{Kind: b.RoleRef.Kind, Name: b.RoleRef.Name}, Subjects: subjects(b.Subjects)})
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
