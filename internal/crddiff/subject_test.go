package crddiff

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/apigen-dev/apigen/runtime/app"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// subject is apigen's side: one in-process server (runtime/server, the handler chain of a
// generated server without authentication) serving every group of the kinds under test on
// one embedded etcd. Requests go to its http.Handler directly: the handler chain, routing,
// decoding, defaulting, conversion and the registry's create are the ones a client reaches
// over the network; a socket would add only transport.
type subject struct {
	handler http.Handler
}

// startSubject builds the groups on one server over one embedded etcd (etcdtest.Run, ended
// in t.Cleanup), each group with a scheme of its own as app.Main gives them, and prepares it
// (PrepareRun), so that it serves its OpenAPI documents.
func startSubject(t testing.TB, groups ...app.GroupBuilder) *subject {
	t.Helper()
	client, _ := etcdtest.Run(t)
	srv := server.New(server.Config{Name: "crddiff-apiserver"}, nil)
	for _, build := range groups {
		info, err := build(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
		if err != nil {
			t.Fatalf("cannot build a group: %v", err)
		}
		if err := srv.InstallAPIGroups(info); err != nil {
			t.Fatalf("cannot install the group %s: %v", info.Group, err)
		}
	}
	// PrepareRun builds and serves the OpenAPI documents (/openapi/v2, /openapi/v3), which
	// the published-schema tests read (published_test.go).
	if _, err := srv.PrepareRun(); err != nil {
		t.Fatalf("cannot prepare the server: %v", err)
	}
	return &subject{handler: srv.Handler()}
}

// create POSTs body as JSON to path (a collection, e.g.
// /apis/db.example.com/v1/namespaces/default/databases) with dryRun=All, so that nothing is
// stored and every input may reuse a name, and fieldValidation=Strict, kubectl's default,
// and returns the answer.
func (s *subject) create(path string, body []byte) outcome {
	req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, path+"?dryRun=All&fieldValidation=Strict", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code == http.StatusCreated {
		var obj map[string]any
		if err := utiljson.Unmarshal(rec.Body.Bytes(), &obj); err != nil {
			return outcome{code: int32(rec.Code), message: "cannot read the created object: " + err.Error()}
		}
		return accepted(obj)
	}
	var status metav1.Status
	if err := utiljson.Unmarshal(rec.Body.Bytes(), &status); err != nil || status.Kind != "Status" {
		return outcome{code: int32(rec.Code), message: "not a Status: " + rec.Body.String()}
	}
	return fromStatus(status)
}
