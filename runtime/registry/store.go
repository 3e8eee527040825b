package registry

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// Store serves one resource from a storage.Interface with Kubernetes semantics: it
// implements rest.Getter, Lister, Creater, Updater, GracefulDeleter, CollectionDeleter,
// Watcher and TableConvertor, as k8s.io/apiserver's generic registry.Store. Generated install
// code builds one per resource; a Store is safe for concurrent use once built.
//
// Storage keys are relative to the resource's prefix (see StorageFactory): "/<namespace>/<name>"
// for namespaced kinds, "/<name>" for cluster-scoped ones, and "/<namespace>/" or "/" for lists.
type Store struct {
	// NewFunc returns a new empty internal object (e.g. &db.Database{}); NewListFunc a new
	// empty internal list (e.g. &db.DatabaseList{}).
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// DefaultQualifiedResource names the resource in errors ("databases.db.example.com");
	// SingularQualifiedResource is its singular form ("database.db.example.com").
	DefaultQualifiedResource  schema.GroupResource
	SingularQualifiedResource schema.GroupResource
	// Strategy applies the kind's create and update rules and validation.
	Strategy Strategy
	// Storage holds the objects.
	Storage storage.Interface
	// StorageGroupVersion, when set, is the group version Storage encodes objects in, for a
	// Storage that does not report it (storage.Versioned), such as a custom resource's, whose
	// codec is its own. StorageVersion reports it.
	StorageGroupVersion schema.GroupVersion
	// ShortNameList and CategoryList are published in discovery ("db"; "all").
	ShortNameList []string
	CategoryList  []string
	// TableConvertor renders `kubectl get` tables; nil means NAME and AGE columns
	// (runtime/tableconvertor.New(nil)).
	TableConvertor rest.TableConvertor
	// SelectableFields are the fields beyond metadata.name and metadata.namespace a field
	// selector may name, as JSON paths without the leading dot ("spec.engine", from
	// +kubebuilder:selectablefield:JSONPath=`.spec.engine`); each must be a string, boolean
	// or integer field of NewFunc's type (see ValidateSelectableFields).
	SelectableFields []string
	// FieldsFunc, when not nil, returns the fields of obj (a NewFunc object) a field selector
	// may name beyond metadata.name and metadata.namespace, with their values, as
	// kube-apiserver's built-in kinds' ToSelectableFields (Events: "involvedObject.kind",
	// "reason", "source", ...). The fields it returns for an empty object are the ones a
	// selector may name; others are 400 "field label not supported". When set,
	// SelectableFields is not used.
	FieldsFunc func(obj runtime.Object) fields.Set
	// AllowCreateOnUpdate lets an update (PUT) of a missing object create it, as
	// kube-apiserver's UpdateStrategy.AllowCreateOnUpdate (true for Events); otherwise only
	// a caller's forceAllowCreate (server-side apply) does.
	AllowCreateOnUpdate bool
	// TTL, when positive, is how long every object the Store writes (create, update, and the
	// updates of a graceful delete) lives in storage after the write, as kube-apiserver's
	// Events Store's TTLFunc returns --event-ttl for every write: storage removes it then
	// (storage.WithTTL), and watchers see it deleted. Zero keeps objects until deleted.
	TTL time.Duration
	// NameValidation validates metadata.name; nil means validation.NameIsDNSSubdomain, as for
	// most kinds (NameIsDNSLabel and NameIsPathSegment are the others Kubernetes uses).
	NameValidation validation.ValidateNameFunc
	// ShouldDeleteDuringUpdate reports whether obj, an object being deleted that an update
	// (or the delete marking it) has just written, is to be removed from storage now, as
	// kube-apiserver's Store.ShouldDeleteDuringUpdate; it is only asked for objects with a
	// deletionTimestamp and no metadata.finalizers. nil means yes; namespaces also wait for
	// their spec.finalizers.
	ShouldDeleteDuringUpdate func(obj runtime.Object) bool
	// Admission is run on every create, update and delete, as kube-apiserver's admission
	// chain: mutating plugins before the strategy prepares and validates the object,
	// validating plugins after, before anything is stored (dry runs included, with
	// Attributes.DryRun set). nil admits everything.
	Admission *admission.Chain
}

var _ rest.StorageVersionProvider = (*Store)(nil)

// StorageVersion implements rest.StorageVersionProvider: StorageGroupVersion, or else
// Storage's (storage.Versioned); zero when neither is known.
func (e *Store) StorageVersion() schema.GroupVersion {
	if !e.StorageGroupVersion.Empty() {
		return e.StorageGroupVersion
	}
	if e.Storage == nil {
		return schema.GroupVersion{}
	}
	return storage.StorageVersionOf(e.Storage)
}

// NameIsDNSLabel accepts DNS-1123 labels (at most 63 characters, no dots), as
// apimachinery's validation.NameIsDNSLabel (Namespaces, Services).
var NameIsDNSLabel validation.ValidateNameFunc = validation.NameIsDNSLabel

// NameIsPathSegment accepts any name that is one URL path segment (not "." or "..", no "/"
// or "%"), as Kubernetes validates RBAC objects' names (path.ValidatePathSegmentName).
var NameIsPathSegment validation.ValidateNameFunc = path.ValidatePathSegmentName

// nameValidation returns e.NameValidation or its default.
func (e *Store) nameValidation() validation.ValidateNameFunc {
	if e.NameValidation != nil {
		return e.NameValidation
	}
	return validation.NameIsDNSSubdomain
}

// withTTL returns ctx carrying e.TTL for storage (storage.WithTTL), or ctx when e has none.
func (e *Store) withTTL(ctx context.Context) context.Context {
	if e.TTL <= 0 {
		return ctx
	}
	return storage.WithTTL(ctx, e.TTL)
}
