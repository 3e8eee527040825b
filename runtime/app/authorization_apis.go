package app

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	authenticationinstall "github.com/apigen-dev/apigen/runtime/apis/authentication/v1/install"
	authorizationinstall "github.com/apigen-dev/apigen/runtime/apis/authorization/v1/install"
	"github.com/apigen-dev/apigen/runtime/auth"
	authnreview "github.com/apigen-dev/apigen/runtime/auth/review"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac/aggregation"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac/policybased"
	authzreview "github.com/apigen-dev/apigen/runtime/authorization/review"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/server"
)

// rbacAPI is the served RBAC group (rbac.authorization.k8s.io/v1) between its two entries of
// the built-in table (builtin.go): serveRBAC returns it with the generated Stores, so that
// buildAdmission sets the admission chain on them; guard then serves them through the
// escalation checks.
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

// install adds the post-start hooks "start-rbac-informers" (the authorizer's watches of
// roles and bindings, ready once each has listed; every replica runs its own, as
// kube-apiserver's informers), "rbac/bootstrap-roles" (the default roles and bindings, the
// own groups' aggregated roles and the namespaced default roles, created or reconciled) and
// "start-clusterrole-aggregation-controller". r may be nil (RBAC off).
func (r *rbacAPI) install(srv *server.Server, log *slog.Logger, singles *singletons) error {
	if r == nil {
		return nil
	}
	if err := srv.AddPostStartHook("start-rbac-informers", func(ctx context.Context) error {
		r.policy.Run(ctx)
		return nil
	}); err != nil {
		return err
	}
	stores, err := rbac.StoresOf(r.unguarded)
	if err != nil {
		return err
	}
	roles := append(rbac.DefaultClusterRoles(), rbac.GroupClusterRoles(r.own...)...)
	if err := srv.AddPostStartHook("rbac/bootstrap-roles", func(ctx context.Context) error {
		if err := rbac.EnsureBootstrap(ctx, stores, roles, rbac.DefaultClusterRoleBindings()); err != nil {
			return err
		}
		return ensureBootstrapRoles(ctx, stores, log)
	}); err != nil {
		return err
	}
	clusterRoles, ok := r.unguarded.VersionedResourcesStorageMap["v1"]["clusterroles"].(aggregation.ClusterRoles)
	if !ok {
		return fmt.Errorf("the RBAC group's clusterroles cannot be watched and updated")
	}
	singles.add("clusterrole-aggregation-controller", aggregation.NewController(clusterRoles, log).Run)
	return nil
}

// ensureBootstrapRoles creates or reconciles the namespaced default roles (rbac.DefaultRoles,
// in kube-system), retrying every second while their namespace does not exist yet (the system
// namespaces hook creates kube-system; kube-apiserver's hook creates the namespace itself).
// Errors: another failure, or ctx ending first.
func ensureBootstrapRoles(ctx context.Context, stores *rbac.RBACStores, log *slog.Logger) error {
	for {
		err := rbac.EnsureBootstrapRoles(ctx, stores, rbac.DefaultRoles())
		if err == nil || !apierrors.IsNotFound(err) {
			return err
		}
		log.Info("cannot create the bootstrap roles yet; retrying", "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
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

// serveReviews returns authorization.k8s.io/v1 (SubjectAccessReview, LocalSubjectAccessReview,
// SelfSubjectAccessReview, SelfSubjectRulesReview, answered by authorizer, the server's) and
// authentication.k8s.io/v1 (TokenReview, answered by authenticator; SelfSubjectReview) to
// serve when serving securely (nil with --plain-http), as kube-apiserver serves them;
// generated by apigen from runtime/apis.
func serveReviews(o *SecureOptions, authenticator auth.Authenticator, authorizer authorization.Authorizer, scheme *runtime.Scheme,
	factory registry.StorageFactory) ([]*registry.APIGroupInfo, error) {
	if o.PlainHTTP {
		return nil, nil
	}
	authz, err := authorizationinstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		return nil, fmt.Errorf("cannot build the authorization.k8s.io API: %w", err)
	}
	if err := authzreview.Install(authz, authorizer); err != nil {
		return nil, err
	}
	authn, err := authenticationinstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		return nil, fmt.Errorf("cannot build the authentication.k8s.io API: %w", err)
	}
	if err := authnreview.Install(authn, authenticator); err != nil {
		return nil, err
	}
	return []*registry.APIGroupInfo{authz, authn}, nil
}
