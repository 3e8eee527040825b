package garbagecollector

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
)

const hold = "test.apigen.dev/hold"

// TestForegroundDeletion: an owner deleted in the foreground keeps its deletionTimestamp and
// foregroundDeletion finalizer while a dependent with blockOwnerDeletion=true exists (here
// one a finalizer keeps), its dependents are deleted meanwhile (blocking or not), and it goes
// once the last blocking one has.
func TestForegroundDeletion(t *testing.T) {
	f := newFixture(t, nil)
	owner := f.widget(t, "a", "owner", nil)
	f.widget(t, "a", "held", []string{hold}, ownerRef("Widget", "owner", owner.UID, true))
	f.widget(t, "a", "blocking", nil, ownerRef("Widget", "owner", owner.UID, true))
	f.widget(t, "a", "nonblocking", nil, ownerRef("Widget", "owner", owner.UID, false))

	f.deleteWidget(t, "a", "owner", metav1.DeletePropagationForeground)
	waitFor(t, "the dependents to be deleted", func() bool {
		held := f.getWidget(t, "a", "held")
		return held != nil && held.DeletionTimestamp != nil && f.getWidget(t, "a", "blocking") == nil &&
			f.getWidget(t, "a", "nonblocking") == nil
	})
	// The owner waits for its held dependent; give the collector time to get it wrong.
	time.Sleep(300 * time.Millisecond)
	o := f.getWidget(t, "a", "owner")
	if o == nil || o.DeletionTimestamp == nil || !slices.Equal(o.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
		t.Fatalf("owner while a blocking dependent remains: %+v", o)
	}
	f.removeFinalizers(t, "a", "held")
	waitFor(t, "the owner to go after its last blocking dependent", func() bool { return f.getWidget(t, "a", "owner") == nil })
}

// TestOrphanDeletion: an owner deleted with propagationPolicy Orphan goes once the collector
// has removed it from its dependents' ownerReferences; the dependents stay.
func TestOrphanDeletion(t *testing.T) {
	f := newFixture(t, nil)
	owner := f.widget(t, "a", "owner", nil)
	other := f.widget(t, "a", "other", nil)
	f.widget(t, "a", "child", nil, ownerRef("Widget", "owner", owner.UID, true))
	f.widget(t, "a", "shared", nil, ownerRef("Widget", "owner", owner.UID, false), ownerRef("Widget", "other", other.UID, false))
	f.deleteWidget(t, "a", "owner", metav1.DeletePropagationOrphan)
	waitFor(t, "the orphaning owner to go", func() bool { return f.getWidget(t, "a", "owner") == nil })
	child, shared := f.getWidget(t, "a", "child"), f.getWidget(t, "a", "shared")
	if child == nil || len(child.OwnerReferences) != 0 {
		t.Errorf("orphaned child: %+v", child)
	}
	if shared == nil || len(shared.OwnerReferences) != 1 || shared.OwnerReferences[0].UID != other.UID {
		t.Errorf("orphaned shared dependent: %+v", shared)
	}
	time.Sleep(300 * time.Millisecond) // the orphans must stay: give the collector time to get it wrong
	if f.getWidget(t, "a", "child") == nil {
		t.Error("an orphaned dependent was deleted")
	}
}

// TestRecreatedOwner: a dependent naming an owner's old uid is collected once the owner is
// deleted and created again under the same name; the new owner's dependents stay.
func TestRecreatedOwner(t *testing.T) {
	f := newFixture(t, nil)
	first := f.widget(t, "a", "owner", nil)
	f.widget(t, "a", "old-child", []string{hold}, ownerRef("Widget", "owner", first.UID, false))
	f.deleteWidget(t, "a", "owner", metav1.DeletePropagationBackground)
	second := f.widget(t, "a", "owner", nil)
	f.widget(t, "a", "new-child", nil, ownerRef("Widget", "owner", second.UID, false))
	f.widget(t, "a", "stale", nil, ownerRef("Widget", "owner", "0c0ffee0-0000-0000-0000-000000000000", false))
	waitFor(t, "the old owner's dependents to be deleted", func() bool {
		old := f.getWidget(t, "a", "old-child")
		return old != nil && old.DeletionTimestamp != nil && f.getWidget(t, "a", "stale") == nil
	})
	time.Sleep(300 * time.Millisecond)
	if f.getWidget(t, "a", "new-child") == nil || f.getWidget(t, "a", "owner") == nil {
		t.Error("the collector deleted the recreated owner or its dependent")
	}
}

// TestInvalidNamespaceOwnerReferences: a cluster-scoped dependent naming a namespaced owner is
// reported (OwnerRefInvalidNamespace) and never deleted; a dependent naming a namespaced
// owner of another namespace is reported and, its owner being absent from its own namespace,
// collected, as kube's garbage collector does.
func TestInvalidNamespaceOwnerReferences(t *testing.T) {
	f := newFixture(t, nil)
	owner := f.widget(t, "a", "owner", nil)
	f.gadget(t, "cluster-dependent", ownerRef("Widget", "owner", owner.UID, false))
	f.widget(t, "b", "cross-namespace", nil, ownerRef("Widget", "owner", owner.UID, false))
	waitFor(t, "the cross-namespace dependent to be collected", func() bool { return f.getWidget(t, "b", "cross-namespace") == nil })
	waitFor(t, "both events", func() bool {
		var got []string
		for _, ev := range f.events.snapshot() {
			if ev.reason == ReasonOwnerRefInvalidNamespace {
				got = append(got, ev.object)
			}
		}
		return slices.Contains(got, "Gadget /cluster-dependent") && slices.Contains(got, "Widget b/cross-namespace")
	})
	for _, ev := range f.events.snapshot() {
		if ev.object == "Widget b/cross-namespace" && !strings.Contains(ev.message, `does not exist in namespace "b"`) {
			t.Errorf("event message: %q", ev.message)
		}
	}
	f.deleteWidget(t, "a", "owner", metav1.DeletePropagationBackground)
	time.Sleep(500 * time.Millisecond)
	if !f.gadgetExists(t, "cluster-dependent") {
		t.Error("a cluster-scoped dependent of a namespaced owner was deleted")
	}
}

// TestRunAgainFinishesForegroundDeletion: a foreground deletion under way when the collector
// stops is finished by the next Run, from a fresh graph (as after a restart, or when another
// replica takes the lease).
func TestRunAgainFinishesForegroundDeletion(t *testing.T) {
	f := newFixture(t, nil)
	owner := f.widget(t, "a", "owner", nil)
	f.widget(t, "a", "held", []string{hold}, ownerRef("Widget", "owner", owner.UID, true))
	f.deleteWidget(t, "a", "owner", metav1.DeletePropagationForeground)
	waitFor(t, "the held dependent to be deleted", func() bool {
		held := f.getWidget(t, "a", "held")
		return held != nil && held.DeletionTimestamp != nil
	})
	f.stop()
	if f.gc.IsSynced() {
		t.Error("IsSynced after Run returned")
	}
	f.removeFinalizers(t, "a", "held")
	if f.getWidget(t, "a", "owner") == nil {
		t.Fatal("the owner went while no collector ran")
	}
	f.start(t)
	waitFor(t, "the owner to go after the collector ran again", func() bool { return f.getWidget(t, "a", "owner") == nil })
}

// TestResyncWatchesNewResources: a resource a Source starts listing (as a new custom
// resource) is watched after Resync, without a restart.
func TestResyncWatchesNewResources(t *testing.T) {
	var withGadgets atomic.Bool
	f := newFixture(t, func(_ *install.Stores, info *registry.APIGroupInfo) Source {
		return SourceFunc(func() []Resource {
			all := APIGroupResources(info)
			if withGadgets.Load() {
				return all
			}
			return slices.DeleteFunc(all, func(r Resource) bool { return r.Kind == "Gadget" })
		})
	})
	g := f.gadget(t, "owner")
	f.widget(t, "a", "child", nil, ownerRef("Gadget", "owner", g.UID, false))
	withGadgets.Store(true)
	f.gc.Resync()
	waitFor(t, "the gadget to be in the graph", func() bool { return f.gc.observed(g.UID) && f.gc.IsSynced() })
	if _, _, err := f.stores.Gadgets.Delete(ns(""), "owner", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the gadget's dependent to go", func() bool { return f.getWidget(t, "a", "child") == nil })
}

// TestResyncReplacesMonitors: a resource whose preferred version changes gets a new informer
// (the old one stops once the new one has listed), and collection goes on through it.
func TestResyncReplacesMonitors(t *testing.T) {
	var beta atomic.Bool
	f := newFixture(t, func(_ *install.Stores, info *registry.APIGroupInfo) Source {
		return SourceFunc(func() []Resource {
			all := APIGroupResources(info)
			for i := range all {
				if beta.Load() {
					all[i].Version = "v1beta1"
				}
			}
			return all
		})
	})
	owner := f.widget(t, "a", "owner", nil)
	f.widget(t, "a", "child", nil, ownerRef("Widget", "owner", owner.UID, false))
	beta.Store(true)
	f.gc.Resync()
	waitFor(t, "one informer per resource, on v1beta1", func() bool {
		c := f.gc.current.Load()
		c.mu.RLock()
		defer c.mu.RUnlock()
		for _, m := range c.monitors {
			if m.resource.Version != "v1beta1" {
				return false
			}
		}
		return len(c.monitors) == 2 && f.gc.IsSynced()
	})
	f.deleteWidget(t, "a", "owner", metav1.DeletePropagationBackground)
	waitFor(t, "the dependent to go", func() bool { return f.getWidget(t, "a", "child") == nil })
}
