package endpoints

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	"go.opentelemetry.io/otel/attribute"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/apigen-dev/apigen/runtime/endpoints/requestbody"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// Kinds is how the handlers of one API group create, type, default and convert its objects,
// as the Creater, Typer, Defaulter, Convertor and UnsafeConvertor of kube-apiserver's
// handlers.RequestScope. SchemeKinds fills it from a runtime.Scheme (typed groups);
// runtime/apiextensions/customresource fills it with unstructured implementations for the
// custom resources of a CustomResourceDefinition.
type Kinds struct {
	// Creater returns empty objects of a kind (decoding targets, list types).
	Creater runtime.ObjectCreater
	// Typer says which kinds an object is (encoding, scope resolution).
	Typer runtime.ObjectTyper
	// Defaulter applies defaults to a decoded body, in the wire version.
	Defaulter runtime.ObjectDefaulter
	// Convertor converts between versions leaving its input untouched (a copy); for
	// conversions of objects the caller does not own. The handlers convert only objects of
	// their own and use UnsafeConvertor.
	Convertor runtime.ObjectConvertor
	// UnsafeConvertor converts a decoded body from the wire version to the storage (hub)
	// version and stored objects to the wire version for encoding; its result may share
	// memory with its input (runtime.UnsafeObjectConvertor).
	UnsafeConvertor runtime.ObjectConvertor
	// NewSerializer returns the JSON or YAML serializer options ask for (Strict reports
	// unknown and duplicate fields as runtime.StrictDecodingError with the decoded object);
	// nil means jsonserializer.NewSerializer(Creater, Typer, options).
	NewSerializer func(options json.SerializerOptions) runtime.Serializer
	// TypeConverter gives the merge semantics of the objects' fields for field management
	// (metadata.managedFields) and server-side apply, as kube-apiserver's
	// APIGroupVersion.TypeConverter; nil means one built from the group's scheme and OpenAPI
	// definitions (fieldmanager.NewTypeConverter), or managedfields' deduced types without them.
	TypeConverter managedfields.TypeConverter
	// DisableFieldManagement turns field management off, as kube-apiserver's ServerSideApply
	// feature gate did: writes store no managedFields and server-side apply is 415. It
	// exists to measure what field management costs.
	DisableFieldManagement bool
}

// SchemeKinds returns the Kinds of the typed groups scheme knows, as kube-apiserver's
// RequestScope is filled for built-in groups: every field is scheme, and UnsafeConvertor is
// runtime.UnsafeObjectConvertor(scheme).
func SchemeKinds(scheme *runtime.Scheme) Kinds {
	return Kinds{Creater: scheme, Typer: scheme, Defaulter: scheme, Convertor: scheme,
		UnsafeConvertor: runtime.UnsafeObjectConvertor(scheme)}
}

// serializers are the wire formats of one group: JSON and YAML, each lenient or strict
// (reporting unknown and duplicate fields). JSON lists are encoded one item at a time into
// the response (apimachinery's StreamingCollectionsEncoding, as kube-apiserver's
// StreamingCollectionEncodingToJSON feature, on by default since 1.33): the same bytes,
// without a buffer holding the whole list.
type serializers struct {
	Kinds
	requestbody.Serializers
	// encoders holds the encoders encoderForVersion built, by encoderKey: building one per
	// response (versioning.NewCodec) was a few microseconds of every write, get and watch event.
	encoders sync.Map
}

// encoderKey names an encoder of serializers: JSON or YAML, converting to gv.
type encoderKey struct {
	yaml bool
	gv   schema.GroupVersion
}

func newSerializers(k Kinds) *serializers {
	mk := func(yaml, strict bool) runtime.Serializer {
		opts := json.SerializerOptions{Yaml: yaml, Strict: strict, StreamingCollectionsEncoding: true}
		if k.NewSerializer != nil {
			return k.NewSerializer(opts)
		}
		return jsonserializer.NewSerializer(k.Creater, k.Typer, opts)
	}
	return &serializers{Kinds: k, Serializers: requestbody.Serializers{
		JSON: mk(false, false), YAML: mk(true, false),
		StrictJSON: mk(false, true), StrictYAML: mk(true, true),
	}}
}

// decoder returns the decoder of bodies in kind, converted to hubGV.
func (s *serializers) decoder(kind schema.GroupVersionKind, hubGV schema.GroupVersion) *requestbody.Decoder {
	return &requestbody.Decoder{
		Serializers: s.Serializers,
		Kind:        kind, HubGV: hubGV, Defaulter: s.Defaulter, UnsafeConvertor: s.UnsafeConvertor,
	}
}

// encoderForVersion returns the JSON (or, with yaml, the YAML) serializer converting objects
// to gv first, as serializer.CodecFactory.EncoderForVersion does with a scheme; built once
// per format and version, and safe for concurrent use, as kube-apiserver shares its codecs.
func (s *serializers) encoderForVersion(yaml bool, gv schema.GroupVersion) runtime.Encoder {
	key := encoderKey{yaml: yaml, gv: gv}
	if enc, ok := s.encoders.Load(key); ok {
		return enc.(runtime.Encoder)
	}
	var ser runtime.Encoder = s.JSON
	if yaml {
		ser = s.YAML
	}
	enc, _ := s.encoders.LoadOrStore(key, versioning.NewCodec(ser, nil, s.UnsafeConvertor, s.Creater, s.Typer, s.Defaulter, gv,
		runtime.InternalGroupVersioner, "apigen"))
	return enc.(runtime.Encoder)
}

// scope is what the handlers of one resource path in one version need, as kube's
// handlers.RequestScope.
type scope struct {
	*serializers
	// decoder decodes the bodies of creates, updates and patches into kind, then hubGV.
	decoder *requestbody.Decoder
	// gv is the URL's version; kind the versioned kind served on the wire (gv.WithKind("Widget"),
	// or the kind a rest.GroupVersionKindProvider storage names, e.g. autoscaling/v1 Scale);
	// hubGV the version storage objects are in (the internal version, or gv's group's only
	// version when the group has no internal package).
	gv    schema.GroupVersion
	kind  schema.GroupVersionKind
	hubGV schema.GroupVersion
	// resourceKind is the kind of the main resource ("Widget"), which names operations.
	resourceKind string
	// resource is "widgets"; subresource "" or "status"; resourcePath "widgets/status".
	resource, subresource string
	namespaced            bool
	storage               rest.Storage
	// qualified names the resource in errors ("widgets.test.apigen.dev").
	qualified schema.GroupResource
	// encodings holds the JSON of objects GET (and watches) wrote; frames the watch frames.
	encodings *encodingCache
	frames    *frameCache
	// pages holds the gzipped bodies of recent list pages.
	pages *pageCache
	// fieldManager returns the FieldManager that records managedFields on every write and
	// merges server-side applies, built at its first call (newFieldManager); nil with field
	// management off.
	fieldManager func() (*managedfields.FieldManager, error)
	// allowed limits the verbs served (registry.APIGroupInfo.Verbs); nil allows every verb
	// the storage implements.
	allowed map[string]bool
	// deprecation is the text of the Warning header every response carries, "" for none.
	deprecation string
}

// allows reports whether the scope may serve verb (kube's verb name).
func (s *scope) allows(verb string) bool { return s.allowed == nil || s.allowed[verb] }

// tableConvertor returns the storage's table convertor, or nil.
func (s *scope) tableConvertor() rest.TableConvertor {
	tc, _ := s.storage.(rest.TableConvertor)
	return tc
}

// newVersioned returns an empty object of the versioned kind, e.g. &v1.Widget{}.
func (s *scope) newVersioned() (runtime.Object, error) {
	return s.Creater.New(s.kind)
}

// handlerFunc serves one request with the namespace and name from the path.
type handlerFunc func(ctx context.Context, w http.ResponseWriter, req *http.Request, namespace, name string)

// route adapts h to go-restful: it puts the namespace and a RequestInfo for verb into the
// request's context.
func (s *scope) route(verb string, h handlerFunc) restful.RouteFunction {
	return func(rreq *restful.Request, rresp *restful.Response) {
		req := rreq.Request
		ns, name := rreq.PathParameter("namespace"), rreq.PathParameter("name")
		if name != "" && strings.HasSuffix(req.URL.Path, "/") {
			// go-restful drops a trailing slash ("<name>/", or an escaped "<name>%2F"): the
			// name asked for is not the object's, and no object has such a name.
			if s.subresource == "" {
				name = strings.TrimPrefix(req.URL.Path[strings.LastIndex(strings.TrimRight(req.URL.Path, "/"), "/")+1:], "/")
			}
			responsewriters.WriteError(rresp, apierrors.NewNotFound(s.qualified, name))
			return
		}
		requestVerb := verb
		if w := request.QueryParam(req, "watch"); verb == "list" && w != "" && w != "false" && w != "0" {
			requestVerb = "watch"
		}
		ctx := request.WithNamespace(req.Context(), ns)
		ctx = request.WithRequestInfo(ctx, &request.RequestInfo{
			IsResourceRequest: true, Path: req.URL.Path, Verb: requestVerb, APIPrefix: "apis",
			APIGroup: s.gv.Group, APIVersion: s.gv.Version, Namespace: ns,
			Resource: s.resource, Subresource: s.subresource, Name: name,
		})
		if s.deprecation != "" {
			rresp.Header().Add("Warning", "299 - "+strconv.Quote(s.deprecation))
		}
		if tracing.IsRecording(ctx) && verbSpans[requestVerb] != "" {
			var span *tracing.Span
			ctx, span = tracing.Start(ctx, verbSpans[requestVerb])
			span.SetAttributes(attribute.String("client", req.UserAgent()),
				attribute.String("accept", req.Header.Get("Accept")), attribute.String("protocol", req.Proto))
			defer span.End(nil)
		}
		h(ctx, rresp, req.WithContext(ctx), ns, name)
	}
}

// verbSpans name the span a traced request's verb records, as kube-apiserver's handlers
// (endpoints/handlers) name theirs; a watch records none (it lasts minutes).
var verbSpans = map[string]string{
	"get": "Get", "list": "List", "create": "Create", "update": "Update", "patch": "Patch",
	"delete": "Delete", "deletecollection": "DeleteCollection",
}

// The events a traced write records on its verb's span, in kube-apiserver's handlers' words.
const (
	eventAboutToStore   = "About to store object in database"
	eventStored         = "Write to database call finished"
	eventAboutToDelete  = "About to delete object from database"
	eventDeleted        = "Object deleted from database"
	eventAboutToRespond = "About to write a response"
)

// resourcePath is "widgets" or "widgets/status".
func (s *scope) resourcePath() string {
	return strings.TrimSuffix(s.resource+"/"+s.subresource, "/")
}

// metaGV is the group version of the options and Status types (meta.k8s.io/v1).
var metaGV = metav1.SchemeGroupVersion
