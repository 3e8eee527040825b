package aggregation

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// FieldManager is the field manager of the controller's writes, kube's controller's name.
const FieldManager = "clusterrole-aggregation-controller"

// retryInterval is how long the controller waits before listing again after its watch failed.
const retryInterval = time.Second

// ClusterRoles is the storage the controller reads and writes: the unguarded Store of
// clusterroles (runtime/apis/rbac/v1).
type ClusterRoles interface {
	rest.Lister
	rest.Watcher
	rest.Updater
}

// Controller keeps aggregated ClusterRoles' rules current. Run it once.
type Controller struct {
	roles ClusterRoles
	log   *slog.Logger
	// seen holds the ClusterRoles by name, as last listed or watched.
	seen map[string]*rbacv1.ClusterRole
}

// NewController returns a controller over roles; log (may be nil) receives write failures.
func NewController(roles ClusterRoles, log *slog.Logger) *Controller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{roles: roles, log: log}
}

// Run lists and watches ClusterRoles until ctx ends, syncing after the list and after every
// event; after a failed list or watch it starts again a second later.
func (c *Controller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := c.watchOnce(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("clusterrole aggregation: watch failed", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(retryInterval):
		}
	}
}

// watchOnce lists, syncs, then syncs on every watch event until the watch ends.
func (c *Controller) watchOnce(ctx context.Context) error {
	obj, err := c.roles.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	list := obj.(*rbacv1.ClusterRoleList)
	c.seen = map[string]*rbacv1.ClusterRole{}
	for i := range list.Items {
		c.seen[list.Items[i].Name] = &list.Items[i]
	}
	c.syncAll(ctx)
	w, err := c.roles.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: list.ResourceVersion, Watch: true})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			role, isRole := ev.Object.(*rbacv1.ClusterRole)
			switch {
			case ev.Type == watch.Error:
				return apierrors.FromObject(ev.Object)
			case !isRole:
				continue // a bookmark
			case ev.Type == watch.Deleted:
				delete(c.seen, role.Name)
			default:
				c.seen[role.Name] = role
			}
			c.syncAll(ctx)
		}
	}
}

// syncAll writes every aggregated ClusterRole whose rules differ from what its selectors
// gather now, in name order.
func (c *Controller) syncAll(ctx context.Context) {
	names := make([]string, 0, len(c.seen))
	for name, r := range c.seen {
		if r.AggregationRule != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		role := c.seen[name]
		rules, err := Aggregate(role, c.seen)
		if err != nil {
			c.log.Warn("clusterrole aggregation: bad selector", "clusterrole", name, "err", err)
			continue
		}
		if equality.Semantic.DeepEqual(rules, role.Rules) {
			continue
		}
		if err := c.write(ctx, name, rules); err != nil {
			c.log.Warn("clusterrole aggregation: cannot update", "clusterrole", name, "err", err)
		}
	}
}

// write sets the rules of the ClusterRole name as it is stored now.
func (c *Controller) write(ctx context.Context, name string, rules []rbacv1.PolicyRule) error {
	set := updateFunc(func(_ context.Context, old runtime.Object) (runtime.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound(rbacv1.SchemeGroupVersion.WithResource("clusterroles").GroupResource(), name)
		}
		r := old.DeepCopyObject().(*rbacv1.ClusterRole)
		r.Rules = rules
		return r, nil
	})
	_, _, err := c.roles.Update(ctx, name, set, false, &metav1.UpdateOptions{FieldManager: FieldManager})
	return err
}

// Aggregate returns the rules role's aggregationRule gathers from roles (by name), as kube's
// syncClusterRole: selector by selector, the matching roles other than role in name order,
// each rule not gathered yet (semantically equal) appended. Errors: a selector that is not a
// valid label selector.
func Aggregate(role *rbacv1.ClusterRole, roles map[string]*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	names := make([]string, 0, len(roles))
	for name := range roles {
		names = append(names, name)
	}
	slices.Sort(names)
	out := []rbacv1.PolicyRule{}
	for i := range role.AggregationRule.ClusterRoleSelectors {
		selector, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			other := roles[name]
			if name == role.Name || !selector.Matches(labels.Set(other.Labels)) {
				continue
			}
			for _, rule := range other.Rules {
				if !slices.ContainsFunc(out, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, rule) }) {
					out = append(out, rule)
				}
			}
		}
	}
	return out, nil
}

// updateFunc adapts a function to rest.UpdatedObjectInfo.
type updateFunc func(ctx context.Context, old runtime.Object) (runtime.Object, error)

// UpdatedObject implements rest.UpdatedObjectInfo.
func (f updateFunc) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	return f(ctx, old)
}
