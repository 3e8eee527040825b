package endpoints_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

// TestUnconditionalUpdateRaces: PUTs without a resourceVersion racing on one object all
// succeed (the store retries the losers on the current state, decoding the body again),
// each response carrying its own body's spec, and the object ends as one of them.
func TestUnconditionalUpdateRaces(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("w", 1, "red")}, http.StatusCreated, nil)
	const writers, each = 6, 8
	errs := make(chan error, writers*each)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				size := 2 + g*each + i
				req, err := http.NewRequest(http.MethodPut, s.url+widgets+"/w", strings.NewReader(widgetJSON("w", size, "blue")))
				if err != nil {
					errs <- err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), fmt.Sprintf(`"size":%d,`, size)) {
					errs <- fmt.Errorf("PUT of size %d: %d %s", size, resp.StatusCode, body)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var got v1.Widget
	s.expect(t, request{method: "GET", path: widgets + "/w"}, http.StatusOK, &got)
	if got.Spec.Size < 2 || got.Spec.Size >= 2+writers*each || got.Spec.Color != "blue" || got.Generation < 2 {
		t.Errorf("after the race: %+v", got)
	}
}
