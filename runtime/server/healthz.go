package server

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

// HealthChecker is a named health check, as k8s.io/apiserver's healthz.HealthChecker.
type HealthChecker interface {
	// Name is the check's name in verbose output and in its own path, e.g. "etcd"
	// (served at /readyz/etcd).
	Name() string
	// Check returns nil when healthy. It must return promptly: it runs on every probe.
	Check(req *http.Request) error
}

// NamedCheck returns a HealthChecker called name that runs check.
func NamedCheck(name string, check func(req *http.Request) error) HealthChecker {
	return namedCheck{name: name, check: check}
}

type namedCheck struct {
	name  string
	check func(*http.Request) error
}

func (c namedCheck) Name() string                  { return c.name }
func (c namedCheck) Check(req *http.Request) error { return c.check(req) }

// PingHealthz is the check that always passes, named "ping".
var PingHealthz = NamedCheck("ping", func(*http.Request) error { return nil })

// installHealthEndpoint serves path ("/healthz", "/livez" or "/readyz") on mux with checks, as
// k8s.io/apiserver's healthz.InstallPathHandler:
//
//   - path runs every check not named in an "exclude" query parameter and answers 200 "ok",
//     or, with a "verbose" query parameter, one "[+]<name> ok" line per check and
//     "<path> check passed". When a check fails it answers 500 listing every check, failing
//     ones as "[-]<name> failed: reason withheld", and "<path> check failed"; the reasons are
//     logged, not served.
//   - path+"/<name>" runs that check alone: 200 "ok", or 500 "internal server error: <err>".
func installHealthEndpoint(mux *http.ServeMux, path string, log *slog.Logger, checks []HealthChecker) {
	mux.Handle(path, healthHandler(path, log, checks))
	for _, c := range checks {
		mux.Handle(path+"/"+c.Name(), singleCheckHandler(c))
	}
}

func healthHandler(path string, log *slog.Logger, checks []HealthChecker) http.Handler {
	name := strings.TrimPrefix(path, "/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		excluded := map[string]bool{}
		for _, e := range r.URL.Query()["exclude"] {
			excluded[e] = true
		}
		var out bytes.Buffer
		failed := false
		for _, c := range checks {
			if excluded[c.Name()] {
				fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name())
				continue
			}
			if err := c.Check(r); err != nil {
				log.Info("health check failed", "endpoint", path, "check", c.Name(), "err", err)
				fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name())
				failed = true
				continue
			}
			fmt.Fprintf(&out, "[+]%s ok\n", c.Name())
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "%s%s check failed\n", out.String(), name)
			return
		}
		if _, verbose := r.URL.Query()["verbose"]; verbose {
			fmt.Fprintf(w, "%s%s check passed\n", out.String(), name)
			return
		}
		fmt.Fprint(w, "ok")
	})
}

func singleCheckHandler(c HealthChecker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if err := c.Check(r); err != nil {
			http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, "ok")
	})
}
