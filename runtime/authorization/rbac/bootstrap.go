package rbac

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/request"
)

// The labels and annotation of Kubernetes' default roles.
const (
	// AggregateToAdmin, AggregateToEdit and AggregateToView, set to "true" on a ClusterRole,
	// add its rules to admin, edit and view (through their aggregationRules).
	AggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
	// BootstrappingLabel is "rbac-defaults" on every default role and binding.
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	// AutoUpdateAnnotation "false" keeps EnsureBootstrap from reconciling a default object.
	AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
)

// Verb sets of Kubernetes' bootstrap policy.
var (
	// ReadVerbs are get, list and watch.
	ReadVerbs = []string{"get", "list", "watch"}
	// WriteVerbs are create, update, patch, delete and deletecollection.
	WriteVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}
)

// DefaultClusterRoles are the ClusterRoles of kube-apiserver's bootstrap policy that apigen's
// runtime has resources for: cluster-admin (everything); system:discovery and
// system:public-info-viewer (the discovery, OpenAPI, health and version paths);
// system:basic-user (a user's reviews of themselves: SelfSubjectAccessReview,
// SelfSubjectRulesReview, SelfSubjectReview); system:auth-delegator (TokenReviews and
// SubjectAccessReviews, for a server delegating authentication and authorization to this
// one; bound to no one); admin, edit and view, aggregated from the
// ClusterRoles labelled AggregateToAdmin, AggregateToEdit and AggregateToView (view is
// labelled to aggregate into edit, edit into admin); system:aggregate-to-admin (roles and
// rolebindings, LocalSubjectAccessReviews), system:aggregate-to-edit (writing configmaps) and
// system:aggregate-to-view (reading configmaps, events and namespaces: kube's view reads core
// events, not events.k8s.io's).
// The server's own resources join view and edit through GroupClusterRoles.
func DefaultClusterRoles() []rbacv1.ClusterRole {
	rw := append(append([]string(nil), ReadVerbs...), WriteVerbs...)
	return []rbacv1.ClusterRole{
		defaultRole("cluster-admin", nil,
			rbacv1.PolicyRule{Verbs: []string{All}, APIGroups: []string{All}, Resources: []string{All}},
			rbacv1.PolicyRule{Verbs: []string{All}, NonResourceURLs: []string{All}}),
		defaultRole("system:discovery", nil, rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{
			"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}}),
		defaultRole("system:public-info-viewer", nil, rbacv1.PolicyRule{Verbs: []string{"get"},
			NonResourceURLs: []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}}),
		defaultRole("system:basic-user", nil,
			rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
			rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}}),
		defaultRole("system:auth-delegator", nil,
			rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}},
			rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}}),
		aggregatedRole("admin", nil, AggregateToAdmin),
		aggregatedRole("edit", map[string]string{AggregateToAdmin: "true"}, AggregateToEdit),
		aggregatedRole("view", map[string]string{AggregateToEdit: "true"}, AggregateToView),
		defaultRole("system:aggregate-to-admin", map[string]string{AggregateToAdmin: "true"},
			rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"localsubjectaccessreviews"}},
			rbacv1.PolicyRule{Verbs: rw, APIGroups: []string{GroupName}, Resources: []string{"rolebindings", "roles"}}),
		defaultRole("system:aggregate-to-edit", map[string]string{AggregateToEdit: "true"},
			rbacv1.PolicyRule{Verbs: WriteVerbs, APIGroups: []string{""}, Resources: []string{"configmaps"}}),
		defaultRole("system:aggregate-to-view", map[string]string{AggregateToView: "true"},
			rbacv1.PolicyRule{Verbs: ReadVerbs, APIGroups: []string{""}, Resources: []string{"configmaps", "events", "namespaces"}}),
	}
}

// ExtensionAPIServerAuthenticationReader is the Role of kube-apiserver's bootstrap policy in
// kube-system that lets a delegating (aggregated) API server read the ConfigMap
// kube-system/extension-apiserver-authentication, where the server publishes its client CAs
// and front-proxy configuration; such servers bind their service account to it.
const ExtensionAPIServerAuthenticationReader = "extension-apiserver-authentication-reader"

// DefaultRoles are the namespaced Roles of kube-apiserver's bootstrap policy (its
// NamespaceRoles) that apigen's runtime has resources for: ExtensionAPIServerAuthenticationReader
// in kube-system (get, list and watch of the configmap extension-apiserver-authentication).
func DefaultRoles() []rbacv1.Role {
	return []rbacv1.Role{
		{ObjectMeta: namespacedMeta(metav1.NamespaceSystem, ExtensionAPIServerAuthenticationReader), Rules: []rbacv1.PolicyRule{
			{Verbs: ReadVerbs, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"extension-apiserver-authentication"}},
		}},
	}
}

// namespacedMeta is defaultMeta in namespace.
func namespacedMeta(namespace, name string) metav1.ObjectMeta {
	m := defaultMeta(name, nil)
	m.Namespace = namespace
	return m
}

// DefaultClusterRoleBindings are the bootstrap bindings of DefaultClusterRoles, as
// kube-apiserver's: cluster-admin to system:masters, system:discovery and system:basic-user
// to system:authenticated, system:public-info-viewer to system:authenticated and
// system:unauthenticated.
func DefaultClusterRoleBindings() []rbacv1.ClusterRoleBinding {
	group := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: "Group", APIGroup: GroupName, Name: name}
	}
	bind := func(role string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
		return rbacv1.ClusterRoleBinding{ObjectMeta: defaultMeta(role, nil),
			RoleRef: rbacv1.RoleRef{APIGroup: GroupName, Kind: "ClusterRole", Name: role}, Subjects: subjects}
	}
	return []rbacv1.ClusterRoleBinding{
		bind("cluster-admin", group(request.SystemPrivilegedGroup)),
		bind("system:discovery", group(request.AllAuthenticated)),
		bind("system:basic-user", group(request.AllAuthenticated)),
		bind("system:public-info-viewer", group(request.AllAuthenticated), group(request.AllUnauthenticated)),
	}
}

// defaultMeta is the metadata of a default object: labels plus BootstrappingLabel, and
// AutoUpdateAnnotation "true".
func defaultMeta(name string, labels map[string]string) metav1.ObjectMeta {
	l := map[string]string{BootstrappingLabel: "rbac-defaults"}
	for k, v := range labels {
		l[k] = v
	}
	return metav1.ObjectMeta{Name: name, Labels: l, Annotations: map[string]string{AutoUpdateAnnotation: "true"}}
}

func defaultRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: defaultMeta(name, labels), Rules: rules}
}

// aggregatedRole is a ClusterRole gathering those labelled selectLabel "true".
func aggregatedRole(name string, labels map[string]string, selectLabel string) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: defaultMeta(name, labels), AggregationRule: &rbacv1.AggregationRule{
		ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{selectLabel: "true"}}}}}
}

// Bootstrap is the default policy as the evaluation sees it (DefaultClusterRoles,
// DefaultRoles and DefaultClusterRoleBindings), for a StaticPolicy. Aggregated roles (admin,
// edit, view) carry no rules here: the aggregation controller writes them into the stored
// roles.
func Bootstrap() *Policy {
	p := &Policy{}
	for _, r := range DefaultClusterRoles() {
		p.Roles = append(p.Roles, Role{Name: r.Name, Rules: Rules(r.Rules)})
	}
	for _, r := range DefaultRoles() {
		p.Roles = append(p.Roles, Role{Namespace: r.Namespace, Name: r.Name, Rules: Rules(r.Rules)})
	}
	for _, b := range DefaultClusterRoleBindings() {
		p.Bindings = append(p.Bindings, Binding{Name: b.Name, RoleRef: RoleRef{Kind: b.RoleRef.Kind, Name: b.RoleRef.Name},
			Subjects: subjects(b.Subjects)})
	}
	return p
}
