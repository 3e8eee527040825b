package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// forestKind is one kind the randomized garbage collection test builds forests of.
type forestKind struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
	spec       map[string]any
}

// forestKinds: typed kinds and custom resources, namespaced and cluster-scoped.
var forestKinds = []forestKind{
	{schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databases"}, "Database", true,
		map[string]any{"engine": "postgres"}},
	{schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "backups"}, "Backup", true,
		map[string]any{"databaseName": "any"}},
	{schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databaseclasses"}, "DatabaseClass", false,
		map[string]any{"engine": "mysql"}},
	{crontabs, "CronTab", true, map[string]any{"image": "backup"}},
	{schema.GroupVersionResource{Group: "paint.example.com", Version: "v1", Resource: "colors"}, "Color", false,
		map[string]any{"hex": "#00ff00"}},
}

// forestNamespaces are the namespaces the namespaced objects are spread over.
var forestNamespaces = []string{"default", "kube-public"}

// forestObject is one object of a forest as the test created it.
type forestObject struct {
	kind      *forestKind
	namespace string
	name      string
	uid       types.UID
	owners    []int // indexes of its owners in the forest
}

func (o *forestObject) String() string {
	return fmt.Sprintf("%s %s/%s", o.kind.kind, o.namespace, o.name)
}

// TestGarbageCollectionRandomForests: forests of owners and
// dependents of several kinds in both scopes (each dependent owned by up to three earlier
// objects of a scope that may own it), then random deletes with random propagation
// policies, several on the same object at times. Once the collector is done: no object whose
// owners are all gone remains (unless one was deleted with Orphan), no object with a live
// owner was deleted, no ownerReference names a missing owner, and no finalizer or
// deletionTimestamp is left. APIGEN_GC_SEED=<n> replays a run; each round logs its seed.
func TestGarbageCollectionRandomForests(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", crdsDir+"/crontab.yaml", "-f", writeCRDManifest(t, "colors.yaml", clusterCRD("colors", "Color")))
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=30s", "crd/crontabs.stable.example.com", "crd/colors.paint.example.com")
	waitForAPIResource(t, s, "paint.example.com", regexp.MustCompile(`(?m)^colors\s`))
	dyn := s.unthrottled(t)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("APIGEN_GC_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("APIGEN_GC_SEED: %v", err)
		}
		seed = n
	}
	for round := range 3 {
		roundSeed := seed + uint64(round)
		t.Logf("round %d: APIGEN_GC_SEED=%d", round, roundSeed)
		rng := rand.New(rand.NewPCG(roundSeed, roundSeed))
		forest := buildForest(t, dyn, rng, fmt.Sprintf("r%d-", round), 50)
		start := time.Now()
		deleted, orphaning := deleteRandomly(t, dyn, rng, forest)
		live := waitForCollection(t, s, dyn, forest)
		checkForest(t, forest, live, deleted, orphaning)
		t.Logf("round %d: %d objects, %d deleted by the test (%d with Orphan), %d collected, %d left; settled in %v",
			round, len(forest), len(deleted), len(orphaning), len(forest)-len(live)-len(deleted), len(live), time.Since(start))
		if t.Failed() {
			t.Fatalf("round %d failed; replay with APIGEN_GC_SEED=%d", round, roundSeed)
		}
	}
}

// buildForest creates n objects named prefix<i>, each of a random kind and scope-valid owners
// chosen among the objects created before it.
func buildForest(t *testing.T, dyn dynamic.Interface, rng *rand.Rand, prefix string, n int) []*forestObject {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gcWait)
	defer cancel()
	forest := make([]*forestObject, 0, n)
	for i := range n {
		k := &forestKinds[rng.IntN(len(forestKinds))]
		o := &forestObject{kind: k, name: prefix + strconv.Itoa(i)}
		if k.namespaced {
			o.namespace = forestNamespaces[rng.IntN(len(forestNamespaces))]
		}
		var candidates []int
		for j, c := range forest {
			if !c.kind.namespaced || (o.namespace != "" && c.namespace == o.namespace) {
				candidates = append(candidates, j)
			}
		}
		rng.Shuffle(len(candidates), func(a, b int) { candidates[a], candidates[b] = candidates[b], candidates[a] })
		o.owners = candidates[:min(len(candidates), rng.IntN(4))]
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": k.gvr.GroupVersion().String(), "kind": k.kind,
			"metadata": map[string]any{"name": o.name}, "spec": k.spec}}
		var refs []metav1.OwnerReference
		for _, j := range o.owners {
			block := rng.IntN(2) == 0
			ow := forest[j]
			refs = append(refs, metav1.OwnerReference{APIVersion: ow.kind.gvr.GroupVersion().String(), Kind: ow.kind.kind,
				Name: ow.name, UID: ow.uid, BlockOwnerDeletion: &block})
		}
		u.SetOwnerReferences(refs)
		created, err := dyn.Resource(k.gvr).Namespace(o.namespace).Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", o, err)
		}
		o.uid = created.GetUID()
		forest = append(forest, o)
	}
	return forest
}

var policies = []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}

// deleteRandomly deletes random objects of forest (a third of it, more often older ones, some
// twice, with random policies) one after the other without waiting, and returns which it asked to delete and
// which it asked to delete with Orphan.
func deleteRandomly(t *testing.T, dyn dynamic.Interface, rng *rand.Rand, forest []*forestObject) (deleted, orphaning map[int]bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gcWait)
	defer cancel()
	deleted, orphaning = map[int]bool{}, map[int]bool{}
	for range len(forest) / 3 {
		i := rng.IntN(rng.IntN(len(forest)) + 1) // biased to the older objects, which own more
		o := forest[i]
		policy := policies[rng.IntN(len(policies))]
		uid := o.uid
		err := dyn.Resource(o.kind.gvr).Namespace(o.namespace).Delete(ctx, o.name,
			metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}})
		if apierrors.IsNotFound(err) {
			continue // collected already
		}
		if err != nil {
			t.Fatalf("delete %s (%s): %v", o, policy, err)
		}
		deleted[i] = true
		if policy == metav1.DeletePropagationOrphan {
			orphaning[i] = true
		}
	}
	return deleted, orphaning
}

// liveObject is what is left of a forest object.
type liveObject struct {
	owners     []metav1.OwnerReference
	finalizers []string
	deleting   bool
}

// snapshot returns the forest's objects that exist now, by index.
func snapshot(t *testing.T, dyn dynamic.Interface, forest []*forestObject) map[int]liveObject {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gcWait)
	defer cancel()
	byUID := map[types.UID]liveObject{}
	for _, k := range forestKinds {
		list, err := dyn.Resource(k.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list %s: %v", k.gvr, err)
		}
		for _, item := range list.Items {
			byUID[item.GetUID()] = liveObject{owners: item.GetOwnerReferences(), finalizers: item.GetFinalizers(),
				deleting: item.GetDeletionTimestamp() != nil}
		}
	}
	out := map[int]liveObject{}
	for i, o := range forest {
		if l, ok := byUID[o.uid]; ok {
			out[i] = l
		}
	}
	return out
}

// settled reports whether live is a state the collector is done with: nothing being
// deleted, and every ownerReference naming a live owner.
func settled(forest []*forestObject, live map[int]liveObject) bool {
	alive := map[types.UID]bool{}
	for i := range live {
		alive[forest[i].uid] = true
	}
	for _, l := range live {
		if l.deleting || len(l.finalizers) > 0 {
			return false
		}
		for _, ref := range l.owners {
			if !alive[ref.UID] {
				return false
			}
		}
	}
	return true
}

// waitForCollection polls until the forest has settled, then looks once more a little later
// (a wrong collector gets the chance to delete more), and returns what is left. A forest that
// does not settle within gcWait is returned as it is, for checkForest to report.
func waitForCollection(t *testing.T, s *apiServer, dyn dynamic.Interface, forest []*forestObject) map[int]liveObject {
	t.Helper()
	deadline := time.Now().Add(gcWait)
	live := snapshot(t, dyn, forest)
	for !settled(forest, live) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		live = snapshot(t, dyn, forest)
	}
	if !settled(forest, live) {
		t.Errorf("the forest did not settle within %v\nserver output:\n%s", gcWait, s.proc.Output())
		return live
	}
	time.Sleep(500 * time.Millisecond)
	return snapshot(t, dyn, forest)
}

// checkForest checks the final state live of forest against the invariants of
// TestGarbageCollectionRandomForests.
func checkForest(t *testing.T, forest []*forestObject, live map[int]liveObject, deleted, orphaning map[int]bool) {
	t.Helper()
	alive := map[types.UID]bool{}
	for i := range live {
		alive[forest[i].uid] = true
	}
	for i, o := range forest {
		l, exists := live[i]
		if !exists {
			if deleted[i] {
				continue
			}
			for _, j := range o.owners {
				if _, ownerLives := live[j]; ownerLives {
					t.Errorf("%s was deleted although its owner %s lives", o, forest[j])
				}
			}
			if len(o.owners) == 0 {
				t.Errorf("%s, which has no owner and was not deleted, is gone", o)
			}
			continue
		}
		if deleted[i] {
			t.Errorf("%s was deleted and remains (finalizers %v, deleting %v)", o, l.finalizers, l.deleting)
		}
		if len(l.finalizers) > 0 || l.deleting {
			t.Errorf("%s is left with finalizers %v, deleting %v", o, l.finalizers, l.deleting)
		}
		var missing []string
		for _, ref := range l.owners {
			if !alive[ref.UID] {
				missing = append(missing, ref.Name)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s remains with references to missing owners %s", o, strings.Join(missing, ", "))
		}
		if len(o.owners) > 0 && !anyAlive(o.owners, live) && !anyOrphaning(o.owners, orphaning) {
			t.Errorf("%s remains although all its owners are gone and none was deleted with Orphan", o)
		}
	}
}

func anyAlive(owners []int, live map[int]liveObject) bool {
	for _, j := range owners {
		if _, ok := live[j]; ok {
			return true
		}
	}
	return false
}

func anyOrphaning(owners []int, orphaning map[int]bool) bool {
	for _, j := range owners {
		if orphaning[j] {
			return true
		}
	}
	return false
}
