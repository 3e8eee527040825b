package app

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/certs"
)

// auditSink is a TLS audit webhook recording the events it is sent.
type auditSink struct {
	mu     sync.Mutex
	events []audit.Event
}

func (s *auditSink) ids() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	for _, e := range s.events {
		out[e.AuditID+"/"+string(e.Stage)] = true
	}
	return out
}

// startAuditSink serves the sink and returns a kubeconfig naming it.
func startAuditSink(t *testing.T) (*auditSink, string) {
	t.Helper()
	sink := &auditSink{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var list audit.EventList
		if err := json.NewDecoder(r.Body).Decode(&list); err != nil || list.Kind != "EventList" {
			http.Error(w, "not an EventList", http.StatusBadRequest)
			return
		}
		sink.mu.Lock()
		sink.events = append(sink.events, list.Items...)
		sink.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "audit-webhook.kubeconfig")
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster: {server: %q, certificate-authority-data: %s}\n"+
		"contexts:\n- name: w\n  context: {cluster: w, user: u}\nusers:\n- name: u\n  user: {token: x}\ncurrent-context: w\n", srv.URL, ca)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return sink, path
}

// TestRunAuditDocumentationPolicy serves with the Kubernetes documentation's example audit
// policy, unchanged, a log file and a webhook, and checks that the events are those the
// policy says: no RequestReceived stage; a request authentication refuses at Metadata; core-group changes (namespaces) at Request with
// their body (and the object's name, from the body, in objectRef); authenticated discovery (/api*, /version) not at all; everything else at
// Metadata; each with the authorization decision and reason; an impersonated request with
// impersonatedUser; the webhook receiving what the log holds.
func TestRunAuditDocumentationPolicy(t *testing.T) {
	dir := t.TempDir()
	auditLog := filepath.Join(dir, "audit.log")
	sink, webhookConfig := startAuditSink(t)
	url, kubeconfig := startArgs(t, []string{"--plain-http=false", "--audit-policy-file=../audit/testdata/audit-policy.yaml",
		"--audit-log-path=" + auditLog, "--audit-webhook-config-file=" + webhookConfig, "--audit-webhook-batch-max-wait=50ms"}, testGroup)

	runKubectl(t, kubeconfig, "create", "namespace", "team-a")
	runKubectl(t, kubeconfig, "get", "widgets.test.apigen.dev", "-n", "default")
	cmd := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "namespaces", "--as", "bob")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), `namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope`) {
		t.Errorf("kubectl --as bob: %v\n%s", err, out)
	}

	// A request without credentials to a path anonymous may not reach: 401, audited.
	caPEM, err := os.ReadFile(filepath.Join(filepath.Dir(kubeconfig), "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}).Get(url + "/apis")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous /apis: %d", resp.StatusCode)
	}

	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	var events []audit.Event
	logged := map[string]bool{}
	for sc := bufio.NewScanner(bytes.NewReader(data)); sc.Scan(); {
		var e audit.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line: %v: %s", err, sc.Bytes())
		}
		events = append(events, e)
		logged[e.AuditID+"/"+string(e.Stage)] = true
	}
	// system:masters is allowed before any mode is asked, with no reason, as kube-apiserver's
	// privileged-group authorizer.
	const masters = ""
	var sawCreate, sawList, sawImpersonated, sawUnauthorized bool
	for _, e := range events {
		switch {
		case e.ResponseStatus != nil && e.ResponseStatus.Code == 401:
			sawUnauthorized = e.RequestURI == "/apis" && e.Stage == audit.StageResponseStarted && e.User.Username == "" &&
				e.ResponseStatus.Message == "Authentication failed, no credentials provided"
		case e.Stage == audit.StageRequestReceived:
			t.Errorf("RequestReceived recorded: %+v", e)
		case e.ObjectRef == nil && (strings.HasPrefix(e.RequestURI, "/api") || e.RequestURI == "/version") && slices.Contains(e.User.Groups, "system:authenticated"):
			t.Errorf("authenticated discovery recorded: %s", e.RequestURI)
		case e.Verb == "create" && e.ObjectRef.Resource == "namespaces":
			sawCreate = e.Level == audit.LevelRequest && strings.Contains(string(e.RequestObject), `"team-a"`) && e.ResponseObject == nil &&
				e.ObjectRef.Name == "team-a" &&
				e.ResponseStatus.Code == 201 && e.Annotations[audit.DecisionAnnotation] == "allow" && e.Annotations[audit.ReasonAnnotation] == masters
		case e.Verb == "list" && e.ObjectRef.Resource == "widgets":
			sawList = e.Level == audit.LevelMetadata && e.RequestObject == nil && e.ResponseObject == nil && e.ResponseStatus.Code == 200
		case e.ImpersonatedUser != nil:
			sawImpersonated = e.User.Username == certs.AdminUser && e.ImpersonatedUser.Username == "bob" && e.Verb == "list" &&
				e.Level == audit.LevelRequest && e.ResponseStatus.Code == 403 && e.ResponseStatus.Reason == "Forbidden" &&
				e.Annotations[audit.DecisionAnnotation] == "forbid"
		}
	}
	if !sawCreate || !sawList || !sawImpersonated || !sawUnauthorized {
		t.Errorf("create namespace at Request %v, list widgets at Metadata %v, impersonated list %v, anonymous 401 %v, in:\n%s",
			sawCreate, sawList, sawImpersonated, sawUnauthorized, data)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := sink.ids()
		missing := 0
		for id := range logged {
			if !got[id] {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook lacks %d of the %d logged events", missing, len(logged))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
