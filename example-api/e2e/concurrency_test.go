package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// countAnnotation is the annotation the concurrency test increments.
const countAnnotation = "e2e.db.example.com/count"

// TestConcurrentReadModifyWrite runs writers x increments read-modify-write cycles on one
// Database through client-go's dynamic client: each cycle GETs the object, adds one to an
// annotation and PUTs it with the resourceVersion it read, retrying on 409 Conflict. With
// optimistic concurrency working, no update is lost: the final count is writers*increments,
// every value 1..writers*increments was acknowledged exactly once, and a watch from the
// creation sees the counts in order, one MODIFIED event each.
func TestConcurrentReadModifyWrite(t *testing.T) {
	t.Parallel()
	const (
		writers    = 8
		increments = 25
		total      = writers * increments
		// maxAttempts bounds each writer's GET+PUT cycles: with 8 writers a cycle loses to
		// at most 7 others, so 25 increments need far fewer than this.
		maxAttempts = 50 * increments
	)
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbs := s.unthrottled(t).Resource(databasesV1).Namespace("default")

	obj := newDatabase("db.example.com/v1", "counter", map[string]any{"engine": "postgres"})
	obj.SetAnnotations(map[string]string{countAnnotation: "0"})
	created, err := dbs.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	w, err := dbs.Watch(ctx, metav1.ListOptions{
		FieldSelector:   "metadata.name=counter",
		ResourceVersion: created.GetResourceVersion(),
	})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	var (
		mu        sync.Mutex
		written   = map[int]int{} // count value -> how many acknowledged PUTs wrote it
		conflicts int
		wg        sync.WaitGroup
		errs      = make(chan error, writers)
	)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := incrementLoop(ctx, dbs, "counter", increments, maxAttempts, func(value int, conflict bool) {
				mu.Lock()
				defer mu.Unlock()
				if conflict {
					conflicts++
				} else {
					written[value]++
				}
			})
			if err != nil {
				errs <- fmt.Errorf("writer %d after %d increments: %w", i, n, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}

	final, err := dbs.Get(ctx, "counter", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get final: %v", err)
	}
	if got := final.GetAnnotations()[countAnnotation]; got != strconv.Itoa(total) {
		t.Errorf("final count = %s, want %d (lost updates)", got, total)
	}
	for v := 1; v <= total; v++ {
		if written[v] != 1 {
			t.Errorf("count %d acknowledged %d times, want once", v, written[v])
		}
	}
	t.Logf("%d writers x %d increments: %d conflicts retried", writers, increments, conflicts)

	// The watch sees every acknowledged write, in order.
	for want := 1; want <= total; want++ {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d of %d events", want-1, total)
			}
			u, isObj := ev.Object.(*unstructured.Unstructured)
			if ev.Type != watch.Modified || !isObj {
				t.Fatalf("watch event %d: %s %T, want MODIFIED Database", want, ev.Type, ev.Object)
			}
			if got := u.GetAnnotations()[countAnnotation]; got != strconv.Itoa(want) {
				t.Fatalf("watch event %d carries count %s, want %d", want, got, want)
			}
		case <-ctx.Done():
			t.Fatalf("watch delivered %d of %d events before the test deadline", want-1, total)
		}
	}
}

// incrementLoop performs increments read-modify-write increments of the count annotation of
// name, each a GET then a PUT with the read resourceVersion, retried on 409 Conflict, in at
// most maxAttempts cycles. It calls record with the value written on each acknowledged PUT,
// and with conflict true on each 409. It returns how many increments it made and the first
// error other than a conflict.
func incrementLoop(ctx context.Context, dbs dynamic.ResourceInterface, name string, increments, maxAttempts int,
	record func(value int, conflict bool)) (int, error) {
	done := 0
	for attempt := 0; done < increments; attempt++ {
		if attempt == maxAttempts {
			return done, fmt.Errorf("cannot increment in %d attempts", maxAttempts)
		}
		cur, err := dbs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return done, fmt.Errorf("cannot get %s: %w", name, err)
		}
		count, err := strconv.Atoi(cur.GetAnnotations()[countAnnotation])
		if err != nil {
			return done, fmt.Errorf("cannot parse the count of %s: %w", name, err)
		}
		ann := cur.GetAnnotations()
		ann[countAnnotation] = strconv.Itoa(count + 1)
		cur.SetAnnotations(ann)
		if _, err := dbs.Update(ctx, cur, metav1.UpdateOptions{}); apierrors.IsConflict(err) {
			record(0, true)
			continue
		} else if err != nil {
			return done, fmt.Errorf("cannot update %s: %w", name, err)
		}
		record(count+1, false)
		done++
	}
	return done, nil
}
