package audit

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/request"
)

// WithFailedAuthenticationAudit records the requests authentication refuses, as
// k8s.io/apiserver's filters.WithFailedAuthenticationAudit: failed (the 401 handler) is
// audited at the level policy gives the request without a user (rules naming users or groups
// do not match), with one ResponseStarted event (unless omitted) whose responseStatus has the
// code and says which credentials were tried ("Authentication failed, attempted: bearer").
func WithFailedAuthenticationAudit(failed http.Handler, policy *Policy, backend Backend) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := request.InfoFor(r)
		if err != nil {
			failed.ServeHTTP(w, r)
			return
		}
		cfg := policy.For(nil, info)
		if cfg.Level == LevelNone {
			failed.ServeHTTP(w, r)
			return
		}
		ev := newEvent(r, nil, info, cfg.Level)
		w.Header().Set("Audit-Id", ev.AuditID)
		failed.ServeHTTP(&codeRecorder{ResponseWriter: w, started: func(code int) {
			ev.ResponseStatus = &metav1.Status{Code: int32(code), Message: authMethods(r)}
			if !slices.Contains(cfg.OmitStages, StageResponseStarted) {
				ev.Stage, ev.StageTimestamp = StageResponseStarted, metav1.NowMicro()
				backend.ProcessEvents(ev)
			}
		}}, r)
	})
}

// authMethods says which credentials r carried, in kube's words (getAuthMethods).
func authMethods(r *http.Request) string {
	var methods []string
	if _, _, ok := r.BasicAuth(); ok {
		methods = append(methods, "basic")
	}
	if parts := strings.Split(strings.TrimSpace(r.Header.Get("Authorization")), " "); len(parts) > 1 && strings.ToLower(parts[0]) == "bearer" {
		methods = append(methods, "bearer")
	}
	if strings.TrimSpace(r.URL.Query().Get("access_token")) != "" {
		methods = append(methods, "access_token")
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		methods = append(methods, "x509")
	}
	if len(methods) > 0 {
		return fmt.Sprintf("Authentication failed, attempted: %s", strings.Join(methods, ", "))
	}
	return "Authentication failed, no credentials provided"
}

// codeRecorder calls started once, with the status code, when the response starts.
type codeRecorder struct {
	http.ResponseWriter
	once    sync.Once
	started func(code int)
}

func (c *codeRecorder) WriteHeader(code int) {
	c.once.Do(func() { c.started(code) })
	c.ResponseWriter.WriteHeader(code)
}

func (c *codeRecorder) Write(p []byte) (int, error) {
	c.once.Do(func() { c.started(http.StatusOK) })
	return c.ResponseWriter.Write(p)
}
