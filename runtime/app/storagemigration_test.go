package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/internal/freeport"
	"github.com/apigen-dev/apigen/runtime/discovery"
	"github.com/apigen-dev/apigen/runtime/storageversionmigrator"
)

// gizmoCRD is a CRD of crd.example.com serving v1alpha1 and v1, storing the version named.
func gizmoCRD(storage, resourceVersion string) string {
	version := func(name string) string {
		return `{"name":"` + name + `","served":true,"storage":` + strconv.FormatBool(name == storage) +
			`,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}`
	}
	rv := ""
	if resourceVersion != "" {
		rv = `,"resourceVersion":"` + resourceVersion + `"`
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gizmos.crd.example.com"` + rv + `},
"spec":{"group":"crd.example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},
"versions":[` + version("v1") + `,` + version("v1alpha1") + `]}}`
}

// TestStorageVersionMigrator checks storageVersionHash in discovery (kube-apiserver's values
// for the built-ins; none on subresources; a CRD's follows its storage version) and the
// storage version migrator over a custom resource on the server's etcd: a migration
// rewrites the objects into the new storage version (read from etcd), starting from the page
// its progress annotation names (the objects before it stay as they are: it resumed rather
// than started over); a migration of a resource the server does not serve fails; spec is
// immutable.
func TestStorageVersionMigrator(t *testing.T) {
	t.Parallel()
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(freeport.Port(t))
	url, _ := startArgs(t, []string{"--plain-http", "--embedded-etcd-client-url=" + etcdURL, "--storage-version-migration-page-size=2"})

	for path, want := range map[string]map[string]string{
		"/api/v1": {"namespaces": "Q3oi5N2YM8M=", "configmaps": "qFsyl6wFWjQ=", "events": "r2yiGXH7wu8=",
			"namespaces/status": "", "namespaces/finalize": ""},
		"/apis/events.k8s.io/v1":           {"events": "r2yiGXH7wu8="}, // stored as core v1 Events, as kube's
		"/apis/coordination.k8s.io/v1":     {"leases": "gqkMMb/YqFM="},
		"/apis/storagemigration.k8s.io/v1": {"storageversionmigrations": discovery.StorageVersionHash("storagemigration.k8s.io", "v1", "StorageVersionMigration"), "storageversionmigrations/status": ""},
	} {
		got := storageVersionHashes(t, url+path)
		for resource, hash := range want {
			if h, ok := got[resource]; !ok || h != hash {
				t.Errorf("%s %s: storageVersionHash %q (listed: %v), want %q", path, resource, h, ok, hash)
			}
		}
	}

	crds := url + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if code, body := send(t, http.MethodPost, crds, gizmoCRD("v1alpha1", "")); code != http.StatusCreated {
		t.Fatalf("creating the CRD: %d %s", code, body)
	}
	waitFor(t, url+"/apis/crd.example.com/v1", http.StatusOK, 10*time.Second)
	waitForHash(t, url+"/apis/crd.example.com/v1", "gizmos", discovery.StorageVersionHash("crd.example.com", "v1alpha1", "Gizmo"))
	gizmos := url + "/apis/crd.example.com/v1alpha1/namespaces/default/gizmos"
	const n = 7
	for i := range n {
		if code, body := send(t, http.MethodPost, gizmos, fmt.Sprintf(`{"apiVersion":"crd.example.com/v1alpha1","kind":"Gizmo","metadata":{"name":"g%d"},"spec":{"i":%d}}`, i, i)); code != http.StatusCreated {
			t.Fatalf("creating gizmo g%d: %d %s", i, code, body)
		}
	}
	if stored := storedCustomResources(t, etcdURL); len(stored) != n || stored["g0"] != "crd.example.com/v1alpha1" {
		t.Fatalf("stored before the switch: %v, want %d as v1alpha1", stored, n)
	}

	// The switch: v1 is the storage version from now on.
	_, body := httpGet(t, crds+"/gizmos.crd.example.com")
	var crd metav1.PartialObjectMetadata
	if err := json.Unmarshal([]byte(body), &crd); err != nil {
		t.Fatal(err)
	}
	if code, body := send(t, http.MethodPut, crds+"/gizmos.crd.example.com", gizmoCRD("v1", crd.ResourceVersion)); code != http.StatusOK {
		t.Fatalf("switching the storage version: %d %s", code, body)
	}
	waitForHash(t, url+"/apis/crd.example.com/v1", "gizmos", discovery.StorageVersionHash("crd.example.com", "v1", "Gizmo"))

	// A migration that has done its first page (g0, g1) already: it goes on from the next.
	// (A continue token is of the list it came from: the migrator lists every namespace.)
	_, body = httpGet(t, url+"/apis/crd.example.com/v1/gizmos?limit=2")
	var page metav1.PartialObjectMetadataList
	if err := json.Unmarshal([]byte(body), &page); err != nil || page.Continue == "" {
		t.Fatalf("first page: %v %s", err, body)
	}
	svms := url + "/apis/storagemigration.k8s.io/v1/storageversionmigrations"
	if code, body := send(t, http.MethodPost, svms, `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration",
"metadata":{"name":"gizmos","annotations":{"`+storageversionmigrator.ContinueAnnotation+`":"`+page.Continue+`"}},
"spec":{"resource":{"group":"crd.example.com","resource":"gizmos"}}}`); code != http.StatusCreated {
		t.Fatalf("creating the migration: %d %s", code, body)
	}
	svm := waitForMigration(t, svms+"/gizmos")
	if svm.cond("Succeeded") != "True" || svm.cond("Running") != "False" || svm.Status.ResourceVersion == "" {
		t.Errorf("migration: %+v, want Succeeded, Running False and status.resourceVersion", svm.Status)
	}
	if svm.Metadata.Annotations[storageversionmigrator.ContinueAnnotation] != "" {
		t.Errorf("the progress annotation outlived the migration: %v", svm.Metadata.Annotations)
	}
	stored := storedCustomResources(t, etcdURL)
	for i := range n {
		want := "crd.example.com/v1"
		if i < 2 {
			want = "crd.example.com/v1alpha1" // in the page the migration had done before
		}
		if got := stored[fmt.Sprintf("g%d", i)]; got != want {
			t.Errorf("g%d stored as %q after the migration, want %q (stored: %v)", i, got, want, stored)
		}
	}

	// A saved token the list refuses (here: no token at all; likewise one whose revision is
	// compacted): the migration starts over, and rewrites g0 and g1 too.
	if code, body := send(t, http.MethodPost, svms, `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration",
"metadata":{"name":"gizmos-again","annotations":{"`+storageversionmigrator.ContinueAnnotation+`":"not-a-token"}},
"spec":{"resource":{"group":"crd.example.com","resource":"gizmos"}}}`); code != http.StatusCreated {
		t.Fatalf("creating the migration: %d %s", code, body)
	}
	if again := waitForMigration(t, svms+"/gizmos-again"); again.cond("Succeeded") != "True" {
		t.Errorf("migration from an unusable token: %+v, want Succeeded", again.Status)
	}
	if stored := storedCustomResources(t, etcdURL); stored["g0"] != "crd.example.com/v1" || stored["g1"] != "crd.example.com/v1" {
		t.Errorf("after a migration from an unusable token: stored %v, want every gizmo as v1", stored)
	}

	// A resource the server does not serve: Failed, with the reason.
	if code, body := send(t, http.MethodPost, svms, `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration",
"metadata":{"name":"nothing"},"spec":{"resource":{"group":"crd.example.com","resource":"nothings"}}}`); code != http.StatusCreated {
		t.Fatalf("creating the migration: %d %s", code, body)
	}
	failed := waitForMigration(t, svms+"/nothing")
	if failed.cond("Failed") != "True" || !strings.Contains(failed.message("Failed"), "nothings.crd.example.com does not exist") {
		t.Errorf("migration of an unserved resource: %+v, want Failed naming it", failed.Status)
	}
	// spec.resource is immutable, and required.
	req, err := http.NewRequest(http.MethodPatch, svms+"/nothing", strings.NewReader(`{"spec":{"resource":{"resource":"gizmos"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	patched, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if code := resp.StatusCode; code != http.StatusUnprocessableEntity || !strings.Contains(string(patched), "field is immutable") {
		t.Errorf("changing spec.resource: %d %s, want 422 field is immutable", code, patched)
	}
	code, body := send(t, http.MethodPost, svms, `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"empty"},"spec":{"resource":{}}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "spec.resource.resource") {
		t.Errorf("a migration without a resource: %d %s, want 422 on spec.resource.resource", code, body)
	}
}

// storageVersionHashes returns the storageVersionHash of every resource in the
// APIResourceList at url.
func storageVersionHashes(t *testing.T, url string) map[string]string {
	t.Helper()
	code, body := httpGet(t, url)
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(body), &list); code != http.StatusOK || err != nil {
		t.Fatalf("GET %s: %d %v %s", url, code, err, body)
	}
	out := map[string]string{}
	for _, r := range list.APIResources {
		out[r.Name] = r.StorageVersionHash
	}
	return out
}

// waitForHash waits up to 10 s for resource's storageVersionHash at url to be want.
func waitForHash(t *testing.T, url, resource, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := storageVersionHashes(t, url)[resource]
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: storageVersionHash %q, want %q", url, resource, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// svmStatus is what the test reads of a StorageVersionMigration.
type svmStatus struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Status   struct {
		Conditions      []metav1.Condition `json:"conditions"`
		ResourceVersion string             `json:"resourceVersion"`
	} `json:"status"`
}

// cond returns the status of the condition t, "" when absent.
func (s *svmStatus) cond(t string) string {
	for _, c := range s.Status.Conditions {
		if c.Type == t {
			return string(c.Status)
		}
	}
	return ""
}

// message returns the message of the condition t.
func (s *svmStatus) message(t string) string {
	for _, c := range s.Status.Conditions {
		if c.Type == t {
			return c.Message
		}
	}
	return ""
}

// waitForMigration polls the migration at url until it has finished (Succeeded or Failed),
// failing after 30 s.
func waitForMigration(t *testing.T, url string) *svmStatus {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, body := httpGet(t, url)
		var s svmStatus
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Fatal(err)
		}
		if s.cond("Succeeded") == "True" || s.cond("Failed") == "True" {
			return &s
		}
		if time.Now().After(deadline) {
			t.Fatalf("migration %s not finished after 30s: %s", url, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// storedCustomResources returns the apiVersion of each gizmo's stored bytes, by name.
func storedCustomResources(t *testing.T, etcdURL string) map[string]string {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	prefix := "/registry/crd.example.com/gizmos/default/"
	resp, err := c.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(kv.Value, &tm); err != nil {
			t.Fatalf("%s: %v", kv.Key, err)
		}
		out[strings.TrimPrefix(string(kv.Key), prefix)] = tm.APIVersion
	}
	return out
}

// TestStorageVersionOverrideFlags checks the flags' errors: a malformed override or page
// size (exit 2), and a start refused for an override naming a resource the server does not
// store or a version its group does not have.
func TestStorageVersionOverrideFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{args: []string{"--help"}, code: 0, want: "--storage-version-overrides"},
		{args: []string{"--storage-version-overrides=databases.db.example.com"}, code: 2, want: "write <resource>.<group>=<version>"},
		{args: []string{"--storage-version-migration-page-size=0"}, code: 2, want: "--storage-version-migration-page-size must be positive"},
		{args: []string{"--plain-http", "--secure-port=0", "--data-dir=" + t.TempDir(), "--storage-version-overrides=gizmos.example.com=v1,leases.coordination.k8s.io=v1"},
			code: 1, want: "--storage-version-overrides: the server stores no resource gizmos.example.com"},
		{args: []string{"--plain-http", "--secure-port=0", "--data-dir=" + t.TempDir(), "--storage-version-overrides=leases.coordination.k8s.io=v9"},
			code: 1, want: "storage version coordination.k8s.io/v9 is not registered"},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), "test-apiserver", tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
			t.Errorf("Run %v = %d, output %q; want %d containing %q", tc.args, code, stdout.String()+stderr.String(), tc.code, tc.want)
		}
	}
}
