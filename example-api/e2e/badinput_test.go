package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// badInput is one malformed request and the answer kube-apiserver gives it.
type badInput struct {
	name        string
	method      string
	path        string // relative to /apis/db.example.com/v1/namespaces/default
	contentType string
	body        string
	code        int
	reason      metav1.StatusReason
	// cause, when set, must be the field of one of the Status's causes.
	cause string
	// warning, when set, must be in the Warning header of a success.
	warning string
	// accept, when set, is the request's Accept header.
	accept string
}

// deepJSON nests depth objects where spec.replicas (an integer) is expected.
func deepJSON(depth int) string {
	return `{"apiVersion":"db.example.com/v1","kind":"Database","metadata":{"name":"deep"},"spec":{"engine":"postgres","replicas":` +
		strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + "}}"
}

// aliasBomb is a YAML document whose aliases expand exponentially ("billion laughs").
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: bomb\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("spec:\n  engine: postgres\n  parameters: *a9\n")
	return b.String()
}

func database(name, extraSpec string) string {
	return `{"apiVersion":"db.example.com/v1","kind":"Database","metadata":{"name":"` + name + `"},"spec":{"engine":"postgres"` + extraSpec + `}}`
}

// TestBadInput sends malformed and hostile requests (the bad-input suite): each gets
// the status code kube-apiserver gives it, as a metav1.Status; the server stays up; and every
// object stored before the suite is unchanged after it.
func TestBadInput(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	client, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	base := s.proc.URL + "/apis/db.example.com/v1/namespaces/default"
	send := func(method, path, contentType, body string, accept ...string) (*http.Response, []byte) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if len(accept) > 0 && accept[0] != "" {
			req.Header.Set("Accept", accept[0])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, data
	}
	// Objects stored before the suite.
	before := map[string][]byte{}
	for _, name := range []string{"keep-a", "keep-b", "keep-c"} {
		if resp, body := send("POST", "/databases", "application/json", database(name, `,"replicas":2`)); resp.StatusCode != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, resp.StatusCode, body)
		}
		_, body := send("GET", "/databases/"+name, "", "")
		before[name] = body
	}

	const js, yml = "application/json", "application/yaml"
	for _, tc := range append([]badInput{
		{name: "malformed JSON", method: "POST", path: "/databases", contentType: js, body: `{"apiVersion":"db.example.com/v1",`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "malformed YAML", method: "POST", path: "/databases", contentType: yml, body: "apiVersion: db.example.com/v1\nkind: [\n", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "YAML alias bomb", method: "POST", path: "/databases", contentType: yml, body: aliasBomb(), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "1000-deep nesting", method: "POST", path: "/databases", contentType: js, body: deepJSON(1000), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "body over 3 MiB", method: "POST", path: "/databases", contentType: js, body: database("huge", `,"version":"`+strings.Repeat("x", 3<<20)+`"`), code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "wrong apiVersion", method: "POST", path: "/databases", contentType: js, body: strings.Replace(database("v9", ""), "db.example.com/v1", "db.example.com/v9", 1), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "wrong kind", method: "POST", path: "/databases", contentType: js, body: strings.Replace(database("k", ""), `"Database"`, `"Backup"`, 1), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "name not DNS-1123", method: "POST", path: "/databases", contentType: js, body: database("Bad_Name", ""), code: 422, reason: metav1.StatusReasonInvalid, cause: "metadata.name"},
		{name: "name with a slash", method: "POST", path: "/databases", contentType: js, body: database("a/b", ""), code: 422, reason: metav1.StatusReasonInvalid, cause: "metadata.name"},
		{name: "name ..", method: "POST", path: "/databases", contentType: js, body: database("..", ""), code: 422, reason: metav1.StatusReasonInvalid, cause: "metadata.name"},
		{name: "get %2F in the name", method: "GET", path: "/databases/keep-a%2Fx", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "update a name that differs from the path", method: "PUT", path: "/databases/keep-a", contentType: js, body: database("keep-b", ""), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "unknown field, fieldValidation=Strict", method: "POST", path: "/databases?fieldValidation=Strict", contentType: js, body: database("strict", `,"replicaz":3`), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "duplicate field, fieldValidation=Strict", method: "POST", path: "/databases?fieldValidation=Strict", contentType: js, body: database("dup", `,"engine":"mysql"`), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "unknown field, fieldValidation=Warn", method: "POST", path: "/databases?fieldValidation=Warn", contentType: js, body: database("warned", `,"replicaz":3`), code: 201, warning: `unknown field \"spec.replicaz\"`},
		{name: "unsupported media type", method: "POST", path: "/databases", contentType: "text/plain", body: database("plain", ""), code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "unsupported patch type", method: "PATCH", path: "/databases/keep-a", contentType: "application/xml", body: "<x/>", code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "malformed merge patch", method: "PATCH", path: "/databases/keep-a", contentType: "application/merge-patch+json", body: `{"spec":`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "malformed strategic merge patch", method: "PATCH", path: "/databases/keep-a", contentType: "application/strategic-merge-patch+json", body: `{"spec":`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "malformed JSON patch", method: "PATCH", path: "/databases/keep-a", contentType: "application/json-patch+json", body: `[{"op":`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "JSON patch that does not apply", method: "PATCH", path: "/databases/keep-a", contentType: "application/json-patch+json", body: `[{"op":"test","path":"/spec/engine","value":"mysql"}]`, code: 422, reason: metav1.StatusReasonInvalid},
		{name: "patch to an invalid object", method: "PATCH", path: "/databases/keep-b", contentType: "application/merge-patch+json", body: `{"spec":{"engine":"oracle"}}`, code: 422, reason: metav1.StatusReasonInvalid, cause: "spec.engine"},
		{name: "invalid label selector", method: "GET", path: "/databases?labelSelector=a+in+(", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "unsupported field selector", method: "GET", path: "/databases?fieldSelector=spec.version%3D16", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "invalid resourceVersion", method: "GET", path: "/databases?resourceVersion=abc", code: 400, reason: metav1.StatusReasonBadRequest},
	}, hostileInputs()...) {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := send(tc.method, tc.path, tc.contentType, tc.body, tc.accept)
			if resp.StatusCode != tc.code {
				t.Fatalf("%d, want %d: %.300s", resp.StatusCode, tc.code, body)
			}
			if tc.code < 300 {
				if tc.warning != "" && !strings.Contains(resp.Header.Get("Warning"), tc.warning) {
					t.Errorf("Warning header %q lacks %q", resp.Header.Get("Warning"), tc.warning)
				}
				return
			}
			var status metav1.Status
			if err := json.Unmarshal(body, &status); err != nil || status.Kind != "Status" || status.Code != int32(tc.code) {
				t.Fatalf("not a Status with code %d (%v): %.300s", tc.code, err, body)
			}
			if status.Reason != tc.reason {
				t.Errorf("reason %q, want %q: %s", status.Reason, tc.reason, status.Message)
			}
			if tc.cause != "" {
				found := false
				if status.Details != nil {
					for _, c := range status.Details.Causes {
						found = found || c.Field == tc.cause
					}
				}
				if !found {
					t.Errorf("no cause for field %s: %+v", tc.cause, status.Details)
				}
			}
		})
	}

	if resp, body := send("GET", "/databases", "", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("the server does not answer after the suite: %d %s", resp.StatusCode, body)
	}
	for name, want := range before {
		if _, got := send("GET", "/databases/"+name, "", ""); !bytes.Equal(got, want) {
			t.Errorf("%s changed during the suite:\nbefore %s\nafter  %s", name, want, got)
		}
	}
}

// hostileInputs are the requests kube-apiserver refuses that an earlier apigen accepted or
// answered as a server error: each gets kube's code, and nothing changes in storage.
func hostileInputs() []badInput {
	const js, merge, smp, jp = "application/json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json"
	big := strings.Repeat("x", 2<<20) // past etcd's 1.5 MiB request limit, within the 3 MiB body limit
	ops := func(n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/spec/engine","value":"postgres"},`, n), ",") + "]"
	}
	copies := make([]string, 30)
	for i := range copies {
		copies[i] = fmt.Sprintf(`{"op":"copy","from":"/spec","path":"/spec/c%d"}`, i)
	}
	return []badInput{
		{name: "JSON patch copy bomb", method: "PATCH", path: "/databases/keep-a", contentType: jp, body: "[" + strings.Join(copies, ",") + "]",
			code: 422, reason: metav1.StatusReasonInvalid},
		{name: "JSON patch of 10,001 operations", method: "PATCH", path: "/databases/keep-a", contentType: jp, body: ops(10001),
			code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "delete, invalid propagationPolicy in the query", method: "DELETE", path: "/databases/keep-a?propagationPolicy=Sideways",
			code: 422, reason: metav1.StatusReasonInvalid, cause: "propagationPolicy"},
		{name: "delete, invalid propagationPolicy in the body", method: "DELETE", path: "/databases/keep-a", contentType: js,
			body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Sideways"}`, code: 422, reason: metav1.StatusReasonInvalid, cause: "propagationPolicy"},
		{name: "create too large for etcd", method: "POST", path: "/databases", contentType: js,
			body: database("too-big", `,"parameters":{"blob":"`+big+`"}`), code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "update too large for etcd", method: "PUT", path: "/databases/keep-a", contentType: js,
			body: database("keep-a", `,"parameters":{"blob":"`+big+`"}`), code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "merge patch too large for etcd", method: "PATCH", path: "/databases/keep-a", contentType: merge,
			body: `{"spec":{"parameters":{"blob":"` + big + `"}}}`, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "strategic merge patch too large for etcd", method: "PATCH", path: "/databases/keep-a", contentType: smp,
			body: `{"spec":{"parameters":{"blob":"` + big + `"}}}`, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "JSON patch too large for etcd", method: "PATCH", path: "/databases/keep-a", contentType: jp,
			body: `[{"op":"add","path":"/spec/parameters","value":{"blob":"` + big + `"}}]`, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "update with another namespace in the body", method: "PUT", path: "/databases/keep-a", contentType: js,
			body: strings.Replace(database("keep-a", ""), `"name":"keep-a"`, `"name":"keep-a","namespace":"kube-system"`, 1), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "update without a name in the body", method: "PUT", path: "/databases/keep-a", contentType: js,
			body: strings.Replace(database("keep-a", ""), `"name":"keep-a"`, `"labels":{"a":"b"}`, 1), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "patch moving the object to another namespace", method: "PATCH", path: "/databases/keep-a", contentType: merge,
			body: `{"metadata":{"namespace":"kube-system"}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "get <name>%2F", method: "GET", path: "/databases/keep-a%2F", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "delete <name>%2F%2F", method: "DELETE", path: "/databases/keep-a%2F%2F", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "delete <name>/", method: "DELETE", path: "/databases/keep-a/", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "merge patch with a duplicate field, fieldValidation=Strict", method: "PATCH", path: "/databases/keep-a?fieldValidation=Strict", contentType: merge,
			body: `{"spec":{"engine":"mysql","engine":"postgres"}}`, code: 422, reason: metav1.StatusReasonInvalid, cause: "patch"},
		{name: "strategic merge patch with a duplicate field, fieldValidation=Strict", method: "PATCH", path: "/databases/keep-a?fieldValidation=Strict", contentType: smp,
			body: `{"spec":{"replicas":3},"spec":{"replicas":4}}`, code: 422, reason: metav1.StatusReasonInvalid, cause: "patch"},
		{name: "Accept: application/*", method: "GET", path: "/databases/keep-a", accept: "application/*", code: 200},
		{name: "watch, negative timeoutSeconds", method: "GET", path: "/databases?watch=true&timeoutSeconds=-1", code: 422, reason: metav1.StatusReasonInvalid, cause: "timeoutSeconds"},
		{name: "watch, sendInitialEvents without resourceVersionMatch", method: "GET", path: "/databases?watch=true&sendInitialEvents=true",
			code: 422, reason: metav1.StatusReasonInvalid, cause: "resourceVersionMatch"},
		{name: "watch, resourceVersionMatch=Exact", method: "GET", path: "/databases?watch=true&resourceVersion=1&resourceVersionMatch=Exact",
			code: 422, reason: metav1.StatusReasonInvalid, cause: "resourceVersionMatch"},
		{name: "list, resourceVersionMatch without resourceVersion", method: "GET", path: "/databases?resourceVersionMatch=NotOlderThan",
			code: 422, reason: metav1.StatusReasonInvalid, cause: "resourceVersionMatch"},
	}
}
