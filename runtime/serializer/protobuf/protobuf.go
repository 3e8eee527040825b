// Package protobuf reads request bodies in Kubernetes' protobuf encoding
// (application/vnd.kubernetes.protobuf) for the built-in groups the runtime serves, as
// kubectl's typed clients send them (`kubectl create role`, `kubectl create namespace`,
// `kubectl create configmap`), client-go's typed clientset (k8s.io/client-go/kubernetes) sends
// its ConfigMaps, client-go's leader election its Leases and client-go's event recorders their
// Events (core/v1 and events.k8s.io/v1): a
// body decodes into the k8s.io/api type of its kind, which is re-encoded as JSON for the
// endpoints to decode into apigen's own, wire-compatible type. Responses stay JSON, which
// those clients accept. Kinds outside the built-in groups have no protobuf form here.
//
// The endpoints route POST and PUT bodies of those kinds through it (runtime/endpoints).
package protobuf

import (
	"encoding/json"
	"fmt"
	"sync"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// ContentType is Kubernetes' protobuf media type.
const ContentType = runtime.ContentTypeProtobuf

// Transcoder turns protobuf bodies of the built-in kinds into JSON. Safe for concurrent use.
type Transcoder struct {
	scheme     *runtime.Scheme
	serializer *protobuf.Serializer
}

// NewTranscoder returns a transcoder for the built-in groups apigen serves:
// rbac.authorization.k8s.io/v1, authorization.k8s.io/v1 and authentication.k8s.io/v1 (the
// reviews `kubectl auth` sends), coordination.k8s.io/v1 (the Leases of client-go's
// leaderelection), events.k8s.io/v1 (client-go's tools/events recorder) and the core group's
// v1 (namespaces, configmaps and events).
func NewTranscoder() *Transcoder {
	scheme := runtime.NewScheme()
	for name, add := range map[string]func(*runtime.Scheme) error{"core/v1": corev1.AddToScheme, "rbac/v1": rbacv1.AddToScheme,
		"authorization/v1": authzv1.AddToScheme, "authentication/v1": authnv1.AddToScheme,
		"coordination/v1": coordinationv1.AddToScheme, "events/v1": eventsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(fmt.Sprintf("cannot register k8s.io/api/%s: %v", name, err)) // a static registration: cannot fail
		}
	}
	return &Transcoder{scheme: scheme, serializer: protobuf.NewSerializer(scheme, scheme)}
}

// Builtin returns the process's transcoder (NewTranscoder's), built at the first call and
// shared by its callers (the endpoints' request bodies, the audit log): a process that is
// never sent a protobuf body never builds its scheme of six k8s.io/api group versions. Safe
// for concurrent use.
func Builtin() *Transcoder { return builtin() }

// builtin builds Builtin's transcoder once.
var builtin = sync.OnceValue(NewTranscoder)

// Handles reports whether gv is a group version the transcoder reads.
func (t *Transcoder) Handles(gv schema.GroupVersion) bool { return t.scheme.IsVersionRegistered(gv) }

// ToJSON decodes data, a protobuf body (with Kubernetes' "k8s\x00" envelope), and returns the
// same object as JSON, with its apiVersion and kind. Errors: data is not a protobuf body of a
// kind the transcoder knows.
func (t *Transcoder) ToJSON(data []byte) ([]byte, schema.GroupVersionKind, error) {
	obj, gvk, err := t.serializer.Decode(data, nil, nil)
	if err != nil {
		return nil, schema.GroupVersionKind{}, fmt.Errorf("cannot decode the protobuf body: %w", err)
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, schema.GroupVersionKind{}, fmt.Errorf("cannot re-encode the %s as JSON: %w", gvk.Kind, err)
	}
	return out, *gvk, nil
}
