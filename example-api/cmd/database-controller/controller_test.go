package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned/fake"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/informers/externalversions"
)

// syncBuffer is an io.Writer safe for the controller's goroutines and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestControllerWritesStatus runs the controller on the generated fake clientset
// (NewClientset: a field-managed object tracker with the generated apply configurations'
// type converter) with each status writer: a Database that exists at start and one created
// later both get phase Ready, their replicas ready and their generation observed.
func TestControllerWritesStatus(t *testing.T) {
	for _, writer := range []string{"update", "apply"} {
		t.Run(writer, func(t *testing.T) {
			replicas := int32(3)
			existing := &dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "existing", Namespace: "default", Generation: 2},
				Spec: dbv1.DatabaseSpec{Engine: dbv1.EnginePostgres, Replicas: &replicas}}
			client := fake.NewClientset(existing)
			w, err := newStatusWriter(writer)
			if err != nil {
				t.Fatal(err)
			}
			out := &syncBuffer{}
			events := record.NewFakeRecorder(10)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- newController(client, externalversions.NewSharedInformerFactory(client, 0), w, events, out).run(ctx, 2)
			}()
			t.Cleanup(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("controller: %v", err)
				}
			})
			waitReady(t, client, "existing", 3, 2, out)
			created := &dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "created", Namespace: "default", Generation: 1},
				Spec: dbv1.DatabaseSpec{Engine: dbv1.EngineMySQL}}
			if _, err := client.DbV1().Databases("default").Create(ctx, created, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitReady(t, client, "created", 1, 1, out)
			for _, want := range []string{"existing", "created"} {
				select {
				case ev := <-events.Events:
					if !strings.HasPrefix(ev, "Normal Ready Database is Ready") {
						t.Errorf("event %q; want Normal Ready Database is Ready ... (for %s)", ev, want)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("no Event recorded for %s", want)
				}
			}
			if !strings.Contains(out.String(), "writing status with "+writer) {
				t.Errorf("the controller's output does not name the %s writer:\n%s", writer, out)
			}
		})
	}
}

// waitReady polls the Database called name until its status is Ready with ready replicas and
// the observed generation, failing after 10 s.
func waitReady(t *testing.T, client *fake.Clientset, name string, ready int32, generation int64, out *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		db, err := client.DbV1().Databases("default").Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && db.Status.Phase == dbv1.DatabaseReady && db.Status.ReadyReplicas == ready && db.Status.ObservedGeneration == generation {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("database %s not Ready with %d replicas at generation %d within 10s: %+v, %v\ncontroller output:\n%s", name, ready, generation, db, err, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--kubeconfig", "x", "extra"}, {"--kubeconfig", "x", "--status-write", "patch"}, {"--kubeconfig", "x", "--workers", "0"}} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (usage); stderr:\n%s", args, code, stderr.String())
		}
	}
}
