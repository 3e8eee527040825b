package auth

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/request"
)

// shortRecord is a line kube's token file format rejects: it has no comment syntax, so this
// is a record with one column.
const shortRecord = "# a comment?\n"

func TestParseTokenFile(t *testing.T) {
	file, err := ParseTokenFile(strings.NewReader(`t-admin,admin,uid-1,"system:masters,team-a"
t-bob, bob, uid-2
,nobody,uid-3
t-bob,robert,uid-4
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		token string
		want  *request.User
	}{
		{"t-admin", &request.User{Name: "admin", UID: "uid-1", Groups: []string{"system:masters", "team-a"}}},
		{"t-bob", &request.User{Name: "robert", UID: "uid-4"}}, // a later record replaces an earlier one
		{"", nil},
		{"t-admin2", nil},
	} {
		got, ok := file.AuthenticateToken(tc.token)
		if ok != (tc.want != nil) || !cmp.Equal(got, tc.want) {
			t.Errorf("token %q: got %+v %v, want %+v", tc.token, got, ok, tc.want)
		}
	}
	if _, err := ParseTokenFile(strings.NewReader(shortRecord)); err == nil || !strings.Contains(err.Error(), "record 1 has 1 columns; write at least 3") {
		t.Errorf("short record: %v", err)
	}
}

// newRequest returns a request with header h set to v (pairs).
func newRequest(h ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/apis", nil)
	for i := 0; i+1 < len(h); i += 2 {
		r.Header.Add(h[i], h[i+1])
	}
	return r
}

func TestBearerTokenUnionAnonymous(t *testing.T) {
	file, err := ParseTokenFile(strings.NewReader("secret,alice,u1,devs\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := FailOnError(WithAuthenticatedGroup(Union(BearerToken(file))), AnonymousAuthenticator())
	for _, tc := range []struct {
		name    string
		req     *http.Request
		want    *request.User
		wantErr string
	}{
		{"valid token", newRequest("Authorization", "Bearer secret"), &request.User{Name: "alice", UID: "u1", Groups: []string{"devs", request.AllAuthenticated}}, ""},
		{"scheme is case-insensitive", newRequest("Authorization", "bearer secret"), &request.User{Name: "alice", UID: "u1", Groups: []string{"devs", request.AllAuthenticated}}, ""},
		{"wrong token is refused, not anonymous", newRequest("Authorization", "Bearer nope"), nil, "invalid bearer token"},
		{"no credentials is anonymous", newRequest(), &request.User{Name: request.Anonymous, Groups: []string{request.AllUnauthenticated}}, ""},
		{"basic auth is not a bearer token", newRequest("Authorization", "Basic YTpi"), &request.User{Name: request.Anonymous, Groups: []string{request.AllUnauthenticated}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := a.AuthenticateRequest(tc.req)
			if tc.wantErr != "" {
				if ok || err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %+v %v %v, want error %q", got, ok, err, tc.wantErr)
				}
				return
			}
			if !ok || err != nil {
				t.Fatalf("got %v %v", ok, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			if tc.want.Name == "alice" && tc.req.Header.Get("Authorization") != "" {
				t.Error("the Authorization header was not removed after authentication")
			}
		})
	}
}

// tlsServer serves h over TLS on 127.0.0.1, asking for (not requiring) client certificates,
// and returns its URL and a client trusting it that presents clientCert (if any).
func tlsServer(t *testing.T, h http.Handler, clientCert *tls.Certificate) (string, *http.Client) {
	t.Helper()
	serverCA := newTestCA(t, "server-ca")
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{serverCA.issue(t, "server", nil, x509.ExtKeyUsageServerAuth, net.ParseIP("127.0.0.1"))},
		ClientAuth:   tls.RequestClientCert,
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cfg := &tls.Config{RootCAs: serverCA.pool}
	if clientCert != nil {
		cfg.Certificates = []tls.Certificate{*clientCert}
	}
	return srv.URL, &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}

// whoami serves the authenticated user as JSON through WithAuthentication(a).
func whoami(a Authenticator) http.Handler {
	return WithAuthentication(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := request.UserFrom(r.Context())
		_ = json.NewEncoder(w).Encode(u)
	}), a, nil, nil)
}

// get sends a GET with headers (pairs) and returns the status code and body.
func get(t *testing.T, c *http.Client, url string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestClientCertOverTLS(t *testing.T) {
	clientCA, otherCA := newTestCA(t, "client-ca"), newTestCA(t, "other-ca")
	good := clientCA.issue(t, "carol", []string{"ops", "system:masters"}, x509.ExtKeyUsageClientAuth)
	serverUsage := clientCA.issue(t, "mallory", nil, x509.ExtKeyUsageServerAuth)
	foreign := otherCA.issue(t, "eve", nil, x509.ExtKeyUsageClientAuth)
	a := ClientCert(clientCA.pool)

	url, c := tlsServer(t, whoami(a), &good)
	code, body := get(t, c, url)
	var u request.User
	if err := json.Unmarshal([]byte(body), &u); err != nil || code != http.StatusOK {
		t.Fatalf("good certificate: %d %s", code, body)
	}
	if diff := cmp.Diff(request.User{Name: "carol", Groups: []string{"ops", "system:masters"}}, u); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	for name, cert := range map[string]*tls.Certificate{"no certificate": nil, "another CA": &foreign, "server usage": &serverUsage} {
		url, c := tlsServer(t, whoami(a), cert)
		code, body := get(t, c, url)
		var status metav1.Status
		if err := json.Unmarshal([]byte(body), &status); err != nil || code != http.StatusUnauthorized ||
			status.Reason != metav1.StatusReasonUnauthorized || status.Message != "Unauthorized" {
			t.Errorf("%s: %d %s, want a 401 Unauthorized Status", name, code, body)
		}
	}
}

func TestRequestHeaderFrontProxy(t *testing.T) {
	proxyCA, clientCA := newTestCA(t, "front-proxy-ca"), newTestCA(t, "client-ca")
	proxy := proxyCA.issue(t, "front-proxy-client", nil, x509.ExtKeyUsageClientAuth)
	otherName := proxyCA.issue(t, "not-the-aggregator", nil, x509.ExtKeyUsageClientAuth)
	userCert := clientCA.issue(t, "dave", nil, x509.ExtKeyUsageClientAuth)
	cfg := RequestHeaderConfig{
		ClientCA:            proxyCA.pool,
		AllowedNames:        []string{"front-proxy-client"},
		UsernameHeaders:     []string{"X-Remote-User"},
		GroupHeaders:        []string{"X-Remote-Group"},
		ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
	}
	var leaked []string
	a := Union(RequestHeader(cfg), ClientCert(clientCA.pool))
	h := WithAuthentication(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k := range r.Header {
			if strings.HasPrefix(k, "X-Remote-") {
				leaked = append(leaked, k)
			}
		}
		u, _ := request.UserFrom(r.Context())
		_ = json.NewEncoder(w).Encode(u)
	}), a, nil, nil)
	headers := []string{"X-Remote-User", "frank", "X-Remote-Group", "g1", "X-Remote-Group", "g2", "X-Remote-Extra-Acme.com%2Fproject", "p1"}

	url, c := tlsServer(t, h, &proxy)
	code, body := get(t, c, url, headers...)
	var u request.User
	if err := json.Unmarshal([]byte(body), &u); err != nil || code != http.StatusOK {
		t.Fatalf("front proxy: %d %s", code, body)
	}
	want := request.User{Name: "frank", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"acme.com/project": {"p1"}}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	if len(leaked) > 0 {
		t.Errorf("identity headers passed on after authentication: %v", leaked)
	}

	// A proxy certificate with a CommonName not in the allowed list is refused.
	url, c = tlsServer(t, h, &otherName)
	if code, body := get(t, c, url, headers...); code != http.StatusUnauthorized {
		t.Errorf("unlisted proxy name: %d %s", code, body)
	}
	// A user's own certificate cannot assert another identity through the headers: the
	// request-header authenticator rejects it and, as kube-apiserver's union, the request is
	// the certificate's user, dave, not frank.
	url, c = tlsServer(t, h, &userCert)
	for _, hs := range [][]string{headers, nil} {
		if code, body := get(t, c, url, hs...); code != http.StatusOK || !strings.Contains(body, `"Name":"dave"`) {
			t.Errorf("user certificate (headers %v): %d %s, want dave", hs, code, body)
		}
	}
}

func TestAnonymousFor(t *testing.T) {
	a := FailOnError(BearerToken(&TokenFile{tokens: map[string]*request.User{}}), AnonymousFor("/healthz", "/readyz"))
	for path, want := range map[string]bool{"/healthz": true, "/readyz/etcd": false, "/readyzz": false, "/apis": false, "/": false} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		u, ok, err := a.AuthenticateRequest(r)
		if ok != want || err != nil || (ok && u.Name != request.Anonymous) {
			t.Errorf("%s: %+v %v %v, want anonymous %v", path, u, ok, err, want)
		}
	}
}
