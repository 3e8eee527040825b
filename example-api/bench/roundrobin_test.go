package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// replica is a test server that records the order in which it was reached, and the
// connections it accepted.
type replica struct {
	*httptest.Server
	conns int
}

// startReplicas starts a plain HTTP replica and an HTTPS one (each with its own TLS
// configuration), appending the index of the replica that served each request to *order.
func startReplicas(t *testing.T, order *[]int) []*replica {
	t.Helper()
	var mu sync.Mutex
	replicas := make([]*replica, 2)
	for i := range replicas {
		r := &replica{}
		r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			*order = append(*order, i)
			mu.Unlock()
			if want := r.Listener.Addr().String(); req.Host != want {
				t.Errorf("replica %d: Host %q, want %q", i, req.Host, want)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"1"}}`))
		}))
		r.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				mu.Lock()
				r.conns++
				mu.Unlock()
			}
		}
		if i == 1 {
			r.StartTLS()
		} else {
			r.Start()
		}
		t.Cleanup(r.Close)
		replicas[i] = r
	}
	return replicas
}

// endpoints returns the replicas' Endpoints, with the TLS configuration of the HTTPS one's
// client.
func endpoints(replicas []*replica) []Endpoint {
	var out []Endpoint
	for _, r := range replicas {
		e := Endpoint{URL: r.URL}
		if strings.HasPrefix(r.URL, "https://") {
			e.TLS = r.Client().Transport.(*http.Transport).TLSClientConfig
		}
		out = append(out, e)
	}
	return out
}

// TestRoundRobin: the requests of several clients sharing one RoundRobin alternate between
// the replicas in the order they are sent, whichever client sends them, each replica reached
// with its own scheme, host and TLS configuration, over one connection per client.
func TestRoundRobin(t *testing.T) {
	var order []int
	replicas := startReplicas(t, &order)
	rr, err := NewRoundRobin(endpoints(replicas))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := NewObjectTemplate(256)
	if err != nil {
		t.Fatal(err)
	}
	clients := []*APIClient{NewBalancedAPIClient(rr, tmpl), NewBalancedAPIClient(rr, tmpl)}
	ctx := context.Background()
	// Client 0 sends three in a row, client 1 two, then they alternate.
	for _, c := range []int{0, 0, 0, 1, 1, 0, 1, 0, 1, 0} {
		if _, err := clients[c].Get(ctx, "ns", "name"); err != nil {
			t.Fatalf("Get through client %d: %v", c, err)
		}
	}
	for _, c := range clients {
		c.Close()
	}
	want := []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}
	if !slices.Equal(order, want) {
		t.Errorf("replicas reached in order %v, want %v", order, want)
	}
	for i, r := range replicas {
		if r.conns != len(clients) {
			t.Errorf("replica %d accepted %d connections, want one per client (%d)", i, r.conns, len(clients))
		}
	}
}

// TestRoundRobinConcurrent: requests sent concurrently are spread evenly.
func TestRoundRobinConcurrent(t *testing.T) {
	var order []int
	rr, err := NewRoundRobin(endpoints(startReplicas(t, &order)))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := NewObjectTemplate(256)
	if err != nil {
		t.Fatal(err)
	}
	const clients, each = 8, 25
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			c := NewBalancedAPIClient(rr, tmpl)
			defer c.Close()
			for range each {
				if _, err := c.Get(context.Background(), "ns", "name"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	counts := [2]int{}
	for _, r := range order {
		counts[r]++
	}
	if counts[0] != clients*each/2 || counts[1] != clients*each/2 {
		t.Errorf("requests per replica %v, want %d each", counts, clients*each/2)
	}
}

func TestNewRoundRobinRejects(t *testing.T) {
	for _, replicas := range [][]Endpoint{nil, {{URL: "127.0.0.1:6443"}}, {{URL: "ftp://127.0.0.1"}}, {{URL: "http://"}}} {
		if _, err := NewRoundRobin(replicas); err == nil {
			t.Errorf("NewRoundRobin(%v) succeeded, want an error", replicas)
		}
	}
}
