package app

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/runtime/flowcontrol"
)

// floodConfig is a tenant's priority level and FlowSchema: user flooder's requests get one
// nominal share (3 of the default 600 seats) and one queue of 2.
const floodConfig = `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: flood
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 1
    limitResponse:
      type: Queue
      queuing:
        queues: 1
        handSize: 1
        queueLengthLimit: 2
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: flood
spec:
  priorityLevelConfiguration:
    name: flood
  matchingPrecedence: 500
  distinguisherMethod:
    type: ByUser
  rules:
  - subjects:
    - kind: User
      user:
        name: flooder
    resourceRules:
    - verbs: ["*"]
      apiGroups: ["*"]
      resources: ["*"]
      clusterScope: true
      namespaces: ["*"]
`

// apfClient returns an HTTP client with the admin's credentials of kubeconfig and a
// function doing a GET as user (impersonated) that returns the status and the PF headers.
func apfClient(t testing.TB, kubeconfig string) (base string, get func(user, path string) (int, string, string)) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Host, func(user, path string) (int, string, string) {
		req, err := http.NewRequest(http.MethodGet, cfg.Host+path, nil)
		if err != nil {
			t.Error(err)
			return 0, "", ""
		}
		req.Header.Set("Impersonate-User", user)
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return 0, "", ""
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get(flowcontrol.HeaderFlowSchemaUID), resp.Header.Get(flowcontrol.HeaderPriorityLevelUID)
	}
}

// TestPriorityAndFairness checks API Priority and Fairness end to end: kube's default
// FlowSchemas and priority levels are served and printed by kubectl; a tenant's FlowSchema
// and priority level created with kubectl apply apply through the watch; while user flooder
// floods lists, its requests beyond its 3 seats and queue of 2 get 429 with its schema's and
// level's UIDs in the X-Kubernetes-PF-* headers (and the rejection in
// apiserver_flowcontrol_rejected_requests_total), and user reader's gets all succeed; the
// tenant's FlowSchema is marked Dangling once its level is deleted; a deleted or changed
// mandatory FlowSchema is restored, a suggested one annotated autoupdate-spec=false kept.
func TestPriorityAndFairness(t *testing.T) {
	t.Parallel()
	_, kubeconfig := startArgs(t, []string{"--plain-http=false"})
	out := runKubectl(t, kubeconfig, "get", "flowschemas")
	for _, want := range []string{"PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "exempt", "catch-all",
		"global-default", "system-leader-election", "kube-system-service-accounts", "probes"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get flowschemas lacks %s:\n%s", want, out)
		}
	}
	out = runKubectl(t, kubeconfig, "get", "prioritylevelconfigurations")
	for _, want := range []string{"NOMINALCONCURRENCYSHARES", "QUEUELENGTHLIMIT", "exempt", "catch-all", "workload-low", "global-default", "leader-election"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get prioritylevelconfigurations lacks %s:\n%s", want, out)
		}
	}
	if out := runKubectl(t, kubeconfig, "get", "flowschema", "global-default", "-o", "jsonpath={.metadata.annotations}"); !strings.Contains(out, `"apf.kubernetes.io/autoupdate-spec":"true"`) {
		t.Errorf("global-default's annotations: %s", out)
	}

	runKubectl(t, kubeconfig, "create", "clusterrolebinding", "apf-test", "--clusterrole=cluster-admin", "--user=flooder", "--user=reader")
	manifest := filepath.Join(t.TempDir(), "flood.yaml")
	if err := os.WriteFile(manifest, []byte(floodConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	runKubectl(t, kubeconfig, "apply", "-f", manifest)
	fsUID := runKubectl(t, kubeconfig, "get", "flowschema", "flood", "-o", "jsonpath={.metadata.uid}")
	plUID := runKubectl(t, kubeconfig, "get", "prioritylevelconfiguration", "flood", "-o", "jsonpath={.metadata.uid}")
	_, get := apfClient(t, kubeconfig)
	waitUntil(t, 10*time.Second, "the flood FlowSchema classifying flooder", func() bool {
		code, fs, _ := get("flooder", "/api/v1/namespaces")
		return code == http.StatusOK && fs == fsUID
	})

	stop := make(chan struct{})
	var flooders sync.WaitGroup
	var ok, rejected atomic.Int64
	for range 40 {
		flooders.Add(1)
		go func() {
			defer flooders.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, fs, pl := get("flooder", "/api/v1/namespaces")
				switch {
				case code == http.StatusOK:
					ok.Add(1)
				case code == http.StatusTooManyRequests && fs == fsUID && pl == plUID:
					rejected.Add(1)
				default:
					t.Errorf("flooder: %d, schema %q, level %q; want 200, or 429 with %s and %s", code, fs, pl, fsUID, plUID)
					return
				}
			}
		}()
	}
	var readerSchemas = map[string]bool{}
	deadline := time.Now().Add(time.Second)
	gets := 0
	for ; time.Now().Before(deadline) || rejected.Load() == 0 && gets < 2000; gets++ {
		code, fs, pl := get("reader", "/api/v1/namespaces/default")
		if code != http.StatusOK || fs == "" || pl == "" || fs == fsUID {
			t.Errorf("reader during the flood: %d, schema %q, level %q", code, fs, pl)
			break
		}
		readerSchemas[fs] = true
	}
	close(stop)
	flooders.Wait()
	t.Logf("flooder: %d served, %d rejected; reader: %d gets served", ok.Load(), rejected.Load(), gets)
	if rejected.Load() == 0 || ok.Load() == 0 {
		t.Errorf("flooder: %d served, %d rejected; want both", ok.Load(), rejected.Load())
	}
	if len(readerSchemas) != 1 {
		t.Errorf("reader classified by %d schemas", len(readerSchemas))
	}
	metricsOut := runKubectl(t, kubeconfig, "get", "--raw", "/metrics")
	for _, want := range []string{
		`apiserver_flowcontrol_rejected_requests_total{flow_schema="flood",priority_level="flood",reason="queue-full"}`,
		`apiserver_flowcontrol_dispatched_requests_total{flow_schema="flood",priority_level="flood"}`,
		`apiserver_flowcontrol_nominal_limit_seats{priority_level="flood"} 3`,
		`apiserver_flowcontrol_request_wait_duration_seconds_bucket{execute="true",flow_schema="flood",priority_level="flood"`,
	} {
		if !strings.Contains(metricsOut, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// The Dangling condition, as kube's configuration controller writes it (kubectl's
	// MISSINGPL column).
	waitUntil(t, 10*time.Second, "flood's Dangling condition False", func() bool {
		return runKubectl(t, kubeconfig, "get", "flowschema", "flood", "-o", `jsonpath={.status.conditions[?(@.type=="Dangling")].status}`) == "False"
	})
	runKubectl(t, kubeconfig, "delete", "prioritylevelconfiguration", "flood")
	waitUntil(t, 10*time.Second, "flood's Dangling condition True", func() bool {
		out := runKubectl(t, kubeconfig, "get", "flowschema", "flood")
		return strings.Contains(out, "MISSINGPL") && strings.Contains(strings.TrimSpace(out), " True")
	})

	// A mandatory object deleted or changed is restored, as kube's bootstrap controller does;
	// a suggested one annotated autoupdate-spec=false is left as its operator made it.
	runKubectl(t, kubeconfig, "delete", "flowschema", "catch-all")
	waitUntil(t, 10*time.Second, "the catch-all FlowSchema restored", func() bool {
		return strings.Contains(runKubectl(t, kubeconfig, "get", "flowschemas", "-o", "name"), "flowschema.flowcontrol.apiserver.k8s.io/catch-all")
	})
	runKubectl(t, kubeconfig, "annotate", "flowschema", "global-default", "--overwrite", "apf.kubernetes.io/autoupdate-spec=false")
	runKubectl(t, kubeconfig, "patch", "flowschema", "global-default", "--type=merge", "-p", `{"spec":{"matchingPrecedence":9800}}`)
	runKubectl(t, kubeconfig, "patch", "flowschema", "catch-all", "--type=merge", "-p", `{"spec":{"matchingPrecedence":9700}}`)
	waitUntil(t, 10*time.Second, "the catch-all FlowSchema's spec restored", func() bool {
		return runKubectl(t, kubeconfig, "get", "flowschema", "catch-all", "-o", "jsonpath={.spec.matchingPrecedence}") == "10000"
	})
	if got := runKubectl(t, kubeconfig, "get", "flowschema", "global-default", "-o", "jsonpath={.spec.matchingPrecedence}"); got != "9800" {
		t.Errorf("global-default annotated autoupdate-spec=false: matchingPrecedence %s, want the operator's 9800", got)
	}
}
