package audit

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// eventSink is a TLS audit webhook: it records the EventLists it is sent and answers with
// the codes queued in fail first (then 200).
type eventSink struct {
	srv    *httptest.Server
	config string // the kubeconfig naming it

	mu      sync.Mutex
	batches [][]Event
	fail    []int
	tokens  []string
}

func newEventSink(t *testing.T, fail ...int) *eventSink {
	t.Helper()
	s := &eventSink{fail: fail}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var list EventList
		if err := json.NewDecoder(r.Body).Decode(&list); err != nil || list.Kind != "EventList" || list.APIVersion != "audit.k8s.io/v1" {
			http.Error(w, "not an EventList", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.tokens = append(s.tokens, r.Header.Get("Authorization"))
		if len(s.fail) > 0 {
			code := s.fail[0]
			s.fail = s.fail[1:]
			w.WriteHeader(code)
			return
		}
		s.batches = append(s.batches, list.Items)
	}))
	t.Cleanup(s.srv.Close)
	s.config = filepath.Join(t.TempDir(), "audit-webhook.kubeconfig")
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw}))
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster: {server: %q, certificate-authority-data: %s}\n"+
		"contexts:\n- name: w\n  context: {cluster: w, user: u}\nusers:\n- name: u\n  user: {token: audit-token}\ncurrent-context: w\n", s.srv.URL, ca)
	if err := os.WriteFile(s.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// received returns the sizes of the batches received so far and their events' IDs in order.
func (s *eventSink) received() (sizes []int, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		sizes = append(sizes, len(b))
		for _, e := range b {
			ids = append(ids, e.AuditID)
		}
	}
	return sizes, ids
}

func events(n int) []*Event {
	out := make([]*Event, n)
	for i := range out {
		out[i] = &Event{AuditID: fmt.Sprint(i), Level: LevelMetadata, Stage: StageResponseComplete}
	}
	return out
}

// TestWebhookBatch: batch mode sends full batches of MaxBatchSize at once, a partial one
// after MaxBatchWait, and on Close what is left; every event arrives once, with the
// kubeconfig's credential.
func TestWebhookBatch(t *testing.T) {
	sink := newEventSink(t)
	wh, err := NewWebhook(WebhookConfig{ConfigFile: sink.config, MaxBatchSize: 3, MaxBatchWait: 200 * time.Millisecond, ThrottleEnable: false}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !wh.ProcessEvents(events(7)...) {
		t.Fatal("batch mode refused events")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		sizes, _ := sink.received()
		total := 0
		for _, n := range sizes {
			total += n
		}
		if total == 7 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("batches received: %v", sizes)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	sizes, ids := sink.received()
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	if len(ids) != 7 || len(seen) != 7 {
		t.Errorf("events received %v, want each of 0-6 once", ids)
	}
	for _, n := range sizes {
		if n > 3 {
			t.Errorf("a batch of %d events, max 3: %v", n, sizes)
		}
	}
	if sink.tokens[0] != "Bearer audit-token" {
		t.Errorf("credential %q", sink.tokens[0])
	}
	// After Close: dropped, not sent.
	wh.ProcessEvents(events(1)...)
	if _, ids := sink.received(); len(ids) != 7 {
		t.Errorf("an event after Close was sent: %v", ids)
	}
}

// TestWebhookCloseFlushes: Close sends what a long MaxBatchWait still holds.
func TestWebhookCloseFlushes(t *testing.T) {
	sink := newEventSink(t)
	wh, err := NewWebhook(WebhookConfig{ConfigFile: sink.config, MaxBatchWait: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wh.ProcessEvents(events(5)...)
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ids := sink.received(); len(ids) != 5 {
		t.Errorf("Close sent %v, want 5 events", ids)
	}
}

// TestWebhookBlocking: blocking modes send before returning; a 503 is retried, a 400 is not;
// blocking-strict reports a failed send so that the request fails.
func TestWebhookBlocking(t *testing.T) {
	sink := newEventSink(t, http.StatusServiceUnavailable)
	wh, err := NewWebhook(WebhookConfig{ConfigFile: sink.config, Mode: ModeBlocking, InitialBackoff: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !wh.ProcessEvents(events(2)...) {
		t.Error("blocking mode reported a failure")
	}
	if sizes, _ := sink.received(); len(sizes) != 1 || sizes[0] != 2 {
		t.Errorf("after a retried 503: batches %v, want one of 2", sizes)
	}
	strict, err := NewWebhook(WebhookConfig{ConfigFile: sink.config, Mode: ModeBlockingStrict, InitialBackoff: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	sink.fail = []int{http.StatusBadRequest}
	sink.mu.Unlock()
	if strict.ProcessEvents(events(1)...) {
		t.Error("blocking-strict accepted a refused event")
	}
	if sizes, _ := sink.received(); len(sizes) != 1 {
		t.Errorf("a 400 was retried: batches %v", sizes)
	}
	if _, err := NewWebhook(WebhookConfig{ConfigFile: sink.config, Mode: "sometimes"}, nil); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
