package install

// The REST of databaseusages.db.example.com (+apigen:storage=rest on v1.DatabaseUsage): a
// read-only resource computed at request time, as metrics-server computes PodMetrics. Each
// Database has one DatabaseUsage of the same namespace and name whose values are derived,
// deterministically, from the Database (its name, replicas and storage) and the clock's
// current window (DATABASEUSAGE_INTERVAL, a Go duration, 10s by default). The generated
// registry.UserREST around it adds the printer columns, the label and field selectors
// (metadata.name, metadata.namespace, engine) and discovery's get, list, watch.
//
// resourceVersion: a list carries the resourceVersion of the Databases list it was computed
// from, each DatabaseUsage its Database's. A watch emits MODIFIED for every DatabaseUsage at
// each new window (the ticker) and ADDED, MODIFIED or DELETED when its Database changes; a
// watch from resourceVersion "" or "0" first sends every current DatabaseUsage as ADDED, one
// from another resourceVersion starts now (there is no history to replay).

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	db "github.com/apigen-dev/apigen/example-api/apis/db"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// usageIntervalEnv names the environment variable that sets the usage window (and ticker).
const usageIntervalEnv = "DATABASEUSAGE_INTERVAL"

// databaseUsages is the GroupResource of the computed resource, for errors.
var databaseUsages = schema.GroupResource{Group: "db.example.com", Resource: "databaseusages"}

// databaseSource is what the usage REST reads Databases through: the generated Store.
type databaseSource interface {
	rest.Getter
	rest.Lister
	rest.Watcher
}

// newDatabaseUsageREST returns the REST of databaseusages over the group's Databases.
// Errors: the group serves no databases resource; DATABASEUSAGE_INTERVAL is not a positive
// duration.
func newDatabaseUsageREST(_ *runtime.Scheme, group *registry.APIGroupInfo) (rest.Getter, error) {
	var source databaseSource
	for _, gv := range group.PrioritizedVersions {
		if s, ok := group.VersionedResourcesStorageMap[gv.Version]["databases"].(databaseSource); ok {
			source = s
			break
		}
	}
	if source == nil {
		return nil, fmt.Errorf("the group serves no databases to compute usages of")
	}
	interval := 10 * time.Second
	if v := os.Getenv(usageIntervalEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%s=%q: want a positive duration such as 10s", usageIntervalEnv, v)
		}
		interval = d
	}
	return &databaseUsageREST{databases: source, interval: interval, now: time.Now}, nil
}

// databaseUsageREST computes DatabaseUsages; safe for concurrent use.
type databaseUsageREST struct {
	databases databaseSource
	interval  time.Duration
	now       func() time.Time
}

// Get returns the usage of the Database name in the request's namespace. Errors: 404 when
// there is no such Database.
func (r *databaseUsageREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.databases.Get(ctx, name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewNotFound(databaseUsages, name)
	}
	if err != nil {
		return nil, err
	}
	return r.usage(obj.(*db.Database), r.window()), nil
}

// List returns the usages of the Databases in the request's namespace (all namespaces when
// it has none) that the label selector selects; the wrapper applies the field selector.
func (r *databaseUsageREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	dbs, err := r.listDatabases(ctx, opts)
	if err != nil {
		return nil, err
	}
	return r.usages(dbs, r.window()), nil
}

// Watch streams usage changes: see the file's comment.
func (r *databaseUsageREST) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	dbs, err := r.listDatabases(ctx, opts)
	if err != nil {
		return nil, err
	}
	initial := opts == nil || opts.ResourceVersion == "" || opts.ResourceVersion == "0"
	// From the client's resourceVersion when it gives one (a usage list's is its Databases'),
	// so that a change between its list and this watch is delivered, as kube's watch replays
	// what followed; the Databases listed now seed the usages each new window sends.
	from := dbs.ResourceVersion
	if !initial {
		from = opts.ResourceVersion
	}
	dbWatch, err := r.databases.Watch(ctx, &metainternalversion.ListOptions{
		LabelSelector: labelSelector(opts), ResourceVersion: from, Watch: true})
	if err != nil {
		return nil, err
	}
	w := &usageWatch{r: r, in: dbWatch, out: make(chan watch.Event), stop: make(chan struct{})}
	go w.run(ctx, dbs, initial)
	return w, nil
}

// listDatabases lists the Databases opts' label selector selects.
func (r *databaseUsageREST) listDatabases(ctx context.Context, opts *metainternalversion.ListOptions) (*db.DatabaseList, error) {
	obj, err := r.databases.List(ctx, &metainternalversion.ListOptions{LabelSelector: labelSelector(opts)})
	if err != nil {
		return nil, err
	}
	return obj.(*db.DatabaseList), nil
}

// window returns the start of the current window.
func (r *databaseUsageREST) window() time.Time { return r.now().Truncate(r.interval) }

// usages computes the usage list of dbs in window.
func (r *databaseUsageREST) usages(dbs *db.DatabaseList, window time.Time) *db.DatabaseUsageList {
	out := &db.DatabaseUsageList{ListMeta: metav1.ListMeta{ResourceVersion: dbs.ResourceVersion}}
	for i := range dbs.Items {
		out.Items = append(out.Items, *r.usage(&dbs.Items[i], window))
	}
	return out
}

// usage computes the usage of d in the window starting at window: connections and CPU vary
// with the window and the Database's name, within bounds set by its replicas; storage grows
// with the window up to the Database's storage.
func (r *databaseUsageREST) usage(d *db.Database, window time.Time) *db.DatabaseUsage {
	h := fnv.New32a()
	h.Write([]byte(d.Namespace + "/" + d.Name))
	seed := int64(h.Sum32())
	tick := window.UnixNano() / int64(r.interval)
	replicas := int64(1)
	if d.Spec.Replicas != nil && *d.Spec.Replicas > 0 {
		replicas = int64(*d.Spec.Replicas)
	}
	capacity := d.Spec.Storage.Value()
	if capacity <= 0 {
		capacity = 1 << 30
	}
	return &db.DatabaseUsage{
		// No uid, owners or finalizers: a usage is no object of its own (metrics-server's
		// PodMetrics carry none either), so the garbage collector never mistakes it for the
		// Database whose name it shares.
		ObjectMeta: metav1.ObjectMeta{
			Name: d.Name, Namespace: d.Namespace, Labels: d.Labels,
			ResourceVersion: d.ResourceVersion, CreationTimestamp: d.CreationTimestamp,
		},
		Engine:    d.Spec.Engine,
		Timestamp: metav1.NewTime(window),
		Window:    metav1.Duration{Duration: r.interval},
		Usage: db.DatabaseUsageValues{
			Connections: int32((seed + tick*7) % (replicas*50 + 1)),
			CPU:         *resource.NewMilliQuantity(replicas*50+(seed+tick*13)%200, resource.DecimalSI),
			Storage:     *resource.NewQuantity(capacity/4+(seed+tick*4096)%(capacity/2), resource.BinarySI),
		},
	}
}

// labelSelector returns opts' label selector, or nil.
func labelSelector(opts *metainternalversion.ListOptions) labels.Selector {
	if opts == nil {
		return nil
	}
	return opts.LabelSelector
}
