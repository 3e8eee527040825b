package storagetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// rvOf parses a widget's resourceVersion, failing the test when it is not a positive number.
func rvOf(t *testing.T, w *testapi.Widget) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(w.ResourceVersion, 10, 64)
	if err != nil || rv <= 0 {
		t.Fatalf("%s: resourceVersion %q is not a positive decimal", w.Name, w.ResourceVersion)
	}
	return rv
}

func testCreate(t *testing.T, b Backend) {
	s := b.New(t)
	in := newWidget("ns", "a", "red", nil)
	out := &testapi.Widget{}
	if err := s.Create(testContext(t), key("ns", "a"), in, out); err != nil {
		t.Fatalf("Create: %v", err)
	}
	rvOf(t, out)
	if in.ResourceVersion != "" {
		t.Errorf("Create set resourceVersion %q on its input", in.ResourceVersion)
	}
	got := &testapi.Widget{}
	if err := s.Get(testContext(t), key("ns", "a"), storage.GetOptions{}, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(out, got); diff != "" {
		t.Errorf("Get after Create (-created +got):\n%s", diff)
	}
	withRV := newWidget("ns", "b", "red", nil)
	withRV.ResourceVersion = "5"
	if err := s.Create(testContext(t), key("ns", "b"), withRV, &testapi.Widget{}); err == nil {
		t.Errorf("Create with a resourceVersion: no error")
	}
}

func testCreateExists(t *testing.T, b Backend) {
	s := b.New(t)
	create(t, s, "ns", "a", "red", nil)
	err := s.Create(testContext(t), key("ns", "a"), newWidget("ns", "a", "blue", nil), &testapi.Widget{})
	if !storage.IsExists(err) {
		t.Fatalf("second Create: got %v, want a KeyExists error", err)
	}
}

func testGetNotFound(t *testing.T, b Backend) {
	s := b.New(t)
	err := s.Get(testContext(t), key("ns", "missing"), storage.GetOptions{}, &testapi.Widget{})
	if !storage.IsNotFound(err) {
		t.Fatalf("Get of a missing key: got %v, want KeyNotFound", err)
	}
	out := &testapi.Widget{Spec: testapi.WidgetSpec{Color: "stale"}}
	if err := s.Get(testContext(t), key("ns", "missing"), storage.GetOptions{IgnoreNotFound: true}, out); err != nil {
		t.Fatalf("Get with IgnoreNotFound: %v", err)
	}
	if diff := cmp.Diff(&testapi.Widget{}, out); diff != "" {
		t.Errorf("Get with IgnoreNotFound left a non-zero object (-want +got):\n%s", diff)
	}
}

func testGet(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", map[string]string{"tier": "gold"})
	for _, rv := range []string{"", "0", created.ResourceVersion} {
		// "0" is any state: a cache may not have the create yet, but must soon.
		eventually(t, rv == "0", func() string {
			got := &testapi.Widget{}
			if err := s.Get(testContext(t), key("ns", "a"), storage.GetOptions{ResourceVersion: rv}, got); err != nil {
				return fmt.Sprintf("Get at resourceVersion %q: %v", rv, err)
			}
			if diff := cmp.Diff(created, got); diff != "" {
				return fmt.Sprintf("Get at resourceVersion %q (-want +got):\n%s", rv, diff)
			}
			return ""
		})
	}
	if err := s.Get(testContext(t), "/ns/../../escape", storage.GetOptions{}, &testapi.Widget{}); !storage.IsInvalidObj(err) {
		t.Errorf("Get of a key escaping the prefix: got %v, want InvalidObj", err)
	}
}

func testGuaranteedUpdate(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	updated := update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Size = 7 })
	if updated.Spec.Size != 7 || rvOf(t, updated) <= rvOf(t, created) {
		t.Fatalf("updated widget: size %d, resourceVersion %s after %s; want size 7 and a newer resourceVersion",
			updated.Spec.Size, updated.ResourceVersion, created.ResourceVersion)
	}
	got := &testapi.Widget{}
	if err := s.Get(testContext(t), key("ns", "a"), storage.GetOptions{}, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(updated, got); diff != "" {
		t.Errorf("Get after update (-updated +got):\n%s", diff)
	}
	wantErr := errors.New("refused")
	err := s.GuaranteedUpdate(testContext(t), key("ns", "a"), &testapi.Widget{}, false, nil,
		func(runtime.Object) (runtime.Object, error) { return nil, wantErr })
	if !errors.Is(err, wantErr) {
		t.Errorf("GuaranteedUpdate with a failing tryUpdate: got %v, want %v", err, wantErr)
	}
	err = s.GuaranteedUpdate(testContext(t), key("ns", "missing"), &testapi.Widget{}, false, nil,
		func(in runtime.Object) (runtime.Object, error) { return in, nil })
	if !storage.IsNotFound(err) {
		t.Errorf("GuaranteedUpdate of a missing key: got %v, want KeyNotFound", err)
	}
	out := &testapi.Widget{}
	err = s.GuaranteedUpdate(testContext(t), key("ns", "new"), out, true, nil, func(runtime.Object) (runtime.Object, error) {
		return newWidget("ns", "new", "blue", nil), nil
	})
	if err != nil || out.Spec.Color != "blue" || out.ResourceVersion == "" {
		t.Errorf("GuaranteedUpdate with ignoreNotFound: %v, stored %+v; want a created blue widget", err, out)
	}
}

func testGuaranteedUpdateNoop(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	same := update(t, s, "ns", "a", func(*testapi.Widget) {})
	if same.ResourceVersion != created.ResourceVersion {
		t.Errorf("no-op update changed resourceVersion %s -> %s", created.ResourceVersion, same.ResourceVersion)
	}
	if diff := cmp.Diff(created, same); diff != "" {
		t.Errorf("no-op update result (-created +got):\n%s", diff)
	}
}

func testGuaranteedUpdateConflictRetry(t *testing.T, b Backend) {
	s := b.New(t)
	create(t, s, "ns", "a", "red", nil)
	const workers, increments = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*increments)
	for range workers {
		wg.Go(func() {
			for range increments {
				err := s.GuaranteedUpdate(context.Background(), key("ns", "a"), &testapi.Widget{}, false, nil,
					func(in runtime.Object) (runtime.Object, error) {
						w := in.(*testapi.Widget)
						w.Spec.Size++
						return w, nil
					})
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent GuaranteedUpdate: %v", err)
	}
	got := &testapi.Widget{}
	if err := s.Get(testContext(t), key("ns", "a"), storage.GetOptions{}, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if want := int32(1 + workers*increments); got.Spec.Size != want {
		t.Errorf("size after %d concurrent increments: got %d, want %d (lost updates)", workers*increments, got.Spec.Size, want)
	}
}

func testDelete(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	out := &testapi.Widget{}
	if err := s.Delete(testContext(t), key("ns", "a"), out, nil, nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if out.Name != "a" || out.Spec.Color != "red" || rvOf(t, out) <= rvOf(t, created) {
		t.Errorf("Delete returned %+v; want the last state with the delete's (newer) resourceVersion", out)
	}
	if err := s.Get(testContext(t), key("ns", "a"), storage.GetOptions{}, &testapi.Widget{}); !storage.IsNotFound(err) {
		t.Errorf("Get after Delete: got %v, want KeyNotFound", err)
	}
	if err := s.Delete(testContext(t), key("ns", "a"), &testapi.Widget{}, nil, nil); !storage.IsNotFound(err) {
		t.Errorf("second Delete: got %v, want KeyNotFound", err)
	}
}

func testDeletePreconditions(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	wrongUID, wrongRV := types.UID("other"), "1"
	for name, p := range map[string]*storage.Preconditions{
		"uid":             {UID: &wrongUID},
		"resourceVersion": {ResourceVersion: &wrongRV},
	} {
		if err := s.Delete(testContext(t), key("ns", "a"), &testapi.Widget{}, p, nil); !storage.IsConflict(err) {
			t.Errorf("Delete with a wrong %s precondition: got %v, want Conflict", name, err)
		}
	}
	refused := errors.New("refused")
	err := s.Delete(testContext(t), key("ns", "a"), &testapi.Widget{}, nil,
		func(context.Context, runtime.Object) error { return refused })
	if !errors.Is(err, refused) {
		t.Errorf("Delete with a refusing validateDeletion: got %v, want %v", err, refused)
	}
	p := &storage.Preconditions{UID: &created.UID, ResourceVersion: &created.ResourceVersion}
	if err := s.Delete(testContext(t), key("ns", "a"), &testapi.Widget{}, p, nil); err != nil {
		t.Errorf("Delete with matching preconditions: %v", err)
	}
}

// eventually fails the test with check's message (a problem; "" when none) unless check
// passes: at once, or, when retry, within waitTimeout (polled every 10ms).
func eventually(t *testing.T, retry bool, check func() string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if !retry || time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
