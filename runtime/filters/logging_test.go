package filters

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWithRequestLogging(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := WithRequestLogging(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}), log)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/apis/x?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := logs.String(); !strings.Contains(got, `path="/apis/x?watch=1"`) || !strings.Contains(got, "code=418") {
		t.Errorf("log %q lacks the path and status code", got)
	}
}
