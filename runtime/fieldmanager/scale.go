package fieldmanager

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apigen-dev/apigen/runtime/request"
)

// NewScaleHandler returns the managedfields.ScaleHandler of a /scale write to an object of
// group whose managedFields are parent and whose replicas are at replicasPath, a dotted JSON
// path (".spec.replicas") that is the same in every version of the group, as kube-apiserver's
// scale storages build one: ToSubresource gives the Scale the entries that own the replicas
// (as autoscaling/v1 spec.replicas), ToParent maps the Scale's entries back. An entry the
// /scale write records is put in the request's version (ctx's RequestInfo), as
// apiextensions-apiserver's ScaleREST does for custom resources.
func NewScaleHandler(ctx context.Context, group string, parent []metav1.ManagedFieldsEntry, replicasPath string) *managedfields.ScaleHandler {
	elems := strings.Split(strings.TrimPrefix(replicasPath, "."), ".")
	parts := make([]any, len(elems))
	for i, e := range elems {
		parts[i] = e
	}
	path := fieldpath.MakePathOrDie(parts...)
	gv := schema.GroupVersion{Group: group}
	if info, ok := request.RequestInfoFrom(ctx); ok {
		gv.Version = info.APIVersion
	}
	mappings := managedfields.ResourcePathMappings{gv.String(): path}
	for _, e := range parent {
		if entryGV, err := schema.ParseGroupVersion(e.APIVersion); err == nil && entryGV.Group == group {
			mappings[e.APIVersion] = path
		} else {
			mappings[e.APIVersion] = nil // another group's entry: kept as it is
		}
	}
	return managedfields.NewScaleHandler(parent, gv, mappings)
}
