package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dbWebhook is a test HTTPS admission webhook on loopback for Databases: /validate refuses
// mysql databases; /mutate labels every database and, for parameters.size=huge, sets
// spec.replicas to 12 (which the Database's validation forbids). It records the dryRun flag
// of every review.
type dbWebhook struct {
	*httptest.Server
	mu     sync.Mutex
	dryRun []bool
}

func newDBWebhook(t *testing.T) *dbWebhook {
	t.Helper()
	w := &dbWebhook{}
	w.Server = httptest.NewTLSServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.Close)
	return w
}

func (w *dbWebhook) serve(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(rw, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	req := review.Request
	w.mu.Lock()
	w.dryRun = append(w.dryRun, req.DryRun != nil && *req.DryRun)
	w.mu.Unlock()
	var db struct {
		APIVersion string `json:"apiVersion"`
		Metadata   struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Engine     string            `json:"engine"`
			Parameters map[string]string `json:"parameters"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(req.Object.Raw, &db)
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	switch r.URL.Path {
	case "/validate":
		if db.Spec.Engine == "mysql" {
			resp.Allowed = false
			resp.Result = &metav1.Status{Code: http.StatusForbidden, Message: fmt.Sprintf("mysql is not allowed here (seen as %s)", db.APIVersion)}
		}
	case "/guard":
		if req.Operation == admissionv1.Delete && req.Name == "orders" {
			resp.Allowed = false
			resp.Result = &metav1.Status{Message: "orders is kept"}
		}
	case "/mutate":
		var ops []string
		if db.Metadata.Labels == nil {
			ops = append(ops, `{"op":"add","path":"/metadata/labels","value":{}}`)
		}
		ops = append(ops, `{"op":"add","path":"/metadata/labels/webhook.example.com~1mutated","value":"true"}`)
		if db.Spec.Parameters["size"] == "huge" {
			ops = append(ops, `{"op":"add","path":"/spec/replicas","value":12}`)
		}
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = []byte("["+strings.Join(ops, ",")+"]"), &pt
		resp.Warnings = []string{"labelled by the test webhook"}
	}
	out, _ := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	rw.Header().Set("Content-Type", "application/json")
	_, _ = rw.Write(out)
}

// caBundle is the base64 of the PEM of the webhook's certificate, as a manifest's caBundle.
func (w *dbWebhook) caBundle() string {
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.Certificate().Raw}))
}

// sawDryRun reports whether a review with dryRun true arrived.
func (w *dbWebhook) sawDryRun() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range w.dryRun {
		if d {
			return true
		}
	}
	return false
}

// webhookConfig is a webhook configuration manifest for Databases (v1 rules, CREATE and
// UPDATE) calling url.
func webhookConfig(kind, name, url, caBundle, extra string) string {
	return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata:
  name: %s
webhooks:
- name: %s.db.example.com
  clientConfig:
    url: %s
    caBundle: %s
  rules:
  - operations: [CREATE, UPDATE]
    apiGroups: [db.example.com]
    apiVersions: [v1]
    resources: [databases]
  admissionReviewVersions: [v1]
  sideEffects: NoneOnDryRun
%s`, kind, name, name, url, caBundle, extra)
}

// createDB creates a Database with kubectl and returns kubectl's output and error.
func createDB(t *testing.T, s *apiServer, name, engine, size string, flags ...string) (string, error) {
	t.Helper()
	body := fmt.Sprintf("apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: %s\n  namespace: default\nspec:\n  engine: %s\n  parameters:\n    size: %q\n", name, engine, size)
	return s.kubectl(t, append([]string{"create", "-f", writeCRDManifest(t, name+".yaml", body)}, flags...)...)
}

// untilRefused retries create until it fails with want in its output (a new configuration
// takes effect when the server's watch delivers it), failing after 10s.
func untilRefused(t *testing.T, create func() (string, error), want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := create()
		if err != nil && strings.Contains(out, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not refused with %q within 10s: %v\n%s", want, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAdmissionWebhooks drives admission webhooks through kubectl and client-go against the
// example server (admission webhooks): a validating webhook refusing a
// Database by its spec (the user sees its message, also for a v1alpha1 request matched by
// equivalence), a mutating webhook whose patch is applied and then validated, one refusing a
// delete, failurePolicy
// Ignore and Fail with the webhook down, and a dry run reaching a NoneOnDryRun webhook while
// a webhook with side effects cannot be configured.
func TestAdmissionWebhooks(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	hook := newDBWebhook(t)
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "validate.yaml",
		webhookConfig("ValidatingWebhookConfiguration", "deny", hook.URL+"/validate", hook.caBundle(), "")))
	untilRefused(t, func() (string, error) { return createDB(t, s, "legacy", "mysql", "small") },
		`admission webhook "deny.db.example.com" denied the request: mysql is not allowed here (seen as db.example.com/v1)`)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.dynamic.Resource(databasesV1alpha1).Namespace("default").Create(ctx,
		newDatabase("db.example.com/v1alpha1", "alpha", map[string]any{"engine": "mysql", "sizeGiB": int64(5)}), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "mysql is not allowed here (seen as db.example.com/v1)") {
		t.Errorf("client-go, v1alpha1 (matchPolicy Equivalent sends v1): %v", err)
	}
	if out, err := createDB(t, s, "orders", "postgres", "small"); err != nil {
		t.Fatalf("a postgres database: %v\n%s", err, out)
	}

	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "mutate.yaml",
		webhookConfig("MutatingWebhookConfiguration", "label", hook.URL+"/mutate", hook.caBundle(), "")))
	untilRefused(t, func() (string, error) { return createDB(t, s, "huge", "postgres", "huge") },
		`The Database "huge" is invalid: spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 9`)
	out := s.mustKubectl(t, "create", "-f", writeCRDManifest(t, "labelled.yaml",
		"apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: labelled\n  namespace: default\nspec:\n  engine: postgres\n"))
	if !strings.Contains(out, "Warning: labelled by the test webhook") {
		t.Errorf("the webhook's warning did not reach kubectl:\n%s", out)
	}
	if got := s.mustKubectl(t, "get", "database", "labelled", "-o", `jsonpath={.metadata.labels.webhook\.example\.com/mutated}`); got != "true" {
		t.Errorf("the mutating webhook's label = %q", got)
	}

	// Mutating webhooks see deletes too.
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "guard.yaml", strings.Replace(
		webhookConfig("MutatingWebhookConfiguration", "guard", hook.URL+"/guard", hook.caBundle(), ""), "[CREATE, UPDATE]", "[DELETE]", 1)))
	untilRefused(t, func() (string, error) { return s.kubectl(t, "delete", "database", "orders", "--dry-run=server") },
		`admission webhook "guard.db.example.com" denied the request: orders is kept`)
	s.mustKubectl(t, "delete", "mutatingwebhookconfiguration", "guard")

	if _, err := createDB(t, s, "dry", "postgres", "small", "--dry-run=server"); err != nil || !hook.sawDryRun() {
		t.Errorf("a dry run to NoneOnDryRun webhooks: %v, dryRun seen %v", err, hook.sawDryRun())
	}
	out, err = s.kubectl(t, "apply", "-f", writeCRDManifest(t, "some.yaml", strings.Replace(
		webhookConfig("ValidatingWebhookConfiguration", "effects", hook.URL+"/validate", hook.caBundle(), ""), "sideEffects: NoneOnDryRun", "sideEffects: Some", 1)))
	if err == nil || !strings.Contains(out, `webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`) {
		t.Errorf("a webhook with side effects: %v\n%s", err, out)
	}

	s.mustKubectl(t, "delete", "validatingwebhookconfiguration", "deny")
	s.mustKubectl(t, "delete", "mutatingwebhookconfiguration", "label")
	down := hook.URL + "/validate"
	hook.Close()
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "ignore.yaml",
		webhookConfig("ValidatingWebhookConfiguration", "ignore", down, hook.caBundle(), "  failurePolicy: Ignore\n")))
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "fail.yaml",
		webhookConfig("ValidatingWebhookConfiguration", "fail", down, hook.caBundle(), "  failurePolicy: Fail\n")))
	untilRefused(t, func() (string, error) { return createDB(t, s, "down", "postgres", "small") },
		`Internal error occurred: failed calling webhook "fail.db.example.com": failed to call webhook: Post "`+down+`?timeout=10s": dial tcp`)
	s.mustKubectl(t, "delete", "validatingwebhookconfiguration", "fail")
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := createDB(t, s, "ignored", "postgres", "small")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("failurePolicy Ignore with the webhook down did not admit within 10s: %v\n%s", err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
