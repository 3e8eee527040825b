package registry

import (
	"context"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// CreateStrategy validates the objects of a create-only kind; apigen generates one per kind
// marked +genclient:onlyVerbs=create.
type CreateStrategy interface {
	// NamespaceScoped reports whether the kind is created in namespaces.
	NamespaceScoped() bool
	// Validate checks a new object; field paths are rooted at the object.
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
}

// The rest interfaces a CreateOnlyStore serves: POST only, so discovery lists the verb
// create alone.
var (
	_ rest.Creater              = (*CreateOnlyStore)(nil)
	_ rest.Scoper               = (*CreateOnlyStore)(nil)
	_ rest.SingularNameProvider = (*CreateOnlyStore)(nil)
)

// CreateOnlyStore serves a kind that is created and never stored, as Kubernetes' review kinds
// (SubjectAccessReview, TokenReview, SelfSubjectReview ...): a POST is decoded, validated by
// Strategy (422 Invalid), and answered, 201 Created, with what Respond computes from it, as
// the REST storage of kube's authorization and authentication reviews. Generated install code
// builds one per kind marked +genclient:onlyVerbs=create; the server sets Respond before it
// serves. Safe for concurrent use once built.
type CreateOnlyStore struct {
	// NewFunc returns a new empty internal object.
	NewFunc func() runtime.Object
	// DefaultQualifiedResource names the resource in errors ("tokenreviews.authentication.k8s.io");
	// SingularQualifiedResource is its singular form.
	DefaultQualifiedResource  schema.GroupResource
	SingularQualifiedResource schema.GroupResource
	// Strategy validates what is created.
	Strategy CreateStrategy
	// Respond computes the response to the valid object obj (the request's user, namespace and
	// RequestInfo are in ctx); its errors are returned as they are (an apierrors status, or
	// 500). nil makes every create 500: the server has not wired the kind.
	Respond func(ctx context.Context, obj runtime.Object) (runtime.Object, error)
}

// New implements rest.Storage.
func (s *CreateOnlyStore) New() runtime.Object { return s.NewFunc() }

// NamespaceScoped implements rest.Scoper.
func (s *CreateOnlyStore) NamespaceScoped() bool { return s.Strategy.NamespaceScoped() }

// GetSingularName implements rest.SingularNameProvider.
func (s *CreateOnlyStore) GetSingularName() string { return s.SingularQualifiedResource.Resource }

// Create implements rest.Creater: for a namespaced kind the object's metadata.namespace is
// the request's (400 when it names another, as kube's create handler); then 422 Invalid with
// the strategy's field errors, else Respond's answer. Dry runs are answered too: nothing is
// ever stored.
func (s *CreateOnlyStore) Create(ctx context.Context, obj runtime.Object, _ *metav1.CreateOptions) (runtime.Object, error) {
	if s.NamespaceScoped() {
		m, err := accessor(obj)
		if err != nil {
			return nil, err
		}
		ns := request.NamespaceValue(ctx)
		if m.GetNamespace() != "" && m.GetNamespace() != ns {
			return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		m.SetNamespace(ns)
	}
	if errs := s.Strategy.Validate(ctx, obj); len(errs) > 0 {
		kind := schema.GroupKind{Group: s.DefaultQualifiedResource.Group, Kind: reflect.Indirect(reflect.ValueOf(obj)).Type().Name()}
		return nil, apierrors.NewInvalid(kind, "", errs)
	}
	if s.Respond == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("the server does not answer %s", s.DefaultQualifiedResource))
	}
	return s.Respond(ctx, obj)
}
