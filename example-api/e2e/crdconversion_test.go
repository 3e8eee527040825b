package e2e

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion/conversiontest"
)

// gadgetsV2 is the resource of the Gadget CRD in its version v2 (v1 is the storage version).
var gadgetsV2 = schema.GroupVersionResource{Group: "conv.example.com", Version: "v2", Resource: "gadgets"}

// gadgetCRD is the two-version Gadget CRD converting through the webhook at url, trusting
// caBundle (base64 PEM).
func gadgetCRD(url, caBundle string) string {
	version := func(name string, storage bool, field string) string {
		s := "false"
		if storage {
			s = "true"
		}
		return `
    - name: ` + name + `
      served: true
      storage: ` + s + `
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                ` + field + `: {type: integer}`
	}
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.conv.example.com
spec:
  group: conv.example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        url: ` + url + `/convert
        caBundle: ` + caBundle + `
  versions:` + version("v1", true, "size") + version("v2", false, "length") + "\n"
}

// TestCustomResourceConversionWebhook serves a two-version CRD whose conversion webhook is
// controller-runtime's handler as kubebuilder scaffolds it: kubectl creates in v1 and reads
// in v2, server-side applies in v2 and reads in v1; client-go lists and watches in v2; with
// the webhook down kubectl shows kube's "conversion webhook for ... failed" error.
func TestCustomResourceConversionWebhook(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	hook := httptest.NewTLSServer(conversiontest.Handler("conv.example.com", "Gadget"))
	t.Cleanup(hook.Close)
	caBundle := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))

	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "gadgets.yaml", gadgetCRD(hook.URL, caBundle)))
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/gadgets.conv.example.com")
	waitForAPIResource(t, s, "conv.example.com", regexp.MustCompile(`(?m)^gadgets\s+conv\.example\.com/v2\s+true\s+Gadget$`))

	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "a.yaml", "apiVersion: conv.example.com/v1\nkind: Gadget\nmetadata: {name: a, namespace: default}\nspec: {size: 3}\n"))
	if got := s.mustKubectl(t, "get", "gadgets.v2.conv.example.com", "a", "-o", "jsonpath={.apiVersion} {.spec}"); got != `conv.example.com/v2 {"length":3}` {
		t.Errorf("a read in v2: %q", got)
	}
	s.mustKubectl(t, "apply", "--server-side", "--field-manager=e2e", "-f",
		writeCRDManifest(t, "b.yaml", "apiVersion: conv.example.com/v2\nkind: Gadget\nmetadata: {name: b, namespace: default}\nspec: {length: 5}\n"))
	if got := s.mustKubectl(t, "get", "gadgets.v1.conv.example.com", "b", "-o", "jsonpath={.apiVersion} {.spec}"); got != `conv.example.com/v1 {"size":5}` {
		t.Errorf("b applied in v2, read in v1: %q", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	gadgets := s.dynamic.Resource(gadgetsV2).Namespace("default")
	list, err := gadgets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 2 || list.Items[0].GetAPIVersion() != "conv.example.com/v2" || list.Items[1].Object["spec"].(map[string]any)["length"] != int64(5) {
		t.Fatalf("client-go list in v2: %v %v", err, list)
	}
	w, err := gadgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "c.yaml", "apiVersion: conv.example.com/v1\nkind: Gadget\nmetadata: {name: c, namespace: default}\nspec: {size: 7}\n"))
	select {
	case ev := <-w.ResultChan():
		if u, ok := ev.Object.(interface{ UnstructuredContent() map[string]any }); !ok || u.UnstructuredContent()["apiVersion"] != "conv.example.com/v2" ||
			u.UnstructuredContent()["spec"].(map[string]any)["length"] != int64(7) {
			t.Errorf("watch event in v2: %s %#v", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event")
	}

	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "d.yaml", "apiVersion: conv.example.com/v1\nkind: Gadget\nmetadata: {name: d, namespace: default}\nspec: {size: 1}\n"))
	hook.Close()
	out, err := s.kubectl(t, "get", "gadgets.v2.conv.example.com", "d")
	if err == nil || !strings.Contains(out, `Error from server: conversion webhook for conv.example.com/v1, Kind=Gadget failed: Post "`+hook.URL+`/convert?timeout=30s"`) {
		t.Errorf("kubectl get with the webhook down: %v\n%s", err, out)
	}
}
