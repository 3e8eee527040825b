package storagetest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// page is what a list page shows a client, for comparisons.
type page struct {
	ResourceVersion string
	Continue        string
	Remaining       *int64
	Items           []string // namespace/name@resourceVersion color labels
}

// listPages lists key with opts page by page (following continue tokens) and returns the
// pages.
func listPages(t *testing.T, s storage.Interface, key string, opts storage.ListOptions) []page {
	t.Helper()
	var pages []page
	for range 1000 {
		l := list(t, s, key, opts)
		p := page{ResourceVersion: l.ResourceVersion, Continue: l.Continue, Remaining: l.RemainingItemCount}
		for _, w := range l.Items {
			p.Items = append(p.Items, fmt.Sprintf("%s/%s@%s %s %v", w.Namespace, w.Name, w.ResourceVersion, w.Spec.Color, w.Labels))
		}
		pages = append(pages, p)
		if l.Continue == "" {
			return pages
		}
		opts.Predicate.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = l.Continue, "", ""
	}
	t.Fatalf("list of %s did not end within 1000 pages", key)
	return nil
}

// randomWrites makes n random creates, updates and deletes of widgets in three namespaces
// with random colors and labels, and returns the revision after each.
func randomWrites(t *testing.T, s storage.Interface, rnd *rand.Rand, n int) []int64 {
	t.Helper()
	colors := []string{"red", "green", "blue"}
	live := map[string]bool{}
	var revs []int64
	for i := range n {
		ns, name := fmt.Sprintf("ns%d", rnd.IntN(3)), fmt.Sprintf("w%02d", rnd.IntN(25))
		color := colors[rnd.IntN(3)]
		lbls := map[string]string{"color": color, "tier": fmt.Sprint(rnd.IntN(3))}
		k := ns + "/" + name
		switch {
		case !live[k]:
			revs = append(revs, rvOf(t, create(t, s, ns, name, color, lbls)))
			live[k] = true
		case rnd.IntN(4) == 0:
			out := &testapi.Widget{}
			if err := s.Delete(testContext(t), key(ns, name), out, nil, nil); err != nil {
				t.Fatalf("Delete %s: %v", k, err)
			}
			revs = append(revs, rvOf(t, out))
			delete(live, k)
		default:
			revs = append(revs, rvOf(t, update(t, s, ns, name, func(w *testapi.Widget) {
				w.Spec.Color, w.Labels, w.Spec.Size = color, lbls, int32(i)
			})))
		}
	}
	return revs
}

// randomPredicate returns a random selection: everything, a label selector, a field
// selector, or both, with a random page size (0: unpaged).
func randomPredicate(rnd *rand.Rand) storage.SelectionPredicate {
	p := storage.SelectionPredicate{GetAttrs: testapi.GetAttrs, Limit: int64(rnd.IntN(8))}
	switch rnd.IntN(7) {
	case 5:
		p.Field = fields.OneTermEqualSelector("metadata.namespace", fmt.Sprintf("ns%d", rnd.IntN(3)))
	case 6:
		p.Field = fields.AndSelectors(fields.OneTermEqualSelector("metadata.namespace", fmt.Sprintf("ns%d", rnd.IntN(3))),
			fields.OneTermEqualSelector("metadata.name", fmt.Sprintf("w%02d", rnd.IntN(25))))
	case 1:
		p.Label = labels.SelectorFromSet(labels.Set{"color": []string{"red", "green", "blue"}[rnd.IntN(3)]})
	case 2:
		sel, _ := labels.Parse(fmt.Sprintf("tier in (%d,%d)", rnd.IntN(3), rnd.IntN(3)))
		p.Label = sel
	case 3:
		p.Field = fields.OneTermEqualSelector("spec.color", []string{"red", "green", "blue"}[rnd.IntN(3)])
	case 4:
		p.Field = fields.OneTermNotEqualSelector("metadata.namespace", fmt.Sprintf("ns%d", rnd.IntN(3)))
		p.Label = labels.SelectorFromSet(labels.Set{"tier": fmt.Sprint(rnd.IntN(3))})
	}
	return p
}

// testListMatchesReference: after random writes, lists of the backend at random revisions
// (Exact), with random selectors and page sizes, show the same pages, continue tokens and
// remainingItemCount as lists of the reference (etcd itself); consistent lists show the same
// items.
func testListMatchesReference(t *testing.T, b Backend) {
	if b.NewReference == nil {
		t.Skip("backend has no reference storage")
	}
	s := b.New(t)
	ref := b.NewReference(t)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(uint64(seed), 18))
	revs := randomWrites(t, s, rnd, 120)
	for range 60 {
		k := []string{"/", "/ns0/", "/ns1/", "/ns2/"}[rnd.IntN(4)]
		pred := randomPredicate(rnd)
		rv := revs[rnd.IntN(len(revs))]
		opts := storage.ListOptions{ResourceVersion: fmt.Sprint(rv), ResourceVersionMatch: metav1.ResourceVersionMatchExact, Predicate: pred}
		want, got := listPages(t, ref, k, opts), listPages(t, s, k, opts)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("list of %s at %d, labels %v, fields %v, limit %d (-reference +backend):\n%s",
				k, rv, pred.Label, pred.Field, pred.Limit, diff)
		}
		opts = storage.ListOptions{Predicate: pred}
		want, got = listPages(t, ref, k, opts), listPages(t, s, k, opts)
		if diff := cmp.Diff(itemsOf(want), itemsOf(got)); diff != "" {
			t.Fatalf("consistent list of %s, labels %v, fields %v, limit %d (-reference +backend):\n%s",
				k, pred.Label, pred.Field, pred.Limit, diff)
		}
	}
}

// itemsOf returns the items of pages, in order.
func itemsOf(pages []page) []string {
	var out []string
	for _, p := range pages {
		out = append(out, p.Items...)
	}
	return out
}

// testReplicaReadYourWrites: a write through one storage is seen at once by consistent reads
// (lists, gets) and watches of another storage of the same objects over another client, as
// two servers on one etcd.
func testReplicaReadYourWrites(t *testing.T, b Backend) {
	if b.NewReplica == nil {
		t.Skip("backend has no replica")
	}
	s := b.New(t)
	other := b.NewReplica(t)
	w, err := other.Watch(testContext(t), "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "0"})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	t.Cleanup(w.Stop)
	for i := range 20 {
		name := fmt.Sprintf("w%02d", i)
		created := create(t, s, "ns", name, "red", nil)
		got := list(t, other, "/ns/", storage.ListOptions{})
		if n := len(got.Items); n != i+1 || got.Items[i].ResourceVersion != created.ResourceVersion {
			t.Fatalf("consistent list of the replica after create %d: %d items %v; want %d, the last at %s",
				i, n, names(got), i+1, created.ResourceVersion)
		}
		updated := update(t, s, "ns", name, func(w *testapi.Widget) { w.Spec.Color = "blue" })
		one := &testapi.Widget{}
		if err := other.Get(testContext(t), key("ns", name), storage.GetOptions{}, one); err != nil || one.ResourceVersion != updated.ResourceVersion {
			t.Fatalf("Get of the replica after an update: %v, resourceVersion %s; want %s", err, one.ResourceVersion, updated.ResourceVersion)
		}
		paged := list(t, other, "/ns/", storage.ListOptions{Predicate: storage.SelectionPredicate{Limit: 100}})
		if last := paged.Items[len(paged.Items)-1]; last.ResourceVersion != updated.ResourceVersion {
			t.Fatalf("paged consistent list of the replica after an update: %s at %s; want %s", last.Name, last.ResourceVersion, updated.ResourceVersion)
		}
		expect(t, w, watch.Added, name, "red")
		expect(t, w, watch.Modified, name, "blue")
	}
}
