package bench

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFloorServer checks the floor server answers what the benchmark's clients need: a get
// with the object's bytes, creates with 201, and updates fanned out to watchers as MODIFIED
// events carrying the PUT's body, each update with a new resourceVersion, through the same
// APIClient and RunWatchFanout code that measure the real server.
func TestFloorServer(t *testing.T) {
	object := []byte(`{"kind":"Database","metadata":{"name":"x"}}`)
	srv := httptest.NewServer(NewFloorServer(object))
	t.Cleanup(srv.Close)
	tmpl, err := NewObjectTemplate(1024)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	api := NewAPIClient(srv.URL, tmpl, nil)
	defer api.Close()
	got, err := api.GetBody(ctx, "ns", "x")
	if err != nil || string(got) != string(object) {
		t.Fatalf("get = %q, %v; want the object", got, err)
	}
	rv, err := api.Create(ctx, "ns", "x", 0)
	if err != nil || rv != "1" {
		t.Fatalf("create = %q, %v; want resourceVersion 1", rv, err)
	}

	sum, err := RunWatchFanout(ctx, WatchConfig{ServerURL: srv.URL, Template: tmpl, Watchers: 3, Rate: 50, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Expected != 30 || sum.Delivered != sum.Expected {
		t.Errorf("fan-out delivered %d of %d events, want 30 of 30", sum.Delivered, sum.Expected)
	}

	// An update's body reaches a watcher as the object of a MODIFIED event.
	resp, err := http.Get(srv.URL + "/apis/db.example.com/v1/namespaces/ns/databases?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := api.Update(ctx, "ns", "x", "1", 7); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"MODIFIED","object":` + string(tmpl.Render(nil, "x", "1", 7)) + "}\n"
	if line != want {
		t.Errorf("watch event = %q, want %q", line, want)
	}
}

// TestFloorServerCutsOffASlowWatcher checks a watcher 256 events behind is cut off and never
// blocks the updates, and that methods the benchmark does not send are refused.
func TestFloorServerCutsOffASlowWatcher(t *testing.T) {
	f := NewFloorServer(nil)
	events := make(chan []byte, inputBuffer)
	f.watchers[events] = struct{}{}
	for range inputBuffer + 1 {
		f.broadcast([]byte("e\n"))
	}
	if _, ok := f.watchers[events]; ok {
		t.Fatal("a watcher 257 events behind is still registered")
	}
	n := 0
	for range events {
		n++
	}
	if n != inputBuffer {
		t.Errorf("the cut-off watcher holds %d events, want the %d before the cut", n, inputBuffer)
	}
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodDelete, "/", strings.NewReader("")))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE = %d, want 405", rec.Code)
	}
}
