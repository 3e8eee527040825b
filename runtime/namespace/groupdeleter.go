package namespace

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// GroupContentDeleter is the ContentDeleter of a server's typed API groups: it deletes the
// objects of every namespaced resource of its groups (subresources aside, each resource once
// whatever the number of versions serving it) with the resource's rest.CollectionDeleter, as
// the deletecollection handler calls it, then counts what is left with its rest.Lister.
// Objects with finalizers stay (marked deleted) and are counted until their finalizers go.
type GroupContentDeleter struct {
	resources []namespacedResource
}

// namespacedResource is one resource a GroupContentDeleter empties.
type namespacedResource struct {
	name    string // "databases.db.example.com"
	deleter rest.CollectionDeleter
	lister  rest.Lister
}

var _ ContentDeleter = (*GroupContentDeleter)(nil)

// NewGroupContentDeleter returns the deleter of groups' namespaced resources; a resource
// whose storage is not a rest.CollectionDeleter and a rest.Lister, or whose group does not
// allow deletecollection and list on it (APIGroupInfo.Allows: a read-only computed resource),
// is skipped, as kube's namespace controller skips what discovery says it cannot delete.
func NewGroupContentDeleter(groups ...*registry.APIGroupInfo) *GroupContentDeleter {
	d := &GroupContentDeleter{}
	for _, info := range groups {
		seen := map[string]bool{}
		for _, gv := range info.PrioritizedVersions {
			storages := info.VersionedResourcesStorageMap[gv.Version]
			for _, path := range slices.Sorted(maps.Keys(storages)) {
				s := storages[path]
				if strings.Contains(path, "/") || seen[path] {
					continue
				}
				scoper, scoped := s.(rest.Scoper)
				deleter, canDelete := s.(rest.CollectionDeleter)
				lister, canList := s.(rest.Lister)
				if !scoped || !scoper.NamespaceScoped() || !canDelete || !canList ||
					!info.Allows(gv.Version, path, "deletecollection") || !info.Allows(gv.Version, path, "list") {
					continue
				}
				seen[path] = true
				name := path
				if info.Group != "" {
					name += "." + info.Group
				}
				d.resources = append(d.resources, namespacedResource{name: name, deleter: deleter, lister: lister})
			}
		}
	}
	return d
}

// DeleteNamespaceContent deletes every object of the deleter's resources in namespace and
// returns how many are left (held by finalizers). Errors name the resource.
func (d *GroupContentDeleter) DeleteNamespaceContent(ctx context.Context, namespace string) (int, error) {
	ctx = request.WithNamespace(ctx, namespace)
	remaining := 0
	for _, r := range d.resources {
		if _, err := r.deleter.DeleteCollection(ctx, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
			return 0, fmt.Errorf("cannot delete the %s in namespace %s: %w", r.name, namespace, err)
		}
		list, err := r.lister.List(ctx, &metainternalversion.ListOptions{})
		if err != nil {
			return 0, fmt.Errorf("cannot list the %s in namespace %s: %w", r.name, namespace, err)
		}
		n := meta.LenList(list)
		remaining += n
	}
	return remaining, nil
}
