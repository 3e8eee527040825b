package app

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// createOwned creates the object of kind at collection (a URL) named name, owned by the
// Widget owner of uid ownerUID when ownerUID is not empty, and returns its uid.
func createOwned(t *testing.T, collection, apiVersion, kind, name, ownerUID string) string {
	t.Helper()
	meta := map[string]any{"name": name}
	if ownerUID != "" {
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "test.apigen.dev/v1", "kind": "Widget", "name": "owner",
			"uid": ownerUID, "blockOwnerDeletion": true}}
	}
	body, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta})
	if err != nil {
		t.Fatal(err)
	}
	code, out := send(t, http.MethodPost, collection, string(body))
	if code != http.StatusCreated {
		t.Fatalf("create %s %s: %d %s", kind, name, code, out)
	}
	var created metav1.PartialObjectMetadata
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	return string(created.UID)
}

// TestRunGarbageCollector: Run starts the garbage collector (post-start hook
// start-garbage-collector, garbagecollector_* series): deleting a Widget deletes the Widget
// and the custom resource (of a CRD created while the server runs) it owns; a foreground
// delete answers 200 with the owner being deleted, which goes with its dependents.
func TestRunGarbageCollector(t *testing.T) {
	url, _ := start(t, testGroup)
	widgets := url + "/apis/test.apigen.dev/v1/namespaces/default/widgets"
	if code, body := send(t, http.MethodPost, url+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, body)
	}
	gadgets := url + "/apis/crd.example.com/v1/namespaces/default/gadgets"
	waitFor(t, gadgets, http.StatusOK, 30*time.Second)

	for _, policy := range []string{"Background", "Foreground"} {
		owner := createOwned(t, widgets, "test.apigen.dev/v1", "Widget", "owner", "")
		createOwned(t, widgets, "test.apigen.dev/v1", "Widget", "child", owner)
		createOwned(t, gadgets, "crd.example.com/v1", "Gadget", "child", owner)
		code, body := send(t, http.MethodDelete, widgets+"/owner", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"`+policy+`"}`)
		if code != http.StatusOK {
			t.Fatalf("%s delete: %d %s", policy, code, body)
		}
		if policy == "Foreground" && (!strings.Contains(body, `"deletionTimestamp"`) || !strings.Contains(body, `"foregroundDeletion"`)) {
			t.Errorf("foreground delete answered %s, want the owner with deletionTimestamp and the foregroundDeletion finalizer", body)
		}
		waitFor(t, widgets+"/child", http.StatusNotFound, 30*time.Second)
		waitFor(t, gadgets+"/child", http.StatusNotFound, 30*time.Second)
		waitFor(t, widgets+"/owner", http.StatusNotFound, 30*time.Second)
	}
	if _, readyz := httpGet(t, url+"/readyz?verbose"); !strings.Contains(readyz, "[+]poststarthook/"+GarbageCollectorHookName+" ok") {
		t.Errorf("/readyz?verbose lacks the garbage collector's hook:\n%s", readyz)
	}
	if _, m := httpGet(t, url+"/metrics"); !strings.Contains(m, "garbagecollector_controller_resources_sync_error_total 0") ||
		!strings.Contains(m, `workqueue_adds_total{name="garbage_collector_attempt_to_delete"}`) {
		t.Error("/metrics lacks the garbage collector's series")
	}
}

// TestRunGarbageCollectorDisabled: with --enable-garbage-collector=false nothing collects: a
// foreground delete leaves the owner waiting with its finalizer and the dependent in place.
func TestRunGarbageCollectorDisabled(t *testing.T) {
	url, _ := startArgs(t, []string{"--plain-http", "--enable-garbage-collector=false"}, testGroup)
	widgets := url + "/apis/test.apigen.dev/v1/namespaces/default/widgets"
	owner := createOwned(t, widgets, "test.apigen.dev/v1", "Widget", "owner", "")
	createOwned(t, widgets, "test.apigen.dev/v1", "Widget", "child", owner)
	if code, body := send(t, http.MethodDelete, widgets+"/owner", `{"propagationPolicy":"Foreground"}`); code != http.StatusOK {
		t.Fatalf("foreground delete: %d %s", code, body)
	}
	time.Sleep(time.Second) // a collector would have acted by now: give it the chance to be wrongly on
	if code, _ := httpGet(t, widgets+"/child"); code != http.StatusOK {
		t.Errorf("the dependent was deleted without a garbage collector: %d", code)
	}
	if code, body := httpGet(t, widgets+"/owner"); code != http.StatusOK || !strings.Contains(body, `"foregroundDeletion"`) {
		t.Errorf("owner: %d %s", code, body)
	}
	if _, readyz := httpGet(t, url+"/readyz?verbose"); strings.Contains(readyz, GarbageCollectorHookName) {
		t.Errorf("/readyz lists the garbage collector's hook although it is off:\n%s", readyz)
	}
}
