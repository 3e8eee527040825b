package garbagecollector

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// objectMetadata is what the collector's informers keep of an object: the metadata fields it
// reads, in about a third of a metav1.PartialObjectMetadata's memory (the informers hold one
// per object the server stores, in the server's own process). It is a runtime.Object and a
// metav1.Object, for meta.Accessor; setters of fields it does not
// keep do nothing, and their getters return zero values.
type objectMetadata struct {
	name, namespace   string
	uid               types.UID
	resourceVersion   string
	ownerReferences   []metav1.OwnerReference
	finalizers        []string
	deletionTimestamp *metav1.Time
	// annotations are kept for watch bookmarks only (k8s.io/initial-events-end).
	annotations map[string]string
}

var (
	_ runtime.Object = (*objectMetadata)(nil)
	_ metav1.Object  = (*objectMetadata)(nil)
)

// newObjectMetadata copies what the collector reads of m; bookmarks keep their annotations.
// Its strings share no memory with m's (see detach): m may be a watch cache's object, whose
// strings are cut from one string of its whole JSON document (jsoncodec.Reader), which a
// string kept here would keep alive after the cache has dropped the object (a cold entry).
func newObjectMetadata(m metav1.Object, bookmark bool) *objectMetadata {
	o := &objectMetadata{name: m.GetName(), namespace: m.GetNamespace(), uid: m.GetUID(), resourceVersion: m.GetResourceVersion(),
		ownerReferences: slices.Clone(m.GetOwnerReferences()), finalizers: slices.Clone(m.GetFinalizers()),
		deletionTimestamp: m.GetDeletionTimestamp()}
	o.detach()
	if bookmark {
		o.annotations = m.GetAnnotations()
	}
	return o
}

// detach replaces o's strings with copies made in one allocation.
func (o *objectMetadata) detach() {
	var strs []*string
	strs = append(strs, &o.name, &o.namespace, (*string)(&o.uid), &o.resourceVersion)
	for i := range o.ownerReferences {
		r := &o.ownerReferences[i]
		strs = append(strs, &r.APIVersion, &r.Kind, &r.Name, (*string)(&r.UID))
	}
	for i := range o.finalizers {
		strs = append(strs, &o.finalizers[i])
	}
	n := 0
	for _, s := range strs {
		n += len(*s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range strs {
		b.WriteString(*s)
	}
	all := b.String()
	for _, s := range strs {
		*s, all = all[:len(*s)], all[len(*s):]
	}
}

// GetObjectKind returns no kind: the collector knows each informer's kind.
func (o *objectMetadata) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject returns a deep copy.
func (o *objectMetadata) DeepCopyObject() runtime.Object {
	c := *o
	c.ownerReferences = make([]metav1.OwnerReference, len(o.ownerReferences))
	for i := range o.ownerReferences {
		o.ownerReferences[i].DeepCopyInto(&c.ownerReferences[i])
	}
	c.finalizers = slices.Clone(o.finalizers)
	c.deletionTimestamp = o.deletionTimestamp.DeepCopy()
	if o.annotations != nil {
		c.annotations = make(map[string]string, len(o.annotations))
		for k, v := range o.annotations {
			c.annotations[k] = v
		}
	}
	return &c
}

func (o *objectMetadata) GetNamespace() string                          { return o.namespace }
func (o *objectMetadata) SetNamespace(namespace string)                 { o.namespace = namespace }
func (o *objectMetadata) GetName() string                               { return o.name }
func (o *objectMetadata) SetName(name string)                           { o.name = name }
func (o *objectMetadata) GetGenerateName() string                       { return "" }
func (o *objectMetadata) SetGenerateName(string)                        {}
func (o *objectMetadata) GetUID() types.UID                             { return o.uid }
func (o *objectMetadata) SetUID(uid types.UID)                          { o.uid = uid }
func (o *objectMetadata) GetResourceVersion() string                    { return o.resourceVersion }
func (o *objectMetadata) SetResourceVersion(version string)             { o.resourceVersion = version }
func (o *objectMetadata) GetGeneration() int64                          { return 0 }
func (o *objectMetadata) SetGeneration(int64)                           {}
func (o *objectMetadata) GetSelfLink() string                           { return "" }
func (o *objectMetadata) SetSelfLink(string)                            {}
func (o *objectMetadata) GetCreationTimestamp() metav1.Time             { return metav1.Time{} }
func (o *objectMetadata) SetCreationTimestamp(metav1.Time)              {}
func (o *objectMetadata) GetDeletionTimestamp() *metav1.Time            { return o.deletionTimestamp }
func (o *objectMetadata) SetDeletionTimestamp(t *metav1.Time)           { o.deletionTimestamp = t }
func (o *objectMetadata) GetDeletionGracePeriodSeconds() *int64         { return nil }
func (o *objectMetadata) SetDeletionGracePeriodSeconds(*int64)          {}
func (o *objectMetadata) GetLabels() map[string]string                  { return nil }
func (o *objectMetadata) SetLabels(map[string]string)                   {}
func (o *objectMetadata) GetAnnotations() map[string]string             { return o.annotations }
func (o *objectMetadata) SetAnnotations(a map[string]string)            { o.annotations = a }
func (o *objectMetadata) GetFinalizers() []string                       { return o.finalizers }
func (o *objectMetadata) SetFinalizers(finalizers []string)             { o.finalizers = finalizers }
func (o *objectMetadata) GetManagedFields() []metav1.ManagedFieldsEntry { return nil }
func (o *objectMetadata) SetManagedFields([]metav1.ManagedFieldsEntry)  {}
func (o *objectMetadata) GetOwnerReferences() []metav1.OwnerReference {
	return o.ownerReferences
}
func (o *objectMetadata) SetOwnerReferences(refs []metav1.OwnerReference) {
	o.ownerReferences = refs
}
