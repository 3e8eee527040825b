package endpoints_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestListWholeInPages lists more objects than a page without a limit: the response is the
// bytes of the same list read at once (a limit larger than the collection), with one
// resourceVersion, every item in key order, no continue token; selectors and
// resourceVersion keep their unpaged meaning (a future one waits 3 s for etcd, then is 504).
func TestListWholeInPages(t *testing.T) {
	s := newTestServer(t)
	t.Cleanup(endpoints.SetListPageSize(4))
	const n = 23
	for i := range n {
		body := widgetJSON(fmt.Sprintf("w%02d", i), 1+i%2, "red")
		if i%3 == 0 {
			body = `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"` + fmt.Sprintf("w%02d", i) +
				`","labels":{"third":"yes"}},"spec":{"size":1}}`
		}
		s.expect(t, request{method: "POST", path: widgets, body: body}, http.StatusCreated, nil)
	}
	_, whole := s.do(t, request{method: "GET", path: widgets})
	_, once := s.do(t, request{method: "GET", path: widgets + "?limit=1000"})
	if !bytes.Equal(whole, once) {
		t.Fatalf("list read in pages differs from the list read at once:\npages %s\nonce  %s", whole, once)
	}
	var list struct {
		Metadata metav1.ListMeta `json:"metadata"`
		Items    []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(whole, &list); err != nil {
		t.Fatalf("the list is not JSON: %v\n%s", err, whole)
	}
	if len(list.Items) != n || list.Metadata.Continue != "" || list.Metadata.RemainingItemCount != nil {
		t.Fatalf("%d items, continue %q, remaining %v; want %d, none, none", len(list.Items), list.Metadata.Continue,
			list.Metadata.RemainingItemCount, n)
	}
	for i, item := range list.Items {
		if want := fmt.Sprintf("w%02d", i); item.Metadata.Name != want {
			t.Fatalf("item %d is %s, want %s", i, item.Metadata.Name, want)
		}
	}

	// A selector across pages: every match, still one list.
	_, selected := s.do(t, request{method: "GET", path: widgets + "?labelSelector=third%3Dyes"})
	if err := json.Unmarshal(selected, &list); err != nil || len(list.Items) != (n+2)/3 {
		t.Fatalf("selected list: %v, %d items, want %d: %s", err, len(list.Items), (n+2)/3, selected)
	}
	// An unpaged resourceVersion is a lower bound: the current one reads the latest state, a
	// future one is refused.
	rv, _ := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64)
	_, atRV := s.do(t, request{method: "GET", path: widgets + "?resourceVersion=" + strconv.FormatInt(rv, 10)})
	if !bytes.Equal(atRV, whole) {
		t.Errorf("list at the current resourceVersion differs from the latest list")
	}
	resp, body := s.do(t, request{method: "GET", path: widgets + "?resourceVersion=" + strconv.FormatInt(rv+1000, 10)})
	if resp.StatusCode != http.StatusGatewayTimeout || resp.Header.Get("Retry-After") != "1" ||
		!bytes.Contains(body, []byte(`"reason":"ResourceVersionTooLarge"`)) {
		t.Errorf("list at a future resourceVersion: %d Retry-After %q %s, want 504 with cause ResourceVersionTooLarge and Retry-After 1",
			resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

// countingStore is a registry.Store that counts the List calls it serves.
type countingStore struct {
	*registry.Store
	lists atomic.Int32
}

func (s *countingStore) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	s.lists.Add(1)
	return s.Store.List(ctx, opts)
}

// TestListWholeAtAnyVersionInPages: an unpaged list at resourceVersion "0" (a client-go
// informer's first list), which the watch cache would serve whole whatever the limit, is read
// page by page all the same, so that it holds one page of objects at a time; its bytes are
// those of the list read at once.
func TestListWholeAtAnyVersionInPages(t *testing.T) {
	t.Cleanup(endpoints.SetListPageSize(4))
	client, _ := etcdtest.Run(t)
	widgetStore := &countingStore{}
	s := serveEdited(t, client, true, func(info *registry.APIGroupInfo) {
		widgetStore.Store = info.VersionedResourcesStorageMap["v1"]["widgets"].(*registry.Store)
		info.VersionedResourcesStorageMap["v1"]["widgets"] = widgetStore
	})
	const n = 23
	createWidgets(t, s.url, n)
	var list struct {
		Metadata metav1.ListMeta   `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	// Once the cache serves the list, a limit at "0" reads every item at once.
	var once []byte
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, once = s.do(t, request{method: "GET", path: widgets + "?resourceVersion=0&limit=4"})
		if err := json.Unmarshal(once, &list); err != nil {
			t.Fatalf("the list is not JSON: %v\n%s", err, once)
		}
		if len(list.Items) == n && list.Metadata.Continue == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch cache did not serve a list at resourceVersion 0 within 10s: %d items, continue %q",
				len(list.Items), list.Metadata.Continue)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := widgetStore.lists.Load()
	_, whole := s.do(t, request{method: "GET", path: widgets + "?resourceVersion=0"})
	if got, want := widgetStore.lists.Load()-before, int32((n+3)/4); got != want {
		t.Errorf("an unpaged list of %d at resourceVersion 0 was read in %d pieces; want %d pages of 4", n, got, want)
	}
	if !bytes.Equal(whole, once) {
		t.Errorf("list read in pages differs from the list read at once:\npages %s\nonce  %s", whole, once)
	}
}
