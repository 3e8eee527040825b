package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/request"
)

// maxBodyBytes bounds the request and response bodies an event records; a larger body is left
// out, as a body over the server's request limit never reaches the handler anyway.
const maxBodyBytes = 3 << 20

// Log is a backend writing events as JSON lines to one writer (the --audit-log-path file, or
// stdout for "-"), as kube-apiserver's log backend in its json format. Safe for concurrent use.
type Log struct {
	mu  sync.Mutex
	out io.Writer
	log *slog.Logger
}

// NewLog returns a backend writing to out; errors writing are logged to log (if not nil) and
// never fail a request.
func NewLog(out io.Writer, log *slog.Logger) *Log { return &Log{out: out, log: log} }

// Write records one event.
func (l *Log) Write(e *Event) {
	data, err := json.Marshal(e)
	if err == nil {
		l.mu.Lock()
		_, err = l.out.Write(append(data, '\n'))
		l.mu.Unlock()
	}
	if err != nil && l.log != nil {
		l.log.Error("cannot write audit event", "auditID", e.AuditID, "err", err)
	}
}

// WithAudit records every request policy does not give level None to backend, as
// kube-apiserver's filters.WithAudit: a RequestReceived event when the request arrives, a
// ResponseStarted event when a long-running request (watch) starts its response, and a
// ResponseComplete event with the response code when it is done, each unless the policy
// omits that stage. It runs after authentication (the user is in the context) and before
// authorization, as in kube-apiserver's handler chain. The response carries the event's
// Audit-Id header.
func WithAudit(h http.Handler, policy *Policy, backend *Log) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := request.InfoFor(r)
		if err != nil {
			h.ServeHTTP(w, r) // a path that does not parse is refused further in; nothing to audit
			return
		}
		u, _ := auth.UserFrom(r.Context())
		level, omit := policy.LevelFor(u, info)
		if level == LevelNone {
			h.ServeHTTP(w, r)
			return
		}
		ev := newEvent(r, u, info, level)
		if level.atLeast(LevelRequest) {
			ev.RequestObject = captureRequest(r)
		}
		emit := func(stage Stage) {
			if slices.Contains(omit, stage) {
				return
			}
			e := *ev
			e.Stage, e.StageTimestamp = stage, metav1.NewMicroTime(time.Now())
			backend.Write(&e)
		}
		emit(StageRequestReceived)
		w.Header().Set("Audit-Id", ev.AuditID)
		rec := &responseRecorder{ResponseWriter: w, code: http.StatusOK, keepBody: level.atLeast(LevelRequestResponse)}
		if info.Verb == "watch" { // long-running: its response starts long before it completes
			rec.started = func() { ev.ResponseStatus = &metav1.Status{Code: int32(rec.code)}; emit(StageResponseStarted) }
		}
		defer func() {
			if p := recover(); p != nil {
				ev.ResponseStatus = &metav1.Status{Code: http.StatusInternalServerError, Status: metav1.StatusFailure}
				emit(StagePanic)
				panic(p)
			}
			ev.ResponseStatus = &metav1.Status{Code: int32(rec.code)}
			if rec.keepBody && json.Valid(rec.body.Bytes()) {
				ev.ResponseObject = json.RawMessage(rec.body.Bytes())
			}
			emit(StageResponseComplete)
		}()
		h.ServeHTTP(rec, r)
	})
}

// newEvent fills what every stage's event shares.
func newEvent(r *http.Request, u *auth.User, info *request.RequestInfo, level Level) *Event {
	ev := &Event{
		TypeMeta:                 metav1.TypeMeta{APIVersion: "audit.k8s.io/v1", Kind: "Event"},
		Level:                    level,
		AuditID:                  string(uuid.NewUUID()),
		RequestURI:               r.URL.RequestURI(),
		Verb:                     info.Verb,
		UserAgent:                r.UserAgent(),
		RequestReceivedTimestamp: metav1.NewMicroTime(time.Now()),
	}
	if u != nil {
		ev.User = UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		ev.SourceIPs = []string{host}
	}
	if info.IsResourceRequest {
		ev.ObjectRef = &ObjectReference{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
			APIGroup: info.APIGroup, APIVersion: info.APIVersion, Subresource: info.Subresource}
	}
	return ev
}

// captureRequest reads r's body (up to maxBodyBytes) and puts it back; it returns it when it
// is JSON.
func captureRequest(r *http.Request) json.RawMessage {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), r.Body), r.Body}
	if err != nil || len(data) > maxBodyBytes || !json.Valid(data) {
		return nil
	}
	return json.RawMessage(data)
}

// responseRecorder remembers the status code, calls started when the response starts, and
// keeps a copy of the body (up to maxBodyBytes) when keepBody. It forwards Flush and Unwrap.
type responseRecorder struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
	started     func()
	keepBody    bool
	body        bytes.Buffer
}

func (r *responseRecorder) WriteHeader(code int) {
	if !r.wroteHeader {
		r.code, r.wroteHeader = code, true
		if r.started != nil {
			r.started()
		}
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *responseRecorder) Write(p []byte) (int, error) {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	if r.keepBody && r.body.Len()+len(p) <= maxBodyBytes {
		r.body.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

func (r *responseRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *responseRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
