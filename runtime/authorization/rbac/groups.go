package rbac

import (
	"slices"
	"strings"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// GroupClusterRoles returns, for each group of infos (the server's own API groups), the
// ClusterRoles that add its resources to the default roles, one rule per set of verbs:
//
//   - system:aggregate-to-view:<group>, labelled AggregateToView: the read verbs (get, list,
//     watch) each resource, status and scale subresource serves;
//   - system:aggregate-to-edit:<group>, labelled AggregateToEdit: the write verbs (create,
//     update, patch, delete, deletecollection) each namespaced resource and its scale
//     subresource serve. Status subresources are the controllers' and cluster-scoped
//     resources the cluster admin's, as in Kubernetes' edit role.
//
// So view lets a user read the group's objects and edit (and admin) also change them.
// Verbs are those the storage implements (the rest interfaces), as discovery lists them.
func GroupClusterRoles(infos ...*registry.APIGroupInfo) []rbacv1.ClusterRole {
	var out []rbacv1.ClusterRole
	for _, info := range infos {
		read, write := map[string][]string{}, map[string][]string{} // resource path -> verbs
		for _, stores := range info.VersionedResourcesStorageMap {
			for path, s := range stores {
				main, sub, _ := strings.Cut(path, "/")
				verbs := storageVerbs(s, sub != "")
				read[path] = union(read[path], intersect(verbs, ReadVerbs))
				if scoper, ok := stores[main].(rest.Scoper); ok && scoper.NamespaceScoped() && sub != "status" {
					write[path] = union(write[path], intersect(verbs, WriteVerbs))
				}
			}
		}
		for _, r := range []struct {
			aggregate, label string
			verbs            map[string][]string
		}{{"view", AggregateToView, read}, {"edit", AggregateToEdit, write}} {
			if rules := rulesByVerbs(info.Group, r.verbs); len(rules) > 0 {
				out = append(out, defaultRole("system:aggregate-to-"+r.aggregate+":"+info.Group, map[string]string{r.label: "true"}, rules...))
			}
		}
	}
	return out
}

// storageVerbs lists the verbs s serves, as the endpoints installer does (list, create,
// deletecollection and watch only on a main resource).
func storageVerbs(s rest.Storage, sub bool) []string {
	var verbs []string
	add := func(ok bool, vs ...string) {
		if ok {
			verbs = append(verbs, vs...)
		}
	}
	_, get := s.(rest.Getter)
	_, list := s.(rest.Lister)
	_, watch := s.(rest.Watcher)
	_, create := s.(rest.Creater)
	_, update := s.(rest.Updater)
	_, del := s.(rest.GracefulDeleter)
	_, delCollection := s.(rest.CollectionDeleter)
	add(get, "get")
	add(list && !sub, "list")
	add(watch && !sub, "watch")
	add(create && !sub, "create")
	add(update, "update", "patch")
	add(del, "delete")
	add(delCollection && !sub, "deletecollection")
	return verbs
}

// rulesByVerbs groups resource paths with the same verbs into one rule each, sorted by verbs.
func rulesByVerbs(group string, verbs map[string][]string) []rbacv1.PolicyRule {
	byVerbs := map[string][]string{}
	for path, vs := range verbs {
		if len(vs) > 0 {
			key := strings.Join(vs, ",")
			byVerbs[key] = append(byVerbs[key], path)
		}
	}
	keys := make([]string, 0, len(byVerbs))
	for k := range byVerbs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rules := make([]rbacv1.PolicyRule, 0, len(keys))
	for _, k := range keys {
		paths := byVerbs[k]
		slices.Sort(paths)
		rules = append(rules, rbacv1.PolicyRule{Verbs: strings.Split(k, ","), APIGroups: []string{group}, Resources: paths})
	}
	return rules
}

// intersect returns the verbs of set that verbs holds, in set's order.
func intersect(verbs, set []string) []string {
	var out []string
	for _, v := range set {
		if slices.Contains(verbs, v) {
			out = append(out, v)
		}
	}
	return out
}

// union returns a with the verbs of b it lacks appended, in the order of ReadVerbs then
// WriteVerbs.
func union(a, b []string) []string {
	all := append(append([]string(nil), ReadVerbs...), WriteVerbs...)
	var out []string
	for _, v := range all {
		if slices.Contains(a, v) || slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}
