package app

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestLoopbackClientsSendJSON checks that the loopback clients (leader election's Leases, the
// namespace wait) send JSON bodies, which the server reads without the protobuf transcoder.
func TestLoopbackClientsSendJSON(t *testing.T) {
	got := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l","namespace":"kube-system"}}`))
	}))
	defer ts.Close()
	var lb loopback
	lb.set(ts.Listener.Addr().(*net.TCPAddr), &security{})
	clients, err := lb.clients()
	if err != nil {
		t.Fatal(err)
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "kube-system"}}
	if _, err := clients.coordination.Leases("kube-system").Create(context.Background(), lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if ct := <-got; ct != "application/json" {
		t.Errorf("the loopback client sent a Lease as %q, want application/json", ct)
	}
}
