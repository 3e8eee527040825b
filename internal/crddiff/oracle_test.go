package crddiff

import (
	"context"
	"encoding/hex"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// oracle is one served version of a CRD, set up as apiextensions-apiserver's crdHandler
// (getOrCreateServingInfoFor) sets it up, and create runs a request body through what
// kube-apiserver does with it; see the package documentation for the calls.
type oracle struct {
	kind       schema.GroupVersionKind
	namespaced bool
	// structural is the version's structural schema with its defaults pruned, as the handler
	// keeps it for decoding and defaulting.
	structural *structuralschema.Structural
	strategy   rest.RESTCreateStrategy
	decoder    runtime.Decoder
}

// newOracle validates crd as the API server does on its create
// (apiextensions/validation.ValidateCustomResourceDefinition, after v1 defaulting and
// conversion to the internal version) and sets up the serving of its version. An invalid
// CRD, or a version it does not have, is an error.
func newOracle(crd *apiextensionsv1.CustomResourceDefinition, version string) (*oracle, error) {
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, fmt.Errorf("cannot convert the CRD %s: %w", crd.Name, err)
	}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal); len(errs) > 0 {
		return nil, fmt.Errorf("the CRD %s is invalid: %w", crd.Name, errs.ToAggregate())
	}
	// As getOrCreateServingInfoFor: the version's schema and subresources from the v1 CRD,
	// converted to the internal types.
	v1Validation, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || v1Validation == nil {
		return nil, fmt.Errorf("the CRD %s has no version %s with a schema (%v)", crd.Name, version, err)
	}
	validation := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1Validation, validation, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(validation.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema of %s %s is not structural: %w", crd.Name, version, err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, fmt.Errorf("cannot prune the defaults of %s: %w", crd.Name, err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(validation.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var statusValidator apiservervalidation.SchemaValidator
	var status *apiextensions.CustomResourceSubresourceStatus
	var scale *apiextensions.CustomResourceSubresourceScale
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	if subresources != nil && subresources.Status != nil {
		status = &apiextensions.CustomResourceSubresourceStatus{}
		if statusSchema, ok := validation.OpenAPIV3Schema.Properties["status"]; ok {
			if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
				return nil, err
			}
		}
	}
	if subresources != nil && subresources.Scale != nil {
		scale = &apiextensions.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scale, nil); err != nil {
			return nil, err
		}
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	typer := crdserverscheme.NewUnstructuredObjectTyper()
	var selectable []apiextensionsv1.SelectableField
	for _, cv := range crd.Spec.Versions {
		if cv.Name == version {
			selectable = cv.SelectableFields
		}
	}
	return &oracle{
		kind: kind, namespaced: namespaced, structural: s,
		strategy: customresource.NewStrategy(typer, namespaced, kind, validator, statusValidator, s, status, scale, selectable),
		// The handler's StrictSerializer: fieldValidation=Strict decodes with it.
		decoder: json.NewSerializerWithOptions(json.DefaultMetaFactory, unstructuredCreator{}, typer, json.SerializerOptions{Strict: true}),
	}, nil
}

// unstructuredCreator creates Unstructured objects, as the CRD handler's.
type unstructuredCreator struct{}

// New returns an empty Unstructured of kind.
func (unstructuredCreator) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	return u, nil
}

// create runs body, a JSON create request for namespace ("" for a cluster-scoped kind) sent
// with fieldValidation=Strict and dryRun=All, through the API server's create of a custom
// resource and returns what the client gets: the object as created, or the error's
// metav1.Status.
func (o *oracle) create(body []byte, namespace string) outcome {
	obj, err := o.decode(body)
	if err != nil {
		return rejected(err)
	}
	// handlers.createHandler: the decoded object's system metadata is wiped, the namespace
	// of the URL goes into the context; genericregistry.Store.Create fills the system
	// metadata, then rest.BeforeCreate checks the namespace, runs PrepareForCreate, the
	// strategy's Validate and ValidateObjectMetaAccessor.
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	m, err := meta.Accessor(obj)
	if err != nil {
		return rejected(apierrors.NewInternalError(err))
	}
	rest.WipeObjectMetaSystemFields(m)
	rest.FillObjectMetaSystemFields(m)
	if err := rest.BeforeCreate(o.strategy, ctx, obj); err != nil {
		return rejected(err)
	}
	return accepted(obj.UnstructuredContent())
}

// decode is the CR handler's request decoder (unstructuredNegotiatedSerializer's
// DecoderToVersion over the strict JSON serializer): the JSON decode, then
// schemaCoercingDecoder's unstructuredSchemaCoercer.apply with unknown field paths tracked
// (ObjectMeta read and re-set, pruning, nulls of non-nullable fields without defaults
// dropped, embedded ObjectMeta coerced), then the versioning codec's defaulting
// (unstructuredDefaulter). A decoding error, strict ones (duplicate and unknown fields)
// included, fails the request as the create handler does for fieldValidation=Strict: 400
// BadRequest through handlers.transformDecodeError's wording.
func (o *oracle) decode(body []byte) (*unstructured.Unstructured, error) {
	u, gvk, err := o.decodeRaw(body)
	if err != nil {
		if gvk != nil && gvk.Kind != "" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, o.kind.Kind, err))
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", o.kind.Kind, err, summarizeData(body, 30)))
	}
	if gv := gvk.GroupVersion(); gv != o.kind.GroupVersion() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
			gv, o.kind.GroupVersion()))
	}
	return u, nil
}

// decodeRaw is decode without the error's wrapping: the object, the kind the body gave and
// the decoding error (a runtime.StrictDecodingError for unknown and duplicate fields).
func (o *oracle) decodeRaw(body []byte) (*unstructured.Unstructured, *schema.GroupVersionKind, error) {
	var strictErrs []error
	decoded, gvk, err := o.decoder.Decode(body, &o.kind, &unstructured.Unstructured{})
	if err != nil {
		strict, ok := runtime.AsStrictDecodingError(err)
		if !ok || decoded == nil {
			return nil, gvk, err
		}
		strictErrs = strict.Errors()
	}
	u := decoded.(*unstructured.Unstructured)
	unknown, err := o.coerce(u)
	if err != nil {
		return nil, gvk, err
	}
	for _, path := range unknown {
		strictErrs = append(strictErrs, fmt.Errorf(`unknown field "%s"`, path))
	}
	structuraldefaulting.Default(u.UnstructuredContent(), o.structural)
	if len(strictErrs) > 0 {
		return nil, gvk, runtime.NewStrictDecodingError(strictErrs)
	}
	return u, gvk, nil
}

// coerce is unstructuredSchemaCoercer.apply of the request decoder (returnUnknownFieldPaths
// true, dropInvalidMetadata and repairGeneration false) for the oracle's kind, returning
// the paths of the unknown fields it pruned.
func (o *oracle) coerce(u *unstructured.Unstructured) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	if gv.Group == o.kind.Group && kind == o.kind.Kind {
		unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, o.structural, true,
			structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, o.structural)
		ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, o.structural, false,
			schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if ferr != nil {
			return nil, ferr
		}
		unknown = append(unknown, paths...)
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// summarizeData is handlers.summarizeData: at most the first n bytes of data, as text when
// it looks like JSON, else in hex.
func summarizeData(data []byte, n int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > n {
			return string(data[:n]) + " ..."
		}
		return string(data)
	case len(data) > n:
		return hex.EncodeToString(data[:n]) + " ..."
	}
	return hex.EncodeToString(data)
}
