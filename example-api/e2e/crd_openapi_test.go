package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// openAPIClient GETs paths of s with its credentials.
type openAPIClient struct {
	t    *testing.T
	base string
	http *http.Client
}

func newOpenAPIClient(t *testing.T, s *apiServer) *openAPIClient {
	t.Helper()
	c, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	return &openAPIClient{t: t, base: strings.TrimSuffix(s.config.Host, "/"), http: c}
}

// get returns the body and ETag of path.
func (c *openAPIClient) get(path string) (string, string) {
	c.t.Helper()
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	return string(body), resp.Header.Get("ETag")
}

// v3URL returns the serverRelativeURL /openapi/v3 lists for key ("apis/g/v"), "" when none.
func (c *openAPIClient) v3URL(key string) string {
	c.t.Helper()
	body, _ := c.get("/openapi/v3")
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &index); err != nil {
		c.t.Fatal(err)
	}
	return index.Paths[key].ServerRelativeURL
}

// within polls cond every 50ms until it holds, failing after limit.
func within(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCustomResourceOpenAPI follows a CRD's served version in /openapi/v2 and
// /openapi/v3/apis/stable.example.com/v1: published within a second of Established (with the
// schema's fields and the kind's group-version-kind), changed when the CRD's schema changes
// (the v2 ETag and the v3 hash with it), and gone within a second of the CRD's deletion.
func TestCustomResourceOpenAPI(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	c := newOpenAPIClient(t, s)
	const key = "apis/stable.example.com/v1"
	_, v2Before := c.get("/openapi/v2")
	if c.v3URL(key) != "" {
		t.Fatal("the CronTab group is published before its CRD exists")
	}
	manifest, err := os.ReadFile(filepath.Join(crdsDir, "crontab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "apply", "-f", filepath.Join(crdsDir, "crontab.yaml"))
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	within(t, time.Second, "the CronTab group in /openapi/v3", func() bool { return c.v3URL(key) != "" })
	url1 := c.v3URL(key)
	doc, _ := c.get(url1)
	for _, want := range []string{`"com.example.stable.v1.CronTab"`, `"cronSpec"`, `"x-kubernetes-group-version-kind"`,
		`"/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("the v3 document lacks %s", want)
		}
	}
	v2, v2With := c.get("/openapi/v2")
	if !strings.Contains(v2, `"com.example.stable.v1.CronTab"`) || v2With == v2Before {
		t.Errorf("/openapi/v2 lacks the CronTab or kept its ETag %s", v2With)
	}

	changed := strings.Replace(string(manifest), "                image:\n                  type: string\n",
		"                image:\n                  type: string\n                timezone:\n                  type: string\n", 1)
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "crontab.yaml", changed))
	within(t, 2*time.Second, "the changed schema in /openapi/v3", func() bool { return c.v3URL(key) != url1 })
	if doc, _ := c.get(c.v3URL(key)); !strings.Contains(doc, `"timezone"`) {
		t.Error("the v3 document lacks the CRD's new field")
	}
	if v2, etag := c.get("/openapi/v2"); !strings.Contains(v2, `"timezone"`) || etag == v2With {
		t.Errorf("/openapi/v2 lacks the new field or kept its ETag %s", etag)
	}

	s.mustKubectl(t, "delete", "crd", "crontabs.stable.example.com")
	within(t, 5*time.Second, "the CronTab group gone from /openapi/v3", func() bool { return c.v3URL(key) == "" })
	if v2, _ := c.get("/openapi/v2"); strings.Contains(v2, `"com.example.stable.v1.CronTab"`) {
		t.Error("/openapi/v2 still has the CronTab after the CRD's deletion")
	}
}
