package cacher_test

import (
	"context"
	"fmt"
	"reflect"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// coldWidget returns widget i of namespace "ns": labels, an annotation, managed fields
// (equal for every widget, so the cache interns them) and a spec of its own.
func coldWidget(i int) *testapi.Widget {
	return &testapi.Widget{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("w%02d", i), Namespace: "ns",
			Labels:      map[string]string{"app": "cold", "n": strconv.Itoa(i)},
			Annotations: map[string]string{"note": "widget <" + strconv.Itoa(i) + "> & more"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: "test.apigen.dev/v1", FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:color":{},"f:size":{}}}`)}}},
		},
		Spec: testapi.WidgetSpec{Color: []string{"red", "green", ""}[i%3], Size: int32(i)},
	}
}

// coldCacher returns a cache (with no cooler of its own: the test runs the passes) and the
// etcd3 storage under it, holding n widgets it has made cold, and the first widget's
// creation revision.
func coldCacher(t *testing.T, n int) (*cacher.Cacher, storage.Interface, int64) {
	t.Helper()
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	c := newCacher(t, client, prefix, nil, cacher.Config{CoolInterval: -1})
	ref := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	var first, last int64
	for i := range n {
		out := &testapi.Widget{}
		if err := c.Create(context.Background(), "/ns/"+coldWidget(i).Name, coldWidget(i), out); err != nil {
			t.Fatal(err)
		}
		rev, _ := strconv.ParseInt(out.ResourceVersion, 10, 64)
		first, last = cmpOr(first, rev), rev
	}
	waitFor(t, "the cache to hold the widgets", func() bool { return c.Revision() >= last })
	if got := c.YoungEntries(); got != 0 {
		t.Fatalf("a cache without a cooler holds %d new entries for a young pass; want none (nothing would take them)", got)
	}
	if got := c.CoolPass(); got != n {
		t.Fatalf("the first pass made %d new widgets cold; want %d (none was read)", got, n)
	}
	for i := range n {
		if cold, found := c.Cold("/ns/" + coldWidget(i).Name); !cold || !found {
			t.Fatalf("widget %d: cold %v, found %v after a pass without reads; want cold", i, cold, found)
		}
	}
	return c, ref, first
}

// TestYoungPass: the cooler's young pass makes cold the objects new to the cache since the
// previous one that nobody read, and only those: not a new object read since (the pass
// spends its read, as a full pass does), nor one changed or deleted since (its entry is no
// longer current), nor a changed object (kept decoded for a full pass).
func TestYoungPass(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	// A cooler whose first young pass is an hour away: the test runs the passes.
	c := newCacher(t, client, newPrefix(), nil, cacher.Config{CoolInterval: 10 * time.Hour})
	ctx := context.Background()
	var last int64
	write := func(i int, update bool) {
		t.Helper()
		out, key := &testapi.Widget{}, "/ns/"+coldWidget(i).Name
		var err error
		if update {
			err = c.GuaranteedUpdate(ctx, key, out, false, nil, func(in runtime.Object) (runtime.Object, error) {
				w := in.(*testapi.Widget)
				w.Spec.Size++
				return w, nil
			})
		} else {
			err = c.Create(ctx, key, coldWidget(i), out)
		}
		if err != nil {
			t.Fatal(err)
		}
		last, _ = strconv.ParseInt(out.ResourceVersion, 10, 64)
	}
	for i := range 5 {
		write(i, false)
	}
	write(3, true) // changed: its new entry is no longer the young one
	deleted := &testapi.Widget{}
	if err := c.Delete(ctx, "/ns/w04", deleted, nil, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the cache to see the writes", func() bool { return c.Revision() > last })
	if err := c.Get(ctx, "/ns/w00", storage.GetOptions{ResourceVersion: "0"}, &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	if got := c.YoungPass(); got != 2 {
		t.Errorf("the young pass made %d widgets cold; want 2 (w01, w02: new and unread)", got)
	}
	for i, want := range []bool{false, true, true, false} {
		if cold, found := c.Cold("/ns/" + coldWidget(i).Name); cold != want || !found {
			t.Errorf("w%02d: cold %v, found %v after the young pass; want cold %v", i, cold, found, want)
		}
	}
	if got := c.YoungPass(); got != 0 {
		t.Errorf("a second young pass with nothing new made %d widgets cold; want none", got)
	}
	// The young pass spent w00's read, as a full pass would have; w03's change keeps it
	// decoded for one full pass.
	if got := c.CoolPass(); got != 1 {
		t.Errorf("the full pass after them made %d widgets cold; want 1 (w00, unread since the young pass)", got)
	}
	if got := c.CoolPass(); got != 1 {
		t.Errorf("the second full pass made %d widgets cold; want 1 (w03)", got)
	}
}

func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// stored returns what the storage under the cache reads at key, decoded by itself.
func stored(t *testing.T, ref storage.Interface, key string) *testapi.Widget {
	t.Helper()
	out := &testapi.Widget{}
	if err := ref.Get(context.Background(), key, storage.GetOptions{}, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestColdObjectsReadBackEqual: an object not read for a cooling pass goes cold (only its
// compressed JSON is kept) and reads back equal (reflect.DeepEqual) to what storage
// decodes at its key, through a get, a list, a watch's initial events, a watch from an old
// revision and the objects the storage under the cache takes; a get keeps it decoded
// again (a later pass leaves it so), and the decoded objects share interned metadata.
func TestColdObjectsReadBackEqual(t *testing.T) {
	t.Parallel()
	const n = 6
	c, ref, first := coldCacher(t, n)
	ctx := context.Background()
	want := map[string]*testapi.Widget{}
	for i := range n {
		key := "/ns/" + coldWidget(i).Name
		want[key] = stored(t, ref, key)
	}
	check := func(how string, obj runtime.Object) {
		t.Helper()
		w := obj.(*testapi.Widget)
		key := "/ns/" + w.Name
		if !reflect.DeepEqual(w, want[key]) {
			t.Errorf("%s %s differs from the stored object (-stored +read):\n%s", how, key, cmp.Diff(want[key], w))
		}
	}

	got := &testapi.Widget{}
	if err := c.Get(ctx, "/ns/w01", storage.GetOptions{ResourceVersion: "0"}, got); err != nil {
		t.Fatal(err)
	}
	check("get", got)
	if cold, _ := c.Cold("/ns/w01"); cold {
		t.Errorf("a widget just read is still cold; want it decoded again")
	}
	if frozen := c.CoolPass(); frozen != 0 {
		t.Errorf("the pass after a read made %d widgets cold; want none (the read one is spared once)", frozen)
	}
	if cold, _ := c.Cold("/ns/w01"); cold {
		t.Errorf("a widget read since the last pass went cold")
	}
	c.CoolPass() // unread for a whole pass: cold again

	list := &testapi.WidgetList{}
	if err := c.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "0"}, list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n {
		t.Fatalf("list: %d widgets, want %d", len(list.Items), n)
	}
	for i := range list.Items {
		check("list", &list.Items[i])
	}

	for range 2 {
		c.CoolPass()
	}
	readOnly := request.WithReadOnlyResults(ctx)
	for _, opts := range []storage.ListOptions{
		{Recursive: true, ResourceVersion: "0"},                            // initial events from the cold objects
		{Recursive: true, ResourceVersion: strconv.FormatInt(first-1, 10)}, // the history
	} {
		w, err := c.Watch(readOnly, "/ns/", opts)
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			ev := <-w.ResultChan()
			if ev.Type != watch.Added {
				t.Fatalf("watch from %q: %s event, want ADDED", opts.ResourceVersion, ev.Type)
			}
			check("watch from "+opts.ResourceVersion, ev.Object)
		}
		w.Stop()
	}

	for range 2 {
		c.CoolPass()
	}
	var decoded []*testapi.Widget
	for i := range n {
		key := "/ns/" + coldWidget(i).Name
		rev, _ := strconv.ParseInt(want[key].ResourceVersion, 10, 64)
		obj, ok := c.DecodedObject(key, rev)
		if !ok {
			t.Fatalf("DecodedObject(%s, %d) found nothing", key, rev)
		}
		check("DecodedObject", obj)
		decoded = append(decoded, obj.(*testapi.Widget))
	}
	a, b := decoded[0].ManagedFields[0], decoded[1].ManagedFields[0]
	if unsafe.SliceData(a.FieldsV1.Raw) != unsafe.SliceData(b.FieldsV1.Raw) || unsafe.StringData(a.Manager) != unsafe.StringData(b.Manager) {
		t.Errorf("two widgets decoded from cold with equal managed fields hold a copy each; want them shared")
	}
}

// TestColdReadsWhileCooling: reads of every kind (gets, lists, watches' initial events, the
// storage's decoded objects) and writes while the cooler passes every millisecond, for the
// race detector; every object read is the one stored at its key and revision.
func TestColdReadsWhileCooling(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	c := newCacher(t, client, prefix, nil, cacher.Config{CoolInterval: time.Millisecond})
	ctx := context.Background()
	const n = 8
	var last int64
	for i := range n {
		out := &testapi.Widget{}
		if err := c.Create(ctx, "/ns/"+coldWidget(i).Name, coldWidget(i), out); err != nil {
			t.Fatal(err)
		}
		last, _ = strconv.ParseInt(out.ResourceVersion, 10, 64)
	}
	waitFor(t, "the cache to hold the widgets", func() bool { return c.Revision() >= last })
	// valid reports whether w is a widget as written: the spec's size is its index, or a
	// later write's (a multiple of 100 more), and its labels are intact.
	valid := func(w *testapi.Widget) bool {
		i, err := strconv.Atoi(w.Labels["n"])
		return err == nil && w.Name == coldWidget(i).Name && int(w.Spec.Size)%100 == i && w.Labels["app"] == "cold"
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	wg.Go(func() { // writer
		for round := 1; round <= 10; round++ {
			for i := range n {
				err := c.GuaranteedUpdate(ctx, "/ns/"+coldWidget(i).Name, &testapi.Widget{}, false, nil,
					func(in runtime.Object) (runtime.Object, error) {
						w := in.(*testapi.Widget)
						w.Spec.Size = int32(100*round + i)
						return w, nil
					})
				if err != nil {
					errs <- err.Error()
					return
				}
			}
		}
	})
	for r := range 4 {
		wg.Go(func() {
			rctx := ctx
			if r%2 == 0 {
				rctx = request.WithReadOnlyResults(ctx)
			}
			for range 50 {
				list := &testapi.WidgetList{}
				if err := c.GetList(rctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "0"}, list); err != nil {
					errs <- err.Error()
					return
				}
				for i := range list.Items {
					if !valid(&list.Items[i]) {
						errs <- fmt.Sprintf("list read %+v", list.Items[i])
					}
				}
				got := &testapi.Widget{}
				if err := c.Get(rctx, "/ns/w03", storage.GetOptions{ResourceVersion: "0"}, got); err != nil || !valid(got) {
					errs <- fmt.Sprintf("get read %+v, %v", got, err)
				}
				w, err := c.Watch(rctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "0"})
				if err != nil {
					errs <- err.Error()
					return
				}
				ev := <-w.ResultChan()
				w.Stop()
				if obj, ok := ev.Object.(*testapi.Widget); !ok || !valid(obj) {
					errs <- fmt.Sprintf("watch read %+v", ev.Object)
				}
				rev, _ := strconv.ParseInt(got.ResourceVersion, 10, 64)
				if obj, ok := c.DecodedObject("/ns/w03", rev); ok && !valid(obj.(*testapi.Widget)) {
					errs <- fmt.Sprintf("DecodedObject read %+v", obj)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	waitFor(t, "the cooler to make a widget cold", func() bool {
		cold, _ := c.Cold("/ns/w00")
		return cold
	})
}

// TestCoolerRunsOnATimer: a cache's cooler makes its unread objects cold every CoolInterval
// without a goroutine of its own waiting between passes (a server has a cache per
// resource), and Stop still waits for it.
func TestCoolerRunsOnATimer(t *testing.T) {
	client, _ := etcdtest.Run(t)
	c := newCacher(t, client, newPrefix(), nil, cacher.Config{CoolInterval: 20 * time.Millisecond})
	var last int64
	for i := range 3 {
		out := &testapi.Widget{}
		if err := c.Create(context.Background(), "/ns/"+coldWidget(i).Name, coldWidget(i), out); err != nil {
			t.Fatal(err)
		}
		last, _ = strconv.ParseInt(out.ResourceVersion, 10, 64)
	}
	waitFor(t, "the cache to hold the widgets", func() bool { return c.Revision() >= last })
	waitFor(t, "the cooler to make the widgets cold", func() bool {
		for i := range 3 {
			if cold, _ := c.Cold("/ns/" + coldWidget(i).Name); !cold {
				return false
			}
		}
		return true
	})
	var stacks strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&stacks, 2); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stacks.String(), ".(*Cacher).cool(") {
		t.Errorf("a goroutine waits in the cooler between passes:\n%s", stacks.String())
	}
	c.Stop()
}

// TestListFreezesAllButItsLastPage: a cache with a cooler that lists storage in pages makes
// each page's objects cold before it reads the next page, so a relist of many objects holds
// one page decoded; the last page stays decoded, and what the cache serves of a listed cold
// object equals what storage holds. A cache without a cooler keeps every object decoded.
// Not parallel: it sets the list page size.
func TestListFreezesAllButItsLastPage(t *testing.T) {
	t.Cleanup(cacher.SetListPageSize(10))
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	ref := etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	const n = 35
	for i := range n {
		if err := ref.Create(context.Background(), "/ns/"+coldWidget(i).Name, coldWidget(i), &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		interval time.Duration
		cold     int
	}{{"cooler", 10 * time.Hour, 30}, {"no cooler", -1, 0}} {
		c := newCacher(t, client, prefix, nil, cacher.Config{CoolInterval: tc.interval})
		cold := 0
		for i := range n {
			isCold, found := c.Cold("/ns/" + coldWidget(i).Name)
			if !found {
				t.Fatalf("%s: widget %d not in the synced cache", tc.name, i)
			}
			if isCold {
				cold++
			}
		}
		if cold != tc.cold {
			t.Errorf("%s: %d of %d listed widgets cold after a list in pages of 10; want %d (all but the last page's)", tc.name, cold, n, tc.cold)
		}
		for _, i := range []int{0, n - 1} {
			key := "/ns/" + coldWidget(i).Name
			got, want := &testapi.Widget{}, &testapi.Widget{}
			if err := c.Get(context.Background(), key, storage.GetOptions{ResourceVersion: "0"}, got); err != nil {
				t.Fatal(err)
			}
			if err := ref.Get(context.Background(), key, storage.GetOptions{}, want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: widget %d from the cache differs from storage's (-storage +cache):\n%s", tc.name, i, diff)
			}
		}
	}
}

// coldWidgets returns how many of the first n coldWidget widgets c holds cold.
func coldWidgets(c *cacher.Cacher, n int) (cold int) {
	for i := range n {
		if isCold, _ := c.Cold("/ns/" + coldWidget(i).Name); isCold {
			cold++
		}
	}
	return cold
}

// redWidgets selects the widgets whose spec.color is red.
func redWidgets() storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: labels.Everything(), Field: fields.OneTermEqualSelector("spec.color", "red"),
		GetAttrs: testapi.GetAttrs}
}

// TestTransientListLeavesObjectsCold: a list by a reader marked with
// request.WithTransientReads (the garbage collector's relist) returns the stored objects and
// leaves the cold ones cold and unmarked, unfiltered and filtered alike, however often it
// lists; plain lists decode them again and keep them decoded from their second listing.
func TestTransientListLeavesObjectsCold(t *testing.T) {
	t.Parallel()
	const n = 4
	c, ref, _ := coldCacher(t, n)
	ctx := request.WithReadOnlyResults(context.Background())
	red := redWidgets()
	for _, tc := range []struct {
		name string
		pred storage.SelectionPredicate
		want int
	}{{"unfiltered", storage.SelectionPredicate{}, n}, {"filtered", red, 2}} {
		list := &testapi.WidgetList{}
		opts := storage.ListOptions{Recursive: true, ResourceVersion: "0", Predicate: tc.pred}
		if err := c.GetList(request.WithTransientReads(ctx), "/ns/", opts, list); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != tc.want {
			t.Fatalf("%s transient list: %d widgets, want %d", tc.name, len(list.Items), tc.want)
		}
		for i := range list.Items {
			key := "/ns/" + list.Items[i].Name
			if want := stored(t, ref, key); !reflect.DeepEqual(&list.Items[i], want) {
				t.Errorf("%s transient list: %s differs from the stored object (-stored +listed):\n%s", tc.name, key, cmp.Diff(want, &list.Items[i]))
			}
		}
		if cold := coldWidgets(c, n); cold != n {
			t.Errorf("%s transient list left %d of %d widgets cold; want all", tc.name, cold, n)
		}
	}
	for range 2 {
		if err := c.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "0"}, &testapi.WidgetList{}); err != nil {
			t.Fatal(err)
		}
	}
	if cold := coldWidgets(c, n); cold != 0 {
		t.Errorf("two plain lists left %d widgets cold; want them decoded again", cold)
	}
}

// TestListKeepsObjectsListedAgain: a list, or a watch's initial events, decodes a cold object
// for itself the first time the object is read since the cooler's last pass (the object
// stays cold, so a one-off list of many cold objects, an informer starting, does not keep
// them all decoded), and keeps it decoded when it is listed again before the next pass. A
// filtered list reads each object once: its matches stay cold too.
func TestListKeepsObjectsListedAgain(t *testing.T) {
	t.Parallel()
	const n = 4
	c, ref, _ := coldCacher(t, n)
	ctx := request.WithReadOnlyResults(context.Background())
	cold := func() int { return coldWidgets(c, n) }
	list := func(pred storage.SelectionPredicate) []testapi.Widget {
		t.Helper()
		out := &testapi.WidgetList{}
		if err := c.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "0", Predicate: pred}, out); err != nil {
			t.Fatal(err)
		}
		for i := range out.Items {
			if want := stored(t, ref, "/ns/"+out.Items[i].Name); !reflect.DeepEqual(&out.Items[i], want) {
				t.Errorf("%s differs from the stored object (-stored +listed):\n%s", out.Items[i].Name, cmp.Diff(want, &out.Items[i]))
			}
		}
		return out.Items
	}

	if got := len(list(storage.SelectionPredicate{})); got != n {
		t.Fatalf("list: %d widgets, want %d", got, n)
	}
	if got := cold(); got != n {
		t.Fatalf("a first list left %d of %d widgets cold; want all", got, n)
	}
	c.CoolPass() // forgets the listing
	list(storage.SelectionPredicate{})
	if got := cold(); got != n {
		t.Fatalf("a list after a pass left %d of %d widgets cold; want all (the pass forgot the list before it)", got, n)
	}
	list(storage.SelectionPredicate{})
	if got := cold(); got != 0 {
		t.Fatalf("a second list before a pass left %d widgets cold; want them decoded and kept", got)
	}

	for range 2 {
		c.CoolPass()
	}
	if got := cold(); got != n {
		t.Fatalf("%d of %d widgets cold after two passes without reads; want all", got, n)
	}
	if got := len(list(redWidgets())); got != 2 {
		t.Fatalf("filtered list: %d widgets, want 2", got)
	}
	if got := cold(); got != n {
		t.Errorf("a first filtered list left %d of %d widgets cold; want all (each matched once, not again to be handed out)", got, n)
	}

	c.CoolPass()
	w, err := c.Watch(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for range n {
		if ev := <-w.ResultChan(); ev.Type != watch.Added {
			t.Fatalf("initial event %s, want ADDED", ev.Type)
		}
	}
	if got := cold(); got != n {
		t.Errorf("a watch's initial events left %d of %d widgets cold; want all", got, n)
	}
}
