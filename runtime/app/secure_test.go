package app

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/certs"
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
	// Ready (every post-start hook returned), the server passes every check the built-in
	// table declares.
	readyz := runKubectl(t, kubeconfig, "get", "--raw", "/readyz?verbose")
	for _, check := range tableChecks() {
		if !strings.Contains(readyz, "[+]"+check+" ok\n") {
			t.Errorf("/readyz?verbose lacks the built-in table's check %s:\n%s", check, readyz)
		}
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

	// The bootstrap policy is in the served RBAC API; the admin grants bob a namespaced Role,
	// after which (once the RBAC watches deliver the writes) bob may do what it grants, and only
	// that, in its namespace only.
	if out := runKubectl(t, kubeconfig, "get", "clusterrolebinding", "cluster-admin", "-o", "jsonpath={.roleRef.name} {.subjects[0].name}"); out != "cluster-admin system:masters" {
		t.Errorf("bootstrap cluster-admin binding: %q", out)
	}
	// kubectl create role and rolebinding send protobuf, as kubectl's typed clients do for
	// built-in groups.
	runKubectl(t, kubeconfig, "create", "role", "widget-reader", "-n", "default", "--verb=get,list", "--resource=widgets.test.apigen.dev")
	runKubectl(t, kubeconfig, "create", "rolebinding", "bob-reads", "-n", "default", "--role=widget-reader", "--user=bob")
	asBob := func(args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", bob}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	var listOut string
	for i := 0; ; i++ {
		if listOut, err = asBob("get", "widgets.test.apigen.dev", "-n", "default"); err == nil {
			break
		}
		if i == 50 {
			t.Fatalf("bob cannot list widgets after the binding: %v\n%s", err, listOut)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, args := range [][]string{
		{"delete", "widgets.test.apigen.dev", "some-widget", "-n", "default"},
		{"get", "widgets.test.apigen.dev", "-n", "kube-system"},
		{"get", "roles", "-n", "default"},
	} {
		out, err := asBob(args...)
		if err == nil || !strings.Contains(out, `is forbidden: User "bob" cannot`) {
			t.Errorf("bob %v: %v\n%s", args, err, out)
		}
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
		{"bob-token", "/apis", 200, ""}, // system:discovery
		{"bob-token", "/metrics", 403, `forbidden: User "bob" cannot get path "/metrics"`},
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

// TestRunAggregatedMode runs the server as an aggregated API server behind a front proxy, as
// kube-apiserver's aggregator reaches one: the test plays the proxy (a client certificate
// signed by --requestheader-client-ca-file with an allowed CommonName, the user in
// X-Remote-User and X-Remote-Group) and serves the SubjectAccessReview webhook that,
// after RBAC, decides for users RBAC has no opinion on.
func TestRunAggregatedMode(t *testing.T) {
	dir := t.TempDir()
	proxy := selfSigned(t, dir, "front-proxy")
	proxyCert, err := tls.LoadX509KeyPair(proxy.CertFile(certs.AdminName), proxy.KeyFile(certs.AdminName))
	if err != nil {
		t.Fatal(err)
	}
	sar := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review authzv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if ra := review.Spec.ResourceAttributes; review.Spec.User == "frank" && ra != nil && ra.Resource == "widgets" {
			if ra.Verb == "get" || ra.Verb == "list" {
				review.Status.Allowed = true
			} else {
				review.Status.Denied, review.Status.Reason = true, "frank may only read widgets"
			}
		}
		_ = json.NewEncoder(w).Encode(&review)
	}))
	t.Cleanup(sar.Close)
	webhookConfig := filepath.Join(dir, "sar.kubeconfig")
	sarCA := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: sar.Certificate().Raw}))
	if err := os.WriteFile(webhookConfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: sar\n  cluster: {server: \""+sar.URL+
		"\", certificate-authority-data: "+sarCA+"}\ncontexts:\n- name: sar\n  context: {cluster: sar, user: apiserver}\n"+
		"users:\n- name: apiserver\n  user: {token: x}\ncurrent-context: sar\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, kubeconfig := startArgs(t, []string{"--plain-http=false",
		"--requestheader-client-ca-file=" + proxy.CertFile(certs.CAName), "--requestheader-allowed-names=" + certs.AdminUser,
		"--authorization-mode=RBAC,Webhook", "--authorization-webhook-config-file=" + webhookConfig}, testGroup)

	serverCA, err := os.ReadFile(filepath.Join(filepath.Dir(kubeconfig), "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(serverCA)
	asProxy := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{proxyCert}}}}
	notProxy := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	const widgets = "/apis/test.apigen.dev/v1/namespaces/default/widgets"
	for _, tc := range []struct {
		name   string
		client *http.Client
		method string
		groups []string
		code   int
		msg    string
	}{
		{"webhook allows frank to list", asProxy, "GET", []string{"team"}, 200, ""},
		{"webhook denies frank to delete, with its reason", asProxy, "DELETE", []string{"team"}, 403,
			`widgets.test.apigen.dev is forbidden: User "frank" cannot deletecollection resource "widgets" in API group "test.apigen.dev" in the namespace "default": frank may only read widgets`},
		{"RBAC, asked first, allows system:masters", asProxy, "DELETE", []string{"system:masters"}, 200, ""},
		{"the headers without the proxy certificate are not trusted", notProxy, "GET", []string{"system:masters"}, 401, "Unauthorized"},
	} {
		req, _ := http.NewRequest(tc.method, url+widgets, nil)
		req.Header.Set("X-Remote-User", "frank")
		for _, g := range tc.groups {
			req.Header.Add("X-Remote-Group", g)
		}
		resp, err := tc.client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var status metav1.Status
		_ = json.Unmarshal(body, &status)
		if resp.StatusCode != tc.code || (tc.msg != "" && status.Message != tc.msg) {
			t.Errorf("%s: %d %s, want %d %q", tc.name, resp.StatusCode, body, tc.code, tc.msg)
		}
	}
}
