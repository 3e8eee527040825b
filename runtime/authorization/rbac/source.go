package rbac

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	policy, err := p.read(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cached == nil {
		p.cached, p.at = policy, p.now()
	}
	return p.cached, nil
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

// EnsureBootstrap creates the Bootstrap policy's ClusterRoles and ClusterRoleBindings through
// the stores of info when they do not exist, as kube-apiserver's rbac/bootstrap-roles
// post-start hook; existing ones are left as they are. Errors: a create failing for another
// reason than AlreadyExists.
func EnsureBootstrap(ctx context.Context, info *registry.APIGroupInfo) error {
	stores := info.VersionedResourcesStorageMap["v1"]
	roles, ok1 := stores["clusterroles"].(rest.Creater)
	bindings, ok2 := stores["clusterrolebindings"].(rest.Creater)
	if !ok1 || !ok2 {
		return fmt.Errorf("the RBAC group serves no clusterroles or clusterrolebindings")
	}
	b := Bootstrap()
	create := func(c rest.Creater, obj runtime.Object) error {
		if _, err := c.Create(ctx, obj, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}}
	}
	for _, r := range b.Roles {
		cr := &rbacv1.ClusterRole{ObjectMeta: meta(r.Name)}
		for _, rule := range r.Rules {
			cr.Rules = append(cr.Rules, rbacv1.PolicyRule{Verbs: rule.Verbs, APIGroups: rule.APIGroups, Resources: rule.Resources,
				ResourceNames: rule.ResourceNames, NonResourceURLs: rule.NonResourceURLs})
		}
		if err := create(roles, cr); err != nil {
			return fmt.Errorf("cannot create ClusterRole %s: %w", r.Name, err)
		}
	}
	for _, bd := range b.Bindings {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: meta(bd.Name),
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: bd.RoleRef.Kind, Name: bd.RoleRef.Name}}
		for _, s := range bd.Subjects {
			crb.Subjects = append(crb.Subjects, rbacv1.Subject{Kind: s.Kind, APIGroup: "rbac.authorization.k8s.io", Name: s.Name})
		}
		if err := create(bindings, crb); err != nil {
			return fmt.Errorf("cannot create ClusterRoleBinding %s: %w", bd.Name, err)
		}
	}
	return nil
}
