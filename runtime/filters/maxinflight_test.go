package filters

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMaxInFlightLimit holds one write and two reads in the handler and checks that the next
// write and read are refused with 429 and Retry-After, while a watch and, after release,
// new requests are served.
func TestMaxInFlightLimit(t *testing.T) {
	release := make(chan struct{})
	var entered sync.WaitGroup
	h := WithMaxInFlightLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hold") == "1" {
			entered.Done()
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}), 2, 1)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	const dbs = "/apis/db.example.com/v1/namespaces/a/databases"
	do := func(method, path string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return nil
		}
		return resp
	}
	held := []struct{ method, path string }{{"POST", dbs + "?hold=1"}, {"GET", dbs + "?hold=1"}, {"GET", dbs + "/x?hold=1"}}
	entered.Add(len(held))
	var done sync.WaitGroup
	for _, req := range held {
		done.Add(1)
		go func() {
			defer done.Done()
			if resp := do(req.method, req.path); resp != nil {
				resp.Body.Close()
			}
		}()
	}
	entered.Wait()
	for _, method := range []string{"PUT", "GET"} {
		resp := do(method, dbs+"/y")
		var status metav1.Status
		_ = json.NewDecoder(resp.Body).Decode(&status)
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" ||
			status.Reason != metav1.StatusReasonTooManyRequests {
			t.Errorf("%s over the limit: %d Retry-After=%q %+v", method, resp.StatusCode, resp.Header.Get("Retry-After"), status)
		}
	}
	if resp := do("GET", dbs+"?watch=true"); resp == nil || resp.StatusCode != http.StatusOK {
		t.Errorf("a watch was counted against the limit: %v", resp)
	}
	close(release)
	done.Wait()
	if resp := do("PUT", dbs+"/y"); resp == nil || resp.StatusCode != http.StatusOK {
		t.Errorf("after release: %v", resp)
	}
}
