package app

import (
	"fmt"
	"log/slog"
	"maps"

	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac/policybased"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
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
}

// newRBACAPI returns the rbacAPI of info, the group rbacinstall built, and policy, its
// policy.
func newRBACAPI(info *registry.APIGroupInfo, policy *rbac.StoragePolicy) *rbacAPI {
	unguarded := *info
	unguarded.VersionedResourcesStorageMap = map[string]map[string]rest.Storage{"v1": maps.Clone(info.VersionedResourcesStorageMap["v1"])}
	return &rbacAPI{info: info, policy: policy, unguarded: &unguarded}
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
