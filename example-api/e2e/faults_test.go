package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

const (
	// outageRequestTimeout is the server's --request-timeout in the fault test.
	outageRequestTimeout = 2 * time.Second
	// outageClientTimeout bounds every client request of the fault test: a request the server
	// does not answer with a Status within its request timeout fails with a client timeout,
	// which the test reports as a hang.
	outageClientTimeout = outageRequestTimeout + 3*time.Second
	// recoveryWait bounds how long the server may take to serve again once etcd is back
	// (gRPC reconnects with a backoff of a few seconds after a short outage).
	recoveryWait = 30 * time.Second
)

// TestEtcdOutage stops the server's etcd under a write load and starts it again, as
// kube-apiserver's behaviour with an unavailable etcd: while etcd is down every request
// (create, get, list, update, and the load's creates) fails within the request timeout with a
// 503 or 504 metav1.Status and /readyz turns non-200; once etcd is back on the same data and
// URL the same server process serves again, /readyz is 200, every create acknowledged before
// the outage is still there, no create answered 503 is stored (503 means not written; a write
// whose outcome is unknown is a 504), and a watch opened before the outage either resumes
// (and then has seen every acknowledged create) or ends in a way a client-go reflector
// handles (the stream closes, or an ERROR event carries a metav1.Status).
func TestEtcdOutage(t *testing.T) {
	etcd := startEtcd(t)
	s := startServer(t, "--etcd-servers="+etcd.URL(), "--request-timeout="+outageRequestTimeout.String())
	cfg := rest.CopyConfig(s.config)
	cfg.QPS, cfg.Timeout = -1, outageClientTimeout
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dbs := client.Resource(databasesV1).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	seed, err := dbs.Create(ctx, newDatabase("db.example.com/v1", "seed", map[string]any{"engine": "postgres"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create seed: %v", err)
	}
	// A plain watch, without client-go's timeout: it must outlive the outage.
	watchClient, err := dynamic.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	w, err := watchClient.Resource(databasesV1).Namespace("default").Watch(ctx, metav1.ListOptions{ResourceVersion: seed.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	watched := collectWatch(w)

	load := startCreateLoad(ctx, dbs, 4)
	load.waitAcked(t, 60)
	etcd.Stop()
	outage := time.Now()
	t.Logf("etcd stopped after %d acknowledged creates", load.ackedCount())

	// Every kind of request fails with a 503/504 Status within the request timeout.
	var probes sync.WaitGroup
	probe := func(what string, call func() error) {
		probes.Add(1)
		go func() {
			defer probes.Done()
			start := time.Now()
			err := call()
			wantUnavailable(t, what+" while etcd is down", err)
			t.Logf("%s while etcd is down: %v after %v", what, apierrors.ReasonForError(err), time.Since(start).Round(time.Millisecond))
		}()
	}
	probe("get", func() error { _, err := dbs.Get(ctx, "seed", metav1.GetOptions{}); return err })
	probe("list", func() error { _, err := dbs.List(ctx, metav1.ListOptions{}); return err })
	probe("create", func() error {
		_, err := dbs.Create(ctx, newDatabase("db.example.com/v1", "during-outage", map[string]any{"engine": "mysql"}), metav1.CreateOptions{})
		return err
	})
	probe("update", func() error { _, err := dbs.Update(ctx, seed, metav1.UpdateOptions{}); return err })
	probes.Wait()

	if err := pollUntil(ctx, 15*time.Second, func() error {
		if s.proc.Ready(ctx) == nil {
			return errors.New("/readyz is still 200")
		}
		return nil
	}); err != nil {
		t.Errorf("/readyz while etcd is down: %v", err)
	}
	load.stop()
	for _, err := range load.errs {
		t.Error(err)
	}
	t.Logf("the load's creates during the outage: %d failed with 503/504", load.unavailable)

	// Bring etcd back: the same server process recovers.
	etcd.Start()
	t.Logf("etcd restarted after an outage of %v", time.Since(outage).Round(time.Millisecond))
	restarted := time.Now()
	if err := pollUntil(ctx, recoveryWait, func() error {
		_, err := dbs.Create(ctx, newDatabase("db.example.com/v1", "after-outage", map[string]any{"engine": "postgres"}), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // an earlier attempt timed out after etcd had committed it
		}
		if err != nil && !isUnavailable(err) {
			return fmt.Errorf("%w (a create during recovery must succeed or be 503/504)", errPollStop{err})
		}
		return err
	}); err != nil {
		t.Fatalf("create after etcd restarted: %v\nserver output:\n%s", err, s.proc.Output())
	}
	t.Logf("the server served a create %v after etcd restarted", time.Since(restarted).Round(time.Millisecond))
	select {
	case <-s.proc.Exited():
		t.Fatalf("example-apiserver exited during the outage; it must ride it out\n%s", s.proc.Output())
	default:
	}
	if err := pollUntil(ctx, recoveryWait, func() error { return s.proc.Ready(ctx) }); err != nil {
		t.Errorf("/readyz after etcd restarted: %v", err)
	}

	// Every acknowledged create survived, with the resourceVersion it was acknowledged with.
	list, err := dbs.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list after recovery: %v", err)
	}
	stored := map[string]string{}
	for _, item := range list.Items {
		stored[item.GetName()] = item.GetResourceVersion()
	}
	for name, rv := range load.ackedSnapshot() {
		if got, ok := stored[name]; !ok {
			t.Errorf("acknowledged create of %s is lost", name)
		} else if got != rv {
			t.Errorf("%s has resourceVersion %s, acknowledged as %s", name, got, rv)
		}
	}
	// 503 means not written (a client may retry it without making a duplicate); a write whose
	// outcome the server could not learn is a 504 that says so.
	for _, name := range load.refused {
		if _, ok := stored[name]; ok {
			t.Errorf("the create of %s was answered 503 (not written), but %s is stored", name, name)
		}
	}
	t.Logf("the load's creates answered 503 during the outage: %d, none stored", len(load.refused))

	// The watch resumed and saw everything, or it ended as a reflector expects.
	res := watched.await(ctx, "after-outage", recoveryWait)
	switch {
	case res.sawTarget:
		for name := range load.ackedSnapshot() {
			if !res.added[name] {
				t.Errorf("the resumed watch missed the ADDED event of %s", name)
			}
		}
		t.Logf("the watch resumed across the outage: %d ADDED events", len(res.added))
	case res.errStatus != nil:
		t.Logf("the watch ended with an ERROR event: %d %s: %s", res.errStatus.Code, res.errStatus.Reason, res.errStatus.Message)
	case res.closed:
		t.Logf("the watch ended without an error event; a reflector re-lists")
	default:
		t.Errorf("the watch neither delivered the create after the outage nor ended within %v: %s", recoveryWait, res.problem)
	}
}

// wantUnavailable fails the test unless err is a metav1.Status of 503 ServiceUnavailable or
// 504 Timeout (which is what an etcd outage must look like to a client).
func wantUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Errorf("%s: want a 503/504 metav1.Status, got %v (a client-side timeout means the server hung)", what, err)
		return
	}
	st := status.Status()
	if st.Kind != "Status" || st.Status != metav1.StatusFailure || !isUnavailable(err) {
		t.Errorf("%s: status = {kind %q status %q code %d reason %q message %q}, want code 503 or 504",
			what, st.Kind, st.Status, st.Code, st.Reason, st.Message)
	}
}

// isUnavailable reports whether err is a 503 or 504 API status.
func isUnavailable(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// errPollStop wraps an error that ends pollUntil at once.
type errPollStop struct{ err error }

func (e errPollStop) Error() string { return e.err.Error() }
func (e errPollStop) Unwrap() error { return e.err }

// pollUntil calls f every 100ms until it returns nil, returns an errPollStop, ctx ends or
// within passes; it returns f's last error then.
func pollUntil(ctx context.Context, within time.Duration, f func() error) error {
	deadline := time.Now().Add(within)
	for {
		err := f()
		var stop errPollStop
		if err == nil || errors.As(err, &stop) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %v: %w", within, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createLoad is a write load: goroutines creating Databases named load-<writer>-<n> one after
// another until stopped.
type createLoad struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	acked       map[string]string // name -> acknowledged resourceVersion
	ackedCh     chan struct{}     // receives after each acknowledged create
	unavailable int               // creates failed with 503/504
	refused     []string          // names of creates failed with 503: not written
	errs        []error           // creates failed otherwise
}

// startCreateLoad starts writers goroutines creating through dbs until stop.
func startCreateLoad(ctx context.Context, dbs dynamic.ResourceInterface, writers int) *createLoad {
	ctx, cancel := context.WithCancel(ctx)
	l := &createLoad{cancel: cancel, acked: map[string]string{}, ackedCh: make(chan struct{}, 1)}
	for i := range writers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				name := fmt.Sprintf("load-%d-%d", i, n)
				obj, err := dbs.Create(ctx, newDatabase("db.example.com/v1", name, map[string]any{"engine": "postgres"}), metav1.CreateOptions{})
				l.record(ctx, name, obj, err)
			}
		}()
	}
	return l
}

// record notes the outcome of one create; failures caused by stopping the load are ignored.
func (l *createLoad) record(ctx context.Context, name string, obj *unstructured.Unstructured, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil:
		l.acked[name] = obj.GetResourceVersion()
		select {
		case l.ackedCh <- struct{}{}:
		default:
		}
	case isUnavailable(err):
		l.unavailable++
		if apierrors.IsServiceUnavailable(err) {
			l.refused = append(l.refused, name)
		}
	case ctx.Err() == nil:
		l.errs = append(l.errs, fmt.Errorf("load create %s: want success or a 503/504 Status, got %w", name, err))
	}
}

// waitAcked waits until at least n creates were acknowledged.
func (l *createLoad) waitAcked(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for l.ackedCount() < n {
		select {
		case <-l.ackedCh:
		case <-timeout:
			t.Fatalf("only %d of %d creates acknowledged within 30s: %v", l.ackedCount(), n, l.errs)
		}
	}
}

func (l *createLoad) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// ackedSnapshot returns the acknowledged creates: name -> resourceVersion.
func (l *createLoad) ackedSnapshot() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]string, len(l.acked))
	for k, v := range l.acked {
		m[k] = v
	}
	return m
}

// stop stops the writers and waits for them.
func (l *createLoad) stop() {
	l.cancel()
	l.wg.Wait()
}

// watchCollector drains a watch in a goroutine, remembering what it delivered.
type watchCollector struct {
	mu     sync.Mutex
	added  map[string]bool
	errSt  *metav1.Status
	closed bool
	other  []string
	change chan struct{} // receives after each event or the close
}

// watchResult is what a watchCollector saw.
type watchResult struct {
	added     map[string]bool // names of ADDED objects
	sawTarget bool            // an ADDED event for the awaited name arrived
	errStatus *metav1.Status  // the Status of an ERROR event
	closed    bool            // the result channel closed
	problem   string          // unexpected events, for the failure message
}

// collectWatch starts draining w.
func collectWatch(w watch.Interface) *watchCollector {
	c := &watchCollector{added: map[string]bool{}, change: make(chan struct{}, 1)}
	go func() {
		for ev := range w.ResultChan() {
			c.mu.Lock()
			switch ev.Type {
			case watch.Added:
				if u, ok := ev.Object.(*unstructured.Unstructured); ok {
					c.added[u.GetName()] = true
				}
			case watch.Error:
				var status apierrors.APIStatus
				if err := apierrors.FromObject(ev.Object); errors.As(err, &status) && status.Status().Code != 0 {
					st := status.Status()
					c.errSt = &st
				} else {
					c.other = append(c.other, fmt.Sprintf("ERROR event without a metav1.Status: %#v", ev.Object))
				}
			default:
				c.other = append(c.other, fmt.Sprintf("unexpected %s event", ev.Type))
			}
			c.mu.Unlock()
			c.notify()
		}
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		c.notify()
	}()
	return c
}

func (c *watchCollector) notify() {
	select {
	case c.change <- struct{}{}:
	default:
	}
}

// await waits up to within until the watch delivered ADDED for name, an ERROR event, or
// closed, and returns what it saw.
func (c *watchCollector) await(ctx context.Context, name string, within time.Duration) watchResult {
	timeout := time.After(within)
	for {
		c.mu.Lock()
		res := watchResult{added: map[string]bool{}, sawTarget: c.added[name], errStatus: c.errSt, closed: c.closed,
			problem: strings.Join(c.other, "; ")}
		for k := range c.added {
			res.added[k] = true
		}
		c.mu.Unlock()
		if res.sawTarget || res.errStatus != nil || res.closed {
			return res
		}
		select {
		case <-c.change:
		case <-timeout:
			return res
		case <-ctx.Done():
			return res
		}
	}
}
