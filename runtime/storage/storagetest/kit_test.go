package storagetest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// brokenChildEnv makes TestBrokenBackendChild run the kit: only as the child process of
// TestKitNamesBrokenGuarantee.
const brokenChildEnv = "STORAGETEST_BROKEN_CHILD"

// losesModified is a real etcd3 store whose watches lose the first MODIFIED event each
// delivers: a backend breaking the watch guarantee (every change, once, in order).
type losesModified struct{ storage.Interface }

// Watch implements storage.Interface: etcd3's watch, less its first MODIFIED event.
func (s losesModified) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		keep := true
		if ev.Type == watch.Modified {
			once.Do(func() { keep = false })
		}
		return ev, keep
	}), nil
}

// TestBrokenBackendChild runs the kit against losesModified over a real etcd. It passes only
// when not asked to run (the parent test reads its failure).
func TestBrokenBackendChild(t *testing.T) {
	if os.Getenv(brokenChildEnv) == "" {
		t.Skip("run by TestKitNamesBrokenGuarantee")
	}
	client, _ := etcdtest.Run(t)
	var n atomic.Int64
	storagetest.Run(t, storagetest.Backend{New: func(t *testing.T) storage.Interface {
		prefix := fmt.Sprintf("/registry/test.apigen.dev/widgets-%d", n.Add(1))
		return losesModified{etcd3.New(client, testapi.Codec(), testapi.NewWidget, prefix, testapi.Resource)}
	}})
}

// TestKitNamesBrokenGuarantee: a backend that loses a watch event fails the kit, and the
// failure names the broken guarantee, while the guarantees it keeps pass. The kit runs on
// *testing.T as a backend author's test does, so it runs in a child process of this test
// binary (the kit's own failures must not fail this test).
func TestKitNamesBrokenGuarantee(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts etcd in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBrokenBackendChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), brokenChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the kit passed a backend that loses a watch event:\n%s", out)
	}
	var want string
	for _, g := range storagetest.Guarantees {
		if g.Name == "watch-from-rv" {
			want = "broken guarantee watch-from-rv: " + g.Text
		}
	}
	if !strings.Contains(string(out), want) {
		t.Errorf("the kit's output does not name the broken guarantee %q:\n%s", want, out)
	}
	for _, kept := range []string{"create", "guaranteed-update", "delete-preconditions", "list-paged-consistent"} {
		if !strings.Contains(string(out), "--- PASS: TestBrokenBackendChild/"+kept+" ") {
			t.Errorf("guarantee %s, which the backend keeps, did not pass:\n%s", kept, out)
		}
		if strings.Contains(string(out), "broken guarantee "+kept+":") {
			t.Errorf("guarantee %s, which the backend keeps, was reported broken:\n%s", kept, out)
		}
	}
}
