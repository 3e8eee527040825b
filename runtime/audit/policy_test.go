package audit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/runtime/request"
)

// documentationPolicy is the Kubernetes documentation's example policy, unchanged.
const documentationPolicy = "testdata/audit-policy.yaml"

var (
	alice     = &request.User{Name: "alice", Groups: []string{"devs", request.AllAuthenticated}}
	kubeProxy = &request.User{Name: "system:kube-proxy", Groups: []string{request.AllAuthenticated}}
	anonymous = &request.User{Name: request.Anonymous, Groups: []string{request.AllUnauthenticated}}
)

// TestDocumentationPolicy loads the documentation's example policy unchanged and checks each
// of its comments' promises on the requests they describe.
func TestDocumentationPolicy(t *testing.T) {
	p, err := LoadPolicy(documentationPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why          string
		user         *request.User
		method, path string
		want         Level
	}{
		{"pod changes at RequestResponse", alice, "POST", "/api/v1/namespaces/a/pods", LevelRequestResponse},
		{"pods: a read too", alice, "GET", "/api/v1/namespaces/a/pods/p", LevelRequestResponse},
		{`"pods" does not match its subresources: exec falls to the core rule`, alice, "POST", "/api/v1/namespaces/a/pods/p/exec", LevelRequest},
		{"pods/log at Metadata", alice, "GET", "/api/v1/namespaces/a/pods/p/log", LevelMetadata},
		{"pods/status at Metadata", alice, "PUT", "/api/v1/namespaces/a/pods/p/status", LevelMetadata},
		{"not the configmap controller-leader", alice, "PUT", "/api/v1/namespaces/kube-system/configmaps/controller-leader", LevelNone},
		{"configmap changes in kube-system with their body", alice, "PUT", "/api/v1/namespaces/kube-system/configmaps/c", LevelRequest},
		{"configmaps elsewhere at Metadata", alice, "PUT", "/api/v1/namespaces/default/configmaps/c", LevelMetadata},
		{"secrets at Metadata", alice, "GET", "/api/v1/namespaces/kube-system/secrets/s", LevelMetadata},
		{"not kube-proxy's watches of endpoints", kubeProxy, "GET", "/api/v1/endpoints?watch=true", LevelNone},
		{"not kube-proxy's watches of services", kubeProxy, "GET", "/api/v1/namespaces/a/services?watch=1", LevelNone},
		{"kube-proxy's list of services: the core rule", kubeProxy, "GET", "/api/v1/services", LevelRequest},
		{"someone else's watch of services: the core rule", alice, "GET", "/api/v1/services?watch=true", LevelRequest},
		{"not authenticated requests to /api*", alice, "GET", "/apis/apps/v1", LevelNone},
		{"/api* covers /api", alice, "GET", "/api", LevelNone},
		{"not /version", alice, "GET", "/version", LevelNone},
		{"/healthz falls to the catch-all", alice, "GET", "/healthz", LevelMetadata},
		{"unauthenticated /api at the catch-all", anonymous, "GET", "/api", LevelMetadata},
		{"other core resources at Request: namespaces", alice, "DELETE", "/api/v1/namespaces/a", LevelRequest},
		{"extensions at Request", alice, "GET", "/apis/extensions/v1beta1/namespaces/a/ingresses", LevelRequest},
		{"other groups at the catch-all", alice, "POST", "/apis/db.example.com/v1/namespaces/a/databases", LevelMetadata},
		{"watches at the catch-all", alice, "GET", "/apis/db.example.com/v1/databases?watch=true", LevelMetadata},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		info, err := request.ParseRequestInfo(r)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		cfg := p.For(tc.user, info)
		if cfg.Level != tc.want {
			t.Errorf("%s (%s %s as %s): level %s, want %s", tc.why, tc.method, tc.path, tc.user.Name, cfg.Level, tc.want)
		}
		if cfg.Level != LevelNone && !slices.Contains(cfg.OmitStages, StageRequestReceived) {
			t.Errorf("%s: RequestReceived not omitted: %v", tc.why, cfg.OmitStages)
		}
	}
}

// TestDocumentationPolicyEvents serves requests through WithAudit with the documentation's
// policy and checks the events it writes: the stages (never RequestReceived; ResponseStarted
// and ResponseComplete for a watch), the bodies at each level, nothing for level None.
func TestDocumentationPolicyEvents(t *testing.T) {
	p, err := LoadPolicy(documentationPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	h := WithAudit(answering(`{"kind":"Pod","metadata":{"name":"p"}}`), p, NewLog(out, nil))
	serve := func(u *request.User, method, path, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		h.ServeHTTP(httptest.NewRecorder(), r.WithContext(request.WithUser(context.Background(), u)))
	}
	serve(alice, "POST", "/api/v1/namespaces/a/pods", `{"kind":"Pod"}`)
	serve(alice, "PUT", "/api/v1/namespaces/kube-system/configmaps/c", `{"kind":"ConfigMap"}`)
	serve(alice, "GET", "/apis/apps/v1", "")
	serve(kubeProxy, "GET", "/api/v1/endpoints?watch=true", "")
	serve(alice, "GET", "/apis/db.example.com/v1/databases?watch=true", "")
	serve(alice, "GET", "/api/v1/namespaces/default/secrets/s", "")

	type summary struct {
		verb, resource string
		level          Level
		stage          Stage
		request, resp  bool
	}
	var got []summary
	for _, e := range out.events(t) {
		got = append(got, summary{e.Verb, e.ObjectRef.Resource, e.Level, e.Stage, e.RequestObject != nil, e.ResponseObject != nil})
	}
	want := []summary{
		{"create", "pods", LevelRequestResponse, StageResponseComplete, true, true},
		{"update", "configmaps", LevelRequest, StageResponseComplete, true, false},
		{"watch", "databases", LevelMetadata, StageResponseStarted, false, false},
		{"watch", "databases", LevelMetadata, StageResponseComplete, false, false},
		{"get", "secrets", LevelMetadata, StageResponseComplete, false, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %+v\nwant %+v", got, want)
	}
}

// TestEventAnnotationsAndImpersonation: the filters after WithAudit add annotations and the
// impersonated user through the request's context; an error response's Status is recorded.
func TestEventAnnotationsAndImpersonation(t *testing.T) {
	p, err := parsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	h := WithAudit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		AddAnnotation(r.Context(), DecisionAnnotation, "forbid")
		AddAnnotation(r.Context(), ReasonAnnotation, "")
		AddAnnotation(r.Context(), DecisionAnnotation, "allow") // the first value stays
		LogImpersonatedUser(r.Context(), &request.User{Name: "bob", Groups: []string{request.AllAuthenticated}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no","reason":"Forbidden","code":403}`))
	}), p, NewLog(out, nil))
	r := httptest.NewRequest("DELETE", "/apis/db.example.com/v1/namespaces/a/databases/x", nil)
	h.ServeHTTP(httptest.NewRecorder(), r.WithContext(request.WithUser(context.Background(), alice)))
	events := out.events(t)
	if len(events) != 1 {
		t.Fatalf("%d events", len(events))
	}
	e := events[0]
	if e.Annotations[DecisionAnnotation] != "forbid" || e.Annotations[ReasonAnnotation] != "" || len(e.Annotations) != 2 {
		t.Errorf("annotations: %v", e.Annotations)
	}
	if e.ImpersonatedUser == nil || e.ImpersonatedUser.Username != "bob" || e.User.Username != "alice" {
		t.Errorf("users: %+v impersonating %+v", e.User, e.ImpersonatedUser)
	}
	if s := e.ResponseStatus; s == nil || s.Code != 403 || s.Reason != "Forbidden" || s.Message != "no" || s.Status != "Failure" {
		t.Errorf("responseStatus: %+v", s)
	}
	line, _ := json.Marshal(e)
	for _, want := range []string{`"impersonatedUser":{"username":"bob","groups":["system:authenticated"]}`,
		`"annotations":{"authorization.k8s.io/decision":"forbid","authorization.k8s.io/reason":""}`} {
		if !strings.Contains(string(line), want) {
			t.Errorf("event JSON lacks %s:\n%s", want, line)
		}
	}
}

// TestOmitManagedFields: the policy's omitManagedFields leaves managedFields out of recorded
// bodies (an object's and a list's items'), a rule's false keeps them.
func TestOmitManagedFields(t *testing.T) {
	p, err := parsePolicy([]byte(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: RequestResponse
  namespaces: [keep]
  omitManagedFields: false
- level: RequestResponse
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	const object = `{"kind":"Database","metadata":{"name":"x","managedFields":[{"manager":"kubectl"}]},"spec":{"a":1}}`
	const list = `{"kind":"DatabaseList","items":[{"metadata":{"name":"x","managedFields":[{"manager":"kubectl"}]}}]}`
	out := &syncBuffer{}
	h := WithAudit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			_, _ = w.Write([]byte(list))
			return
		}
		_, _ = w.Write([]byte(object))
	}), p, NewLog(out, nil))
	serve := func(method, path, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		h.ServeHTTP(httptest.NewRecorder(), r.WithContext(request.WithUser(context.Background(), alice)))
	}
	serve("PUT", "/apis/db.example.com/v1/namespaces/a/databases/x", object)
	serve("GET", "/apis/db.example.com/v1/namespaces/a/databases", "")
	serve("PUT", "/apis/db.example.com/v1/namespaces/keep/databases/x", object)
	events := out.events(t)
	if len(events) != 3 {
		t.Fatalf("%d events", len(events))
	}
	for i, e := range events[:2] {
		for _, body := range []json.RawMessage{e.RequestObject, e.ResponseObject} {
			if strings.Contains(string(body), "managedFields") {
				t.Errorf("event %d keeps managedFields: %s", i, body)
			}
		}
	}
	if !strings.Contains(string(events[0].RequestObject), `"spec":{"a":1}`) || !strings.Contains(string(events[1].ResponseObject), `"name":"x"`) {
		t.Errorf("bodies lost more than managedFields: %s %s", events[0].RequestObject, events[1].ResponseObject)
	}
	if string(events[2].RequestObject) != object || string(events[2].ResponseObject) != object {
		t.Errorf("omitManagedFields: false changed the bodies: %s %s", events[2].RequestObject, events[2].ResponseObject)
	}
}

// refusing is a backend that refuses every event, as the webhook in mode blocking-strict
// when the webhook is down.
type refusing struct{}

func (refusing) ProcessEvents(...*Event) bool { return false }

// TestBlockingStrictFailsRequest: a backend refusing the RequestReceived event fails the
// request with 500 before the handler runs, as kube-apiserver.
func TestBlockingStrictFailsRequest(t *testing.T) {
	p, err := parsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	served := false
	h := WithAudit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true }), p, Union(NewLog(&syncBuffer{}, nil), refusing{}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/apis/db.example.com/v1/databases", nil).WithContext(request.WithUser(context.Background(), alice)))
	if rec.Code != http.StatusInternalServerError || served || !strings.Contains(rec.Body.String(), "failed to store audit event") {
		t.Errorf("%d %s, handler run %v", rec.Code, rec.Body, served)
	}
}

// TestObjectRefFromBody: a create names its object in its body only; the event's objectRef
// takes the name, uid and resourceVersion from there, at level Metadata too, as kube's
// LogRequestObject.
func TestObjectRefFromBody(t *testing.T) {
	p, err := parsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	h := WithAudit(answering(`{}`), p, NewLog(out, nil))
	r := httptest.NewRequest("POST", "/apis/db.example.com/v1/namespaces/a/databases",
		strings.NewReader(`{"metadata":{"name":"new","uid":"u-1","resourceVersion":"7","namespace":"ignored"}}`))
	h.ServeHTTP(httptest.NewRecorder(), r.WithContext(request.WithUser(context.Background(), alice)))
	events := out.events(t)
	if len(events) != 2 {
		t.Fatalf("%d events", len(events))
	}
	for _, e := range events {
		if ref := *e.ObjectRef; ref.Name != "new" || ref.UID != "u-1" || ref.ResourceVersion != "7" || ref.Namespace != "a" || e.RequestObject != nil {
			t.Errorf("%s: objectRef %+v, requestObject %s", e.Stage, ref, e.RequestObject)
		}
	}
}

// TestFailedAuthenticationAudit: a request authentication refuses is audited without a user,
// once, at ResponseStarted, with the 401 and the credentials it tried, as kube-apiserver.
func TestFailedAuthenticationAudit(t *testing.T) {
	p, err := LoadPolicy(documentationPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	h := WithFailedAuthenticationAudit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}), p, NewLog(out, nil))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/apis/db.example.com/v1/databases", nil))
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer wrong")
	h.ServeHTTP(httptest.NewRecorder(), r)
	events := out.events(t)
	if len(events) != 2 {
		t.Fatalf("%d events: %+v", len(events), events)
	}
	for i, want := range []string{"Authentication failed, no credentials provided", "Authentication failed, attempted: bearer"} {
		e := events[i]
		if e.Stage != StageResponseStarted || e.Level != LevelMetadata || e.ResponseStatus.Code != 401 || e.ResponseStatus.Message != want || e.User.Username != "" {
			t.Errorf("event %d: %+v %+v", i, e, e.ResponseStatus)
		}
	}
	if rec.Header().Get("Audit-Id") != events[0].AuditID {
		t.Errorf("Audit-Id %q, event %q", rec.Header().Get("Audit-Id"), events[0].AuditID)
	}
}
