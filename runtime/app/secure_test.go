package app

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/audit"
)

// TestRunSecure serves HTTPS with --plain-http=false and checks the secure defaults, as
// kube-apiserver behaves: kubectl with the written kubeconfig (the self-signed CA, the admin
// certificate in system:masters) may do everything; a token user gets kube-apiserver's 403
// for what the bootstrap RBAC policy does not grant; anonymous requests reach only the health
// and version endpoints, others get 401; a wrong token gets 401; requests are audited.
func TestRunSecure(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	policy := filepath.Join(dir, "audit.yaml")
	auditLog := filepath.Join(dir, "audit.log")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(tokens, "bob-token,bob,u-1,devs\n")
	write(policy, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: None\n  nonResourceURLs: [/readyz]\n- level: Metadata\n")
	url, kubeconfig := startArgs(t, []string{"--plain-http=false", "--token-auth-file=" + tokens,
		"--audit-log-path=" + auditLog, "--audit-policy-file=" + policy}, testGroup)
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("serving on %s, want https", url)
	}

	// kubectl as the admin of the kubeconfig.
	out := runKubectl(t, kubeconfig, "get", "--raw", "/apis/test.apigen.dev/v1/namespaces/default/widgets")
	if !strings.Contains(out, `"kind":"WidgetList"`) {
		t.Errorf("admin list: %s", out)
	}
	// kubectl as bob, with the same CA and his token (no client certificate, which would win):
	// 403 in kube-apiserver's words.
	bob := filepath.Join(dir, "bob.kubeconfig")
	write(bob, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \""+url+"\", certificate-authority: "+
		filepath.Join(filepath.Dir(kubeconfig), "pki", "ca.crt")+"}\nusers:\n- name: bob\n  user: {token: bob-token}\n"+
		"contexts:\n- name: bob\n  context: {cluster: c, user: bob}\ncurrent-context: bob\n")
	cmd := exec.Command(kubectl, "--kubeconfig", bob, "get", "--raw", "/apis/test.apigen.dev/v1/namespaces/default/widgets")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	combined, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(combined), `widgets.test.apigen.dev is forbidden: User "bob" cannot list resource "widgets" in API group "test.apigen.dev" in the namespace "default"`) {
		t.Errorf("kubectl as bob: %v\n%s", err, combined)
	}

	// Plain HTTPS clients trusting the CA in the data directory.
	caPEM, err := os.ReadFile(filepath.Join(filepath.Dir(kubeconfig), "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, tc := range []struct {
		token, path string
		code        int
		message     string
	}{
		{"", "/healthz", 200, ""},
		{"", "/readyz/etcd", 401, "Unauthorized"},
		{"", "/version", 200, ""},
		{"", "/apis", 401, "Unauthorized"},
		{"", "/metrics", 401, "Unauthorized"},
		{"wrong", "/healthz", 401, "Unauthorized"},
		{"bob-token", "/version", 200, ""},
		{"bob-token", "/apis", 403, `forbidden: User "bob" cannot get path "/apis"`},
	} {
		req, _ := http.NewRequest(http.MethodGet, url+tc.path, nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var status metav1.Status
		_ = json.Unmarshal(body, &status)
		if resp.StatusCode != tc.code || (tc.message != "" && status.Message != tc.message) {
			t.Errorf("%q GET %s: %d %s, want %d %q", tc.token, tc.path, resp.StatusCode, body, tc.code, tc.message)
		}
	}

	// The audit log holds a Metadata event for the admin's list, and none for /readyz.
	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	var sawAdminList bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var e audit.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line: %v: %s", err, sc.Bytes())
		}
		if e.RequestURI == "/readyz" {
			t.Errorf("/readyz audited despite level None: %s", sc.Bytes())
		}
		if e.User.Username == "apigen-admin" && e.Verb == "list" && e.ObjectRef != nil && e.ObjectRef.Resource == "widgets" &&
			e.Stage == audit.StageResponseComplete && e.ResponseStatus.Code == 200 {
			sawAdminList = true
		}
	}
	if !sawAdminList {
		t.Errorf("no audit event for the admin's list in:\n%s", data)
	}
}
