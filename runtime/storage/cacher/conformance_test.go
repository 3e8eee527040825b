package cacher_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// prefixes numbers the key prefixes of the tests' storages, so none shares keys.
var prefixes atomic.Int64

// newPrefix returns a key prefix no other storage of the test binary uses.
func newPrefix() string {
	return fmt.Sprintf("/registry/test.apigen.dev/widgets-%d", prefixes.Add(1))
}

// widgetCodec is etcd3's Codec for the conformance suite's widgets.
func widgetCodec() *etcd3.Codec {
	scheme := testapi.NewScheme()
	ser := jsonserializer.NewSerializer(scheme, scheme, json.SerializerOptions{})
	return etcd3.NewCodec(scheme, ser, testapi.SchemeGroupVersion, testapi.SchemeGroupVersion)
}

// newCacher returns a synced Cacher over etcd3 storage of widgets under prefix on client,
// stopped in cleanup.
func newCacher(t *testing.T, client *clientv3.Client, prefix string, tracker *etcd3.CompactionTracker, cfg cacher.Config) *cacher.Cacher {
	t.Helper()
	cfg.Storage = etcd3.New(client, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
	cfg.Resource, cfg.NewFunc = testapi.Resource, testapi.NewWidget
	if tracker != nil {
		cfg.CompactedRevision = tracker.Revision
	}
	c, err := cacher.New(cfg)
	if err != nil {
		t.Fatalf("cacher.New: %v", err)
	}
	t.Cleanup(c.Stop)
	waitFor(t, "the cache to sync", c.Synced)
	return c
}

// waitFor polls cond every 10ms until it holds, failing the test after 10s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// compact compacts etcd at its current revision the way compactors sharing an etcd do
// (recording the revision in compact_rev_key first) and returns the revision.
func compact(t *testing.T, client *clientv3.Client) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := client.Get(ctx, "compact-probe")
	if err != nil {
		t.Fatalf("cannot read etcd revision: %v", err)
	}
	rev := resp.Header.Revision
	if _, err := client.Put(ctx, "compact_rev_key", strconv.FormatInt(rev, 10)); err != nil {
		t.Fatalf("cannot record the compaction: %v", err)
	}
	if _, err := client.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		t.Fatalf("cannot compact etcd: %v", err)
	}
	return rev
}

// TestConformance runs the storage conformance suite against the cache over etcd3, over
// gRPC and over the member's in-process client (as the server uses its embedded etcd), and
// over gRPC with a cache that makes objects cold every millisecond. The
// suite's compaction compacts etcd and moves the cache's history window past the compacted
// revision, as kube-apiserver's cacher tests do: a cache keeps serving watches from its
// history after etcd compacted (TestWatchReplaysAfterCompaction).
func TestConformance(t *testing.T) {
	t.Cleanup(cacher.SetBookmarkFrequency(etcdtest.ProgressNotifyInterval))
	client, srv := etcdtest.Run(t)
	inProcess := srv.Client()
	t.Cleanup(func() { _ = inProcess.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	tracker := etcd3.TrackCompactions(ctx, client)
	replicaClient := etcdtest.NewClient(t, srv)
	for name, run := range map[string]struct {
		c    *clientv3.Client
		cool time.Duration
	}{
		"grpc": {c: client}, "in-process-client": {c: inProcess},
		// Objects not read for a millisecond go cold: every read may decode one again.
		"grpc-cold": {c: client, cool: time.Millisecond},
	} {
		c := run.c
		t.Run(name, func(t *testing.T) {
			var last *cacher.Cacher
			var prefix string
			storagetest.Run(t, storagetest.Backend{
				New: func(t *testing.T) storage.Interface {
					prefix = newPrefix()
					last = newCacher(t, c, prefix, tracker, cacher.Config{CoolInterval: run.cool})
					return last
				},
				NewReference: func(t *testing.T) storage.Interface {
					return etcd3.New(c, widgetCodec(), testapi.NewWidget, prefix, testapi.Resource)
				},
				NewReplica: func(t *testing.T) storage.Interface {
					return newCacher(t, replicaClient, prefix, tracker, cacher.Config{})
				},
				Compact: func(t *testing.T) {
					rev := compact(t, client)
					waitFor(t, "the compaction to be seen", func() bool { return tracker.Revision() >= rev })
					waitFor(t, "the cache to reach the compacted revision", func() bool {
						err := last.GetList(context.Background(), "/", storage.ListOptions{Recursive: true}, &testapi.WidgetList{})
						return err == nil && last.Revision() >= rev
					})
					last.DropHistory(rev)
				},
				BookmarkInterval: etcdtest.ProgressNotifyInterval,
			})
		})
	}
}
