package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/serializer/protobuf"
)

// maxBodyBytes bounds the request and response bodies an event records; a larger body is left
// out, as a body over the server's request limit never reaches the handler anyway.
const maxBodyBytes = 3 << 20

// WithAudit records every request policy does not give level None to backend, as
// kube-apiserver's filters.WithAudit: a RequestReceived event when the request arrives, a
// ResponseStarted event when a long-running request (watch) starts its response, and a
// ResponseComplete event with the response status when it is done (a Panic event when the
// handler panics), each unless the policy omits that stage. It runs after authentication
// (the user is in the context) and before impersonation and authorization, which add to the
// event through the request's context (LogImpersonatedUser, AddAnnotation). The response
// carries the event's Audit-Id header. A backend refusing the RequestReceived event (mode
// blocking-strict) fails the request with 500.
func WithAudit(h http.Handler, policy *Policy, backend Backend) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := request.InfoFor(r)
		if err != nil {
			h.ServeHTTP(w, r) // a path that does not parse is refused further in; nothing to audit
			return
		}
		u, _ := request.UserFrom(r.Context())
		cfg := policy.For(u, info)
		if cfg.Level == LevelNone {
			h.ServeHTTP(w, r)
			return
		}
		ec := &eventContext{ev: newEvent(r, u, info, cfg.Level)}
		if body := captureRequest(r); body != nil {
			completeObjectRef(ec.ev.ObjectRef, body)
			if cfg.Level.atLeast(LevelRequest) {
				ec.ev.RequestObject = withoutManagedFields(body, cfg.OmitManagedFields)
			}
		}
		emit := func(stage Stage) bool {
			if slices.Contains(cfg.OmitStages, stage) {
				return true
			}
			e := ec.snapshot()
			e.Stage, e.StageTimestamp = stage, metav1.NewMicroTime(time.Now())
			return backend.ProcessEvents(&e)
		}
		if !emit(StageRequestReceived) {
			responsewriters.WriteError(w, apierrors.NewInternalError(errors.New("failed to store audit event")))
			return
		}
		w.Header().Set("Audit-Id", ec.ev.AuditID)
		rec := &responseRecorder{ResponseWriter: w, code: http.StatusOK, keepBody: cfg.Level.atLeast(LevelRequestResponse)}
		if info.Verb == "watch" { // long-running: its response starts long before it completes
			rec.started = func() { ec.setStatus(rec, false); emit(StageResponseStarted) }
		}
		defer func() {
			if p := recover(); p != nil {
				ec.mu.Lock()
				ec.ev.ResponseStatus = &metav1.Status{Code: http.StatusInternalServerError, Status: metav1.StatusFailure,
					Message: fmt.Sprintf("APIServer panic'd: %v", p)}
				ec.mu.Unlock()
				emit(StagePanic)
				panic(p)
			}
			ec.setStatus(rec, cfg.OmitManagedFields)
			emit(StageResponseComplete)
		}()
		h.ServeHTTP(rec, r.WithContext(withEvent(r.Context(), ec)))
	})
}

// setStatus records rec's response status (the metav1.Status of an error response) and, at
// level RequestResponse, its body.
func (ec *eventContext) setStatus(rec *responseRecorder, omitManagedFields bool) {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	status := &metav1.Status{Code: int32(rec.code)}
	if rec.code >= 300 && rec.errBody.Len() > 0 {
		var body metav1.Status
		if json.Unmarshal(rec.errBody.Bytes(), &body) == nil && body.Kind == "Status" {
			status = &metav1.Status{Status: body.Status, Message: body.Message, Reason: body.Reason, Details: body.Details, Code: body.Code}
		}
	}
	ec.ev.ResponseStatus = status
	if rec.keepBody && json.Valid(rec.body.Bytes()) {
		ec.ev.ResponseObject = withoutManagedFields(json.RawMessage(rec.body.Bytes()), omitManagedFields)
	}
}

// newEvent fills what every stage's event shares.
func newEvent(r *http.Request, u *request.User, info *request.RequestInfo, level Level) *Event {
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
		ev.User = userInfo(u)
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

// completeObjectRef fills what ref (nil: none) lacks of the request object's metadata (name,
// namespace, uid, resourceVersion), as kube's audit.LogRequestObject: a create names its
// object in its body only.
func completeObjectRef(ref *ObjectReference, body json.RawMessage) {
	if ref == nil {
		return
	}
	var obj struct {
		Metadata struct {
			Name, Namespace, UID, ResourceVersion string
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) != nil {
		return
	}
	m := obj.Metadata
	for _, f := range []struct {
		dst *string
		v   string
	}{{&ref.Name, m.Name}, {&ref.Namespace, m.Namespace}, {&ref.UID, m.UID}, {&ref.ResourceVersion, m.ResourceVersion}} {
		if *f.dst == "" {
			*f.dst = f.v
		}
	}
}

// captureRequest reads r's body (up to maxBodyBytes) and puts it back; it returns it when it
// is JSON (or protobuf of a built-in kind, as JSON).
func captureRequest(r *http.Request) json.RawMessage {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), r.Body), r.Body}
	if err != nil || len(data) > maxBodyBytes {
		return nil
	}
	if mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mediaType == protobuf.ContentType {
		if data, _, err = protobuf.Builtin().ToJSON(data); err != nil {
			return nil
		}
	}
	if !json.Valid(data) {
		return nil
	}
	return json.RawMessage(data)
}

// maxStatusBytes bounds the error body read for the event's responseStatus.
const maxStatusBytes = 64 << 10

// responseRecorder remembers the status code, calls started when the response starts, keeps
// a copy of the body (up to maxBodyBytes) when keepBody, and of an error response's body (up
// to maxStatusBytes). It forwards Flush and Unwrap.
type responseRecorder struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
	started     func()
	keepBody    bool
	body        bytes.Buffer
	errBody     bytes.Buffer
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
	if r.code >= 300 && r.errBody.Len()+len(p) <= maxStatusBytes {
		r.errBody.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

func (r *responseRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *responseRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
