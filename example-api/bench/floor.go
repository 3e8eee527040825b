package bench

import (
	"context"
	"crypto/tls"
	"net/http"
	"strconv"
)

// FloorHandler answers every GET with body (Content-Type application/json) and every other
// method with 405 Method Not Allowed: the least any server of the benchmark's API does for a
// get. Served by Go's net/http on the benchmark's transport (HTTPS with HTTP/2 and a client
// certificate, or plain HTTP) to the get row's clients, its rate is the get row's floor: no
// Go server of the API, whatever it does besides, answers gets faster on that machine with
// those clients (loadgen's -floor prints it beside raw etcd's).
func FloorHandler(body []byte) http.Handler {
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "only GET is served", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{length}
		_, _ = w.Write(body)
	})
}

// ServedObject returns the body the server answers the get row's first request with: one
// stored object, in the JSON a client receives.
func (s *Scenario) ServedObject(ctx context.Context) ([]byte, error) {
	api := s.newAPIClient()
	defer api.Close()
	return api.GetBody(ctx, listNamespace, objectName(0))
}

// FloorOp returns the NewOp of the get row's requests (ServerOp(OpGet): the same paths, one
// client and connection each) sent to another server, at serverURL with tlsConfig (nil for
// plain HTTP), instead of the scenario's. The connections stay open until ctx ends.
func (s *Scenario) FloorOp(ctx context.Context, serverURL string, tlsConfig *tls.Config) NewOp {
	return func(client int) (Op, error) {
		api := NewAPIClient(serverURL, s.tmpl, tlsConfig)
		context.AfterFunc(ctx, api.Close)
		return func(ctx context.Context, i int) error {
			_, err := api.Get(ctx, listNamespace, objectName(s.spread(client, i)))
			return err
		}, nil
	}
}
