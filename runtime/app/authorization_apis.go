package app

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac/aggregation"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac/policybased"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/server"
)

// rbacAPI is the served RBAC group (rbac.authorization.k8s.io/v1) between its two steps of
// wiring in buildServer: serveRBAC adds it with the generated Stores, so that buildAdmission
// sets the admission chain on them; guard then serves them through the escalation checks.
type rbacAPI struct {
	info   *registry.APIGroupInfo
	policy *rbac.StoragePolicy
	// unguarded serves the generated Stores, for the server's own writers (bootstrap,
	// aggregation controller), which the escalation checks do not apply to.
	unguarded *registry.APIGroupInfo
	// own are the server's own groups, whose resources join the default roles.
	own []*registry.APIGroupInfo
}

// newRBACAPI returns the rbacAPI of info, the group rbacinstall built, policy, its policy,
// and own, the server's own groups.
func newRBACAPI(info *registry.APIGroupInfo, policy *rbac.StoragePolicy, own []*registry.APIGroupInfo) *rbacAPI {
	unguarded := *info
	unguarded.VersionedResourcesStorageMap = map[string]map[string]rest.Storage{"v1": maps.Clone(info.VersionedResourcesStorageMap["v1"])}
	return &rbacAPI{info: info, policy: policy, unguarded: &unguarded, own: slices.Clone(own)}
}

// install adds the post-start hooks "rbac/bootstrap-roles" (the default roles and bindings
// and the own groups' aggregated roles, created or reconciled) and
// "start-clusterrole-aggregation-controller". r may be nil (RBAC off).
func (r *rbacAPI) install(srv *server.Server, log *slog.Logger) error {
	if r == nil {
		return nil
	}
	stores, err := rbac.StoresOf(r.unguarded)
	if err != nil {
		return err
	}
	roles := append(rbac.DefaultClusterRoles(), rbac.GroupClusterRoles(r.own...)...)
	if err := srv.AddPostStartHook("rbac/bootstrap-roles", func(ctx context.Context) error {
		return rbac.EnsureBootstrap(ctx, stores, roles, rbac.DefaultClusterRoleBindings())
	}); err != nil {
		return err
	}
	clusterRoles, ok := r.unguarded.VersionedResourcesStorageMap["v1"]["clusterroles"].(aggregation.ClusterRoles)
	if !ok {
		return fmt.Errorf("the RBAC group's clusterroles cannot be watched and updated")
	}
	controller := aggregation.NewController(clusterRoles, log)
	return srv.AddPostStartHook("start-clusterrole-aggregation-controller", func(ctx context.Context) error {
		go controller.Run(ctx)
		return nil
	})
}

// guard serves roles, clusterroles, rolebindings and clusterrolebindings through
// policybased's escalation and bind checks, which ask z (the server's authorizer) for the
// escalate and bind verbs. r may be nil (RBAC off). Errors: a resource not served by a
// registry.Store.
func (r *rbacAPI) guard(z authorization.Authorizer, log *slog.Logger) error {
	if r == nil {
		return nil
	}
	stores := r.info.VersionedResourcesStorageMap["v1"]
	raw := map[string]*registry.Store{}
	for _, name := range []string{"roles", "clusterroles", "rolebindings", "clusterrolebindings"} {
		s, ok := stores[name].(*registry.Store)
		if !ok {
			return fmt.Errorf("cannot guard the RBAC API: %s is not served by a registry.Store", name)
		}
		raw[name] = s
	}
	stores["roles"] = policybased.NewRoles(raw["roles"], z, r.policy, log)
	stores["clusterroles"] = policybased.NewClusterRoles(raw["clusterroles"], z, r.policy, log)
	stores["rolebindings"] = policybased.NewRoleBindings(raw["rolebindings"], z, r.policy, log)
	stores["clusterrolebindings"] = policybased.NewClusterRoleBindings(raw["clusterrolebindings"], z, r.policy, log)
	return nil
}
