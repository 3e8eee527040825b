package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/request"
)

const policyYAML = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz", "/readyz", "/livez"]
- level: None
  users: ["system:kube-proxy"]
- level: RequestResponse
  resources:
  - group: db.example.com
    resources: ["databases"]
  namespaces: ["team-a"]
- level: Request
  verbs: ["delete", "deletecollection"]
- level: Metadata
`

func writePolicy(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadPolicyErrors(t *testing.T) {
	for text, want := range map[string]string{
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n":                                       `rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"`,
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [x]\n":                                              `rules[0].level: Required value`,
		"apiVersion: v1\nkind: Policy\n":                                                                                 `write apiVersion: audit.k8s.io/v1, kind: Policy`,
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Sometimes]\nrules:\n- level: None\n":                    `omitStages[0]: Invalid value: "Sometimes": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic`,
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n":                                                         "loaded illegal policy with 0 rules",
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [healthz]\n":               `non-resource URL rules must begin with a '/' character`,
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ['/a*b']\n":                `non-resource URL wildcards '*' must be the final character of the rule`,
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/x]\n  namespaces: [a]\n": "rules cannot apply to both regular resources and non-resource URLs",
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{group: apps/v1}]\n":            `rules[0].resources.group: Invalid value: "apps/v1"`,
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{resourceNames: [x]}]\n":        "using resourceNames requires at least one resource",
	} {
		if _, err := LoadPolicy(writePolicy(t, text), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// TestLoadPolicyLenient: a field the Policy does not know is a warning, and the policy loads
// without it, as kube-apiserver's lenient fallback.
func TestLoadPolicyLenient(t *testing.T) {
	var logged bytes.Buffer
	p, err := LoadPolicy(writePolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  user: [x]\n"),
		slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil || len(p.Rules) != 1 || p.Rules[0].Level != LevelMetadata {
		t.Fatalf("lenient load: %+v, %v", p, err)
	}
	if !strings.Contains(logged.String(), "falling back to lenient decoding") || !strings.Contains(logged.String(), `unknown field \"user\"`) {
		t.Errorf("warning: %s", logged.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) events(t *testing.T) []Event {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(s.b.Bytes()))
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line is not an Event: %v: %s", err, sc.Bytes())
		}
		out = append(out, e)
	}
	return out
}

// answering is a handler answering body as JSON, 201 to a POST, 200 else.
func answering(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write([]byte(body))
	})
}

func TestWithAudit(t *testing.T) {
	policy, err := LoadPolicy(writePolicy(t, policyYAML), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	h := WithAudit(answering(`{"kind":"Database","metadata":{"name":"main"}}`), policy, NewLog(out, nil))
	users := map[string]*request.User{
		"alice": {Name: "alice", Groups: []string{"devs", request.AllAuthenticated}},
		"proxy": {Name: "system:kube-proxy"},
	}
	srv := httptest.NewServer(auth.WithAuthentication(h, auth.AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		return users[r.Header.Get("X-Test-User")], true, nil
	}), nil, nil))
	t.Cleanup(srv.Close)
	do := func(user, method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-Test-User", user)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	do("alice", "GET", "/healthz", "")                                                                           // None
	do("proxy", "GET", "/apis/db.example.com/v1/backups", "")                                                    // None
	created := do("alice", "POST", "/apis/db.example.com/v1/namespaces/team-a/databases", `{"spec":{"x":1}}`)    // RequestResponse
	do("alice", "DELETE", "/apis/db.example.com/v1/namespaces/team-b/databases/old", `{"kind":"DeleteOptions"}`) // Request
	do("alice", "GET", "/apis/db.example.com/v1/namespaces/team-b/databases", "")                                // Metadata

	events := out.events(t)
	if len(events) != 3 {
		t.Fatalf("%d events, want 3 (ResponseComplete of the three audited requests): %+v", len(events), events)
	}
	post, del, list := events[0], events[1], events[2]
	if post.Level != LevelRequestResponse || post.Stage != StageResponseComplete || post.Verb != "create" ||
		post.User.Username != "alice" || post.ResponseStatus == nil || post.ResponseStatus.Code != 201 ||
		string(post.RequestObject) != `{"spec":{"x":1}}` || !strings.Contains(string(post.ResponseObject), `"name":"main"`) ||
		post.ObjectRef == nil || *post.ObjectRef != (ObjectReference{Resource: "databases", Namespace: "team-a", APIGroup: "db.example.com", APIVersion: "v1"}) ||
		post.APIVersion != "audit.k8s.io/v1" || post.Kind != "Event" || len(post.SourceIPs) != 1 || post.AuditID != created.Header.Get("Audit-Id") {
		t.Errorf("create event: %+v", post)
	}
	if del.Level != LevelRequest || del.Verb != "delete" || string(del.RequestObject) != `{"kind":"DeleteOptions"}` || del.ResponseObject != nil {
		t.Errorf("delete event: %+v", del)
	}
	if list.Level != LevelMetadata || list.Verb != "list" || list.RequestObject != nil || list.ResponseObject != nil || list.ResponseStatus.Code != 200 {
		t.Errorf("list event: %+v", list)
	}
}
