package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/example-api/internal/serverproc"
)

// shutdownDelay is the --shutdown-delay-duration TestSIGTERMUnderLoad gives the server.
const shutdownDelay = 2 * time.Second

// TestSIGTERMUnderLoad sends SIGTERM to example-apiserver while writers create Databases and
// a watch is open, as kube-apiserver's graceful termination is exercised: the process exits 0;
// /readyz fails during --shutdown-delay-duration while creates are still served; no response
// is cut mid-way (every response that started arrives whole and decodes); the watch ends
// cleanly (EOF at an event boundary); and after a restart on the same data directory every
// acknowledged create is there with its acknowledged resourceVersion.
func TestSIGTERMUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	bin := serverBinary(t)
	dataDir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	proc, err := serverproc.Start(ctx, bin, dataDir, fmt.Sprintf("--shutdown-delay-duration=%s", shutdownDelay))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proc.Stop(20 * time.Second) })
	client, err := rest.HTTPClientFor(proc.Config)
	if err != nil {
		t.Fatal(err)
	}
	collection := proc.URL + "/apis/db.example.com/v1/namespaces/default/databases"

	load := startRawCreates(client, collection, 8)
	defer load.stop()
	watchEnd := make(chan error, 1)
	watchEvents := 0
	go func() { watchEnd <- readWatch(ctx, client, collection+"?watch=true", &watchEvents) }()
	tlsConfig, err := rest.TLSConfigFor(proc.Config)
	if err != nil {
		t.Fatal(err)
	}
	readyFailed := pollReadyz(proc.URL, tlsConfig)

	deadline := time.Now().Add(30 * time.Second)
	for load.ackedCount() < 50 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := load.ackedCount(); n < 50 {
		t.Fatalf("only %d creates acknowledged before SIGTERM: %v", n, load.failures())
	}
	stopped := make(chan error, 1)
	go func() { stopped <- proc.Stop(60 * time.Second) }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("SIGTERM: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("example-apiserver did not exit after SIGTERM")
	}
	load.stop()

	if f := load.failures(); len(f) > 0 {
		t.Errorf("%d requests went wrong during shutdown, e.g. %v", len(f), f[0])
	}
	select {
	case err := <-watchEnd:
		if err != nil {
			t.Errorf("watch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the watch did not end when the server stopped")
	}
	if watchEvents == 0 {
		t.Error("the watch delivered no event")
	}
	var failedAt time.Time
	select {
	case failedAt = <-readyFailed:
	default:
		t.Fatal("/readyz never failed between SIGTERM and exit")
	}
	if n := load.ackedSince(failedAt); n == 0 {
		t.Errorf("no create was served during the %s shutdown delay, after /readyz failed", shutdownDelay)
	}
	acked := load.ackedSnapshot()
	t.Logf("%d creates acknowledged, %d of them after /readyz failed; %d refused while stopping; %d watch events",
		len(acked), load.ackedSince(failedAt), load.refusedCount(), watchEvents)

	restarted, err := serverproc.Start(ctx, bin, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := restarted.Stop(20 * time.Second); err != nil {
			t.Error(err)
		}
	})
	client, err = rest.HTTPClientFor(restarted.Config)
	if err != nil {
		t.Fatal(err)
	}
	stored := listResourceVersions(t, client, restarted.URL+"/apis/db.example.com/v1/namespaces/default/databases")
	for name, rv := range acked {
		if got, ok := stored[name]; !ok {
			t.Errorf("acknowledged create %s (resourceVersion %s) is lost", name, rv)
		} else if got != rv {
			t.Errorf("%s: resourceVersion %s after restart, acknowledged %s", name, got, rv)
		}
	}
}

// rawCreates is a write load over plain HTTP, so that every response is checked byte for byte:
// writers POST Databases named sigterm-<writer>-<n> until stopped.
type rawCreates struct {
	stopCh   chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	mu      sync.Mutex
	acked   map[string]string    // name -> acknowledged resourceVersion
	ackedAt map[string]time.Time // name -> when the acknowledgement arrived
	refused int                  // requests that got no response at all (connection refused or closed)
	errs    []error              // responses cut mid-way, or not a decodable object or Status
}

func startRawCreates(client *http.Client, url string, writers int) *rawCreates {
	l := &rawCreates{stopCh: make(chan struct{}), acked: map[string]string{}, ackedAt: map[string]time.Time{}}
	for i := range writers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for n := 0; ; n++ {
				select {
				case <-l.stopCh:
					return
				default:
				}
				l.create(client, url, fmt.Sprintf("sigterm-%d-%d", i, n))
			}
		}()
	}
	return l
}

// create POSTs one Database and records the outcome.
func (l *rawCreates) create(client *http.Client, url, name string) {
	body, _ := json.Marshal(newDatabase("db.example.com/v1", name, map[string]any{"engine": "postgres"}).Object)
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil { // no response: not acknowledged, and nothing was cut
		l.mu.Lock()
		l.refused++
		l.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		return
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("create %s: %d response cut after %d bytes: %w", name, resp.StatusCode, len(data), err))
		return
	}
	if resp.StatusCode == http.StatusCreated {
		var obj metav1.PartialObjectMetadata
		if err := json.Unmarshal(data, &obj); err != nil || obj.Name != name || obj.ResourceVersion == "" {
			l.errs = append(l.errs, fmt.Errorf("create %s: 201 with a body that is not the object (%v): %q", name, err, data))
			return
		}
		l.acked[name], l.ackedAt[name] = obj.ResourceVersion, time.Now()
		return
	}
	var status metav1.Status
	if err := json.Unmarshal(data, &status); err != nil || status.Kind != "Status" {
		l.errs = append(l.errs, fmt.Errorf("create %s: %d with a body that is not a Status (%v): %q", name, resp.StatusCode, err, data))
		return
	}
	l.errs = append(l.errs, fmt.Errorf("create %s refused while serving: %d %s", name, resp.StatusCode, status.Message))
}

func (l *rawCreates) stop() {
	l.stopOnce.Do(func() { close(l.stopCh) })
	l.wg.Wait()
}

func (l *rawCreates) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// ackedSince counts the acknowledgements that arrived after t.
func (l *rawCreates) ackedSince(t time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, at := range l.ackedAt {
		if at.After(t) {
			n++
		}
	}
	return n
}

func (l *rawCreates) ackedSnapshot() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]string, len(l.acked))
	for k, v := range l.acked {
		m[k] = v
	}
	return m
}

func (l *rawCreates) refusedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refused
}

func (l *rawCreates) failures() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.errs...)
}

// readWatch reads the watch at url event by event until the server ends it; it returns nil
// when the stream ends cleanly at an event boundary, and an error for a cut or malformed
// event or an ERROR event.
func readWatch(ctx context.Context, client *http.Client, url string, events *int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("watch: %d", resp.StatusCode)
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var ev metav1.WatchEvent
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("after %d events: the stream was cut: %w", *events, err)
		}
		if ev.Type == "ERROR" {
			return fmt.Errorf("after %d events: ERROR event %s", *events, ev.Object.Raw)
		}
		*events++
	}
}

// pollReadyz asks /readyz on a new connection (with tlsConfig) every 20ms until the server is
// gone, and sends on the returned channel when it first answers something other than 200.
func pollReadyz(base string, tlsConfig *tls.Config) <-chan time.Time {
	failed := make(chan time.Time, 1)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, TLSClientConfig: tlsConfig}, Timeout: 5 * time.Second}
	go func() {
		for range 3000 { // at most a minute
			resp, err := client.Get(base + "/readyz")
			if err != nil {
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				failed <- time.Now()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return failed
}

// listResourceVersions lists url (a collection) and returns name -> resourceVersion.
func listResourceVersions(t *testing.T, client *http.Client, url string) map[string]string {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list metav1.PartialObjectMetadataList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("list %s: %d %v", url, resp.StatusCode, err)
	}
	out := make(map[string]string, len(list.Items))
	for _, item := range list.Items {
		out[item.Name] = item.ResourceVersion
	}
	return out
}
