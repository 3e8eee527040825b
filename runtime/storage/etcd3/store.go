package etcd3

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/apiserver/pkg/storage/value"

	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// store is storage.Interface for one resource on etcd.
type store struct {
	client  *clientv3.Client
	kv      kubernetes.Client
	codec   runtime.Codec
	newFunc func() runtime.Object
	// prefix is the resource's key prefix without a trailing "/", e.g.
	// "/registry/db.example.com/databases".
	prefix string
	gr     schema.GroupResource
	// storageVersion is the version objects are encoded in (StorageVersion); zero for a
	// store made with a codec of its own (New, NewStorageWithCodec).
	storageVersion schema.GroupVersion
	// decoded caches decoded objects by their stored bytes; nil when objects are a watch
	// cache's (UseDecodedObjects).
	decoded *decodeCache
	// objects, when not nil, are the decoded objects of the watch cache over this store.
	objects storage.DecodedObjects
	// states remembers each key's last known revision and value, where GuaranteedUpdate
	// and Delete start.
	states *stateCache
	// reads coalesces Get's linearizable reads.
	reads *readBatcher
	// metrics, when not nil, receives the latency of every etcd request.
	metrics *metrics.Metrics
	// leases grants the leases of objects written with a TTL (storage.WithTTL).
	leases *leaseManager
	// transformer, when not nil, transforms values between their encoding and what etcd
	// holds (encryption at rest, SetTransformer); everything above put and the reads sees
	// the plain bytes.
	transformer value.Transformer
	// noSerializable is set once the backend refused a serializable read (kine does):
	// reads at resourceVersion "0" are then linearizable.
	noSerializable atomic.Bool
}

// StorageVersion implements storage.Versioned: the version NewStorage encodes objects in.
func (s *store) StorageVersion() schema.GroupVersion { return s.storageVersion }

// observe records an etcd request of operation op that started at start, as
// kube-apiserver's etcd_request_duration_seconds{operation,type}.
func (s *store) observe(op string, start time.Time) {
	if s.metrics != nil {
		s.metrics.ObserveEtcd(op, s.gr.String(), time.Since(start))
	}
}

var _ storage.Interface = (*store)(nil)

// New returns storage for one resource whose keys live under prefix (e.g.
// "/registry/db.example.com/databases"). Keys given to its methods are relative to prefix:
// "/<ns>/<name>", "/<name>", or list prefixes "/<ns>/" and "/". codec encodes the internal
// object to the storage version and decodes (defaulting) back to internal: a *Codec (see
// NewCodec) lets Create and GuaranteedUpdate return what they wrote without decoding it, any
// other codec costs a decode per write. newFunc returns an empty internal object; gr names
// the resource in errors. The client stays owned by the caller.
func New(client *clientv3.Client, codec runtime.Codec, newFunc func() runtime.Object, prefix string, gr schema.GroupResource) storage.Interface {
	return &store{
		client:  client,
		kv:      kubernetes.Client{Client: client},
		codec:   codec,
		newFunc: newFunc,
		prefix:  strings.TrimSuffix(path.Clean("/"+prefix), "/"),
		gr:      gr,
		decoded: newDecodeCache(decodeCacheSize),
		states:  newStateCache(stateCacheSize),
		reads:   newReadBatcher(client),
		leases:  newLeaseManager(client, LeaseConfig{}),
	}
}

// fullKey maps a relative key to its etcd key. A key with a "." or ".." segment is rejected
// (InvalidObj), so no key can leave the prefix; a trailing "/" (a list prefix) is kept.
func (s *store) fullKey(key string) (string, error) {
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return "", storage.NewInvalidObjError(key, fmt.Sprintf("invalid key %q for %s: it may not contain %q", key, s.gr, seg))
		}
	}
	cleaned := path.Clean("/" + key)
	if strings.HasSuffix(key, "/") && cleaned != "/" {
		cleaned += "/"
	}
	return s.prefix + cleaned, nil
}

// encode encodes obj for storage and returns the bytes and the object a read of them returns
// (without its resourceVersion), as kube-apiserver's store decodes what it wrote. obj's
// resourceVersion must already be empty; obj itself is not changed.
// Errors: Internal, wrapping the codec's error (e.g. no conversion to the storage version).
func (s *store) encode(obj runtime.Object) ([]byte, runtime.Object, error) {
	var (
		data    []byte
		written runtime.Object
		err     error
	)
	if c, ok := s.codec.(storedEncoder); ok {
		data, written, err = c.encodeStored(obj, s.newFunc())
	} else if data, err = encodeTo(s.codec, obj); err == nil {
		written, err = s.decodeObject("", data, 0, 0, useOwn)
	}
	if err != nil {
		return nil, nil, &storage.StatusError{Code: storage.ErrCodeInternal, Message: fmt.Sprintf("cannot encode %s for storage", s.gr), Err: err}
	}
	return data, written, nil
}

// written puts the object encode returned, stored at revision rev, into out.
func written(obj, out runtime.Object, rev int64) error {
	if err := setResourceVersion(obj, rev); err != nil {
		return err
	}
	return setInto(out, obj)
}

// setInto copies *src into *dst; both must be pointers to the same struct type.
func setInto(dst, src runtime.Object) error {
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Kind() != reflect.Pointer || dv.IsNil() || dv.Type() != sv.Type() {
		return storage.NewInternalError(fmt.Sprintf("cannot decode into %T: storage decodes %T", dst, src))
	}
	dv.Elem().Set(sv.Elem())
	return nil
}

// setResourceVersion sets obj's metadata.resourceVersion to rev as a decimal string ("" for 0).
func setResourceVersion(obj runtime.Object, rev int64) error {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot set resourceVersion on %T: %v", obj, err))
	}
	v := ""
	if rev != 0 {
		v = strconv.FormatInt(rev, 10)
	}
	acc.SetResourceVersion(v)
	return nil
}

// parseResourceVersion is storage.ParseResourceVersion.
func parseResourceVersion(rv string) (int64, error) { return storage.ParseResourceVersion(rv) }

// Create implements storage.Interface, as kube-apiserver's etcd3 store.Create.
func (s *store) Create(ctx context.Context, key string, obj, out runtime.Object) (err error) {
	ctx, span := s.startSpan(ctx, "Create etcd3", key)
	defer func() { span.End(err) }()
	k, err := s.fullKey(key)
	if err != nil {
		return err
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot create %T: %v", obj, err))
	}
	if acc.GetResourceVersion() != "" {
		return storage.NewInvalidObjError(key, "resourceVersion should not be set on objects to be created")
	}
	data, stored, err := s.encode(obj)
	if err != nil {
		return err
	}
	start := time.Now()
	resp, err := s.put(ctx, key, k, data, 0)
	s.observe("create", start)
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		return storage.NewKeyExistsError(key, 0)
	}
	s.states.remember(k, resp.Revision, data)
	return written(stored, out, resp.Revision)
}

// read reads the etcd key k and returns its KeyValue (nil when absent) and the revision of the
// read: from the member's local state when serializable, else linearizably, coalesced with
// concurrent reads (readBatcher).
func (s *store) read(ctx context.Context, k string, serializable bool) (*mvccpb.KeyValue, int64, error) {
	if !serializable || s.noSerializable.Load() {
		return s.reads.get(ctx, k)
	}
	resp, err := s.client.Get(ctx, k, clientv3.WithSerializable())
	if s.serializableUnsupported(err) {
		return s.reads.get(ctx, k)
	}
	if err != nil {
		return nil, 0, err
	}
	return firstKV(resp.Kvs), resp.Header.Revision, nil
}

// serializableUnsupported reports whether err is a backend's refusal of serializable reads
// (kine: "serializable is not implemented by kine", gRPC Unimplemented), and then makes the
// store read linearizably from now on, as kube-apiserver's store always does: a read at
// resourceVersion "0" is then as fresh as one at "".
func (s *store) serializableUnsupported(err error) bool {
	if err == nil || status.Code(err) != codes.Unimplemented {
		return false
	}
	s.noSerializable.Store(true)
	return true
}

// Get implements storage.Interface: ResourceVersion "" is a linearizable read, "0" may be
// served from the member's local state, N newer than etcd's revision waits up to
// resourceVersionWait for it (then ResourceVersionTooLarge).
func (s *store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) (err error) {
	ctx, span := s.startSpan(ctx, "Get etcd3", key)
	defer func() { span.End(err) }()
	k, err := s.fullKey(key)
	if err != nil {
		return err
	}
	minRV, err := parseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return err
	}
	start := time.Now()
	kv, rev, err := s.read(ctx, k, opts.ResourceVersion == "0")
	s.observe("get", start)
	if err != nil {
		return interpretError(err, key, listExpiredMessage, 0)
	}
	if minRV > rev {
		// A revision etcd has not reached: wait for it, then read again.
		if err := s.waitForRevision(ctx, key, k, minRV, rev); err != nil {
			return err
		}
		if kv, rev, err = s.read(ctx, k, false); err != nil {
			return interpretError(err, key, listExpiredMessage, 0)
		}
	}
	if kv == nil {
		s.states.forget(k)
		if opts.IgnoreNotFound {
			return setInto(out, s.newFunc())
		}
		return storage.NewKeyNotFoundError(key, 0)
	}
	data, err := s.plain(ctx, k, kv.Value)
	if err != nil {
		return err
	}
	s.states.remember(k, kv.ModRevision, data)
	obj, err := s.decodeFor(ctx, k, data, kv.ModRevision, kv.ModRevision)
	if err != nil {
		return err
	}
	return setInto(out, obj)
}
