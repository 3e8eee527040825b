package endpoints

import (
	"context"
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/jsonserializer"
)

// serializers are the wire formats of one group: JSON and YAML, each lenient or strict
// (reporting unknown and duplicate fields). JSON lists are encoded one item at a time into
// the response (apimachinery's StreamingCollectionsEncoding, as kube-apiserver's
// StreamingCollectionEncodingToJSON feature, on by default since 1.33): the same bytes,
// without a buffer holding the whole list.
type serializers struct {
	codecs                 serializer.CodecFactory
	json, yaml             runtime.Serializer
	strictJSON, strictYAML runtime.Serializer
}

func newSerializers(scheme *runtime.Scheme) *serializers {
	mk := func(yaml, strict bool) runtime.Serializer {
		return jsonserializer.NewSerializer(scheme, scheme, json.SerializerOptions{Yaml: yaml, Strict: strict, StreamingCollectionsEncoding: true})
	}
	return &serializers{
		codecs: serializer.NewCodecFactory(scheme),
		json:   mk(false, false), yaml: mk(true, false),
		strictJSON: mk(false, true), strictYAML: mk(true, true),
	}
}

// scope is what the handlers of one resource path in one version need, as kube's
// handlers.RequestScope.
type scope struct {
	*serializers
	scheme *runtime.Scheme
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
}

// tableConvertor returns the storage's table convertor, or nil.
func (s *scope) tableConvertor() rest.TableConvertor {
	tc, _ := s.storage.(rest.TableConvertor)
	return tc
}

// newVersioned returns an empty object of the versioned kind, e.g. &v1.Widget{}.
func (s *scope) newVersioned() (runtime.Object, error) {
	return s.scheme.New(s.kind)
}

// handlerFunc serves one request with the namespace and name from the path.
type handlerFunc func(ctx context.Context, w http.ResponseWriter, req *http.Request, namespace, name string)

// route adapts h to go-restful: it puts the namespace and a RequestInfo for verb into the
// request's context.
func (s *scope) route(verb string, h handlerFunc) restful.RouteFunction {
	return func(rreq *restful.Request, rresp *restful.Response) {
		req := rreq.Request
		ns, name := rreq.PathParameter("namespace"), rreq.PathParameter("name")
		requestVerb := verb
		if w := req.URL.Query().Get("watch"); verb == "list" && w != "" && w != "false" && w != "0" {
			requestVerb = "watch"
		}
		ctx := request.WithNamespace(req.Context(), ns)
		ctx = request.WithRequestInfo(ctx, &request.RequestInfo{
			IsResourceRequest: true, Path: req.URL.Path, Verb: requestVerb, APIPrefix: "apis",
			APIGroup: s.gv.Group, APIVersion: s.gv.Version, Namespace: ns,
			Resource: s.resource, Subresource: s.subresource, Name: name,
		})
		h(ctx, rresp, req.WithContext(ctx), ns, name)
	}
}

// resourcePath is "widgets" or "widgets/status".
func (s *scope) resourcePath() string {
	return strings.TrimSuffix(s.resource+"/"+s.subresource, "/")
}

// metaGV is the group version of the options and Status types (meta.k8s.io/v1).
var metaGV = metav1.SchemeGroupVersion
