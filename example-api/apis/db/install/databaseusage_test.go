package install

import (
	"context"
	"strings"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	db "github.com/apigen-dev/apigen/example-api/apis/db"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestDatabaseUsageTicker: the change source of DatabaseUsage's watch is a ticker at
// DATABASEUSAGE_INTERVAL: a watch from resourceVersion "" sends the current usage ADDED,
// then MODIFIED at each new window (a later timestamp), over a real etcd; a bad interval is
// an error of NewAPIGroupInfo.
func TestDatabaseUsageTicker(t *testing.T) {
	client, _ := etcdtest.Run(t)
	factory := &etcd3.StorageFactory{Client: client, Prefix: "/registry"}
	t.Setenv(usageIntervalEnv, "soon")
	if _, err := NewAPIGroupInfo(runtime.NewScheme(), factory); err == nil || !strings.Contains(err.Error(), `DATABASEUSAGE_INTERVAL="soon"`) {
		t.Errorf("NewAPIGroupInfo with a bad interval: %v", err)
	}
	t.Setenv(usageIntervalEnv, "300ms")
	info, err := NewAPIGroupInfo(runtime.NewScheme(), factory)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(request.WithNamespace(context.Background(), "ns"), 20*time.Second)
	defer cancel()
	databases := info.VersionedResourcesStorageMap["v1"]["databases"].(*registry.Store)
	if _, err := databases.Create(ctx, &db.Database{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"},
		Spec: db.DatabaseSpec{Engine: db.EnginePostgres, Version: "16"}}, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	usages := info.VersionedResourcesStorageMap["v1"]["databaseusages"].(*registry.UserREST)
	w, err := usages.Watch(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var last time.Time
	for i, want := range []watch.EventType{watch.Added, watch.Modified, watch.Modified} {
		select {
		case ev := <-w.ResultChan():
			u, ok := ev.Object.(*db.DatabaseUsage)
			if ev.Type != want || !ok || u.Name != "d" || u.Window.Duration != 300*time.Millisecond {
				t.Fatalf("event %d: %s %#v, want %s of d's usage over 300ms", i, ev.Type, ev.Object, want)
			}
			if i > 0 && !u.Timestamp.After(last) {
				t.Errorf("event %d: window %s, not after the last one's %s", i, u.Timestamp, last)
			}
			last = u.Timestamp.Time
		case <-ctx.Done():
			t.Fatalf("no event %d (%s)", i, want)
		}
	}
}

// TestDatabaseUsageWatchFromList: a watch from the resourceVersion a list returned delivers a
// change made between the two, as kube's watch replays what followed the list (kubectl get
// -w lists, then watches): a Database created after the list is ADDED.
func TestDatabaseUsageWatchFromList(t *testing.T) {
	client, _ := etcdtest.Run(t)
	t.Setenv(usageIntervalEnv, "1h") // no window ends during the test
	info, err := NewAPIGroupInfo(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(request.WithNamespace(context.Background(), "ns"), 20*time.Second)
	defer cancel()
	databases := info.VersionedResourcesStorageMap["v1"]["databases"].(*registry.Store)
	create := func(name string) {
		t.Helper()
		if _, err := databases.Create(ctx, &db.Database{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
			Spec: db.DatabaseSpec{Engine: db.EnginePostgres, Version: "16"}}, &metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("before")
	usages := info.VersionedResourcesStorageMap["v1"]["databaseusages"].(*registry.UserREST)
	list, err := usages.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	create("between")
	w, err := usages.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: list.(*db.DatabaseUsageList).ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if u, ok := ev.Object.(*db.DatabaseUsage); ev.Type != watch.Added || !ok || u.Name != "between" {
			t.Errorf("first event %s %#v, want ADDED of between's usage", ev.Type, ev.Object)
		}
	case <-time.After(5 * time.Second):
		t.Error("no event for the Database created between the list and the watch")
	}
}
