package request

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
)

// namespaceSubresources are the subresources of a namespace itself: in
// /api/v1/namespaces/team-a/status the resource is "namespaces", not "status".
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// verbs maps HTTP methods to the verbs of resource requests.
var verbs = map[string]string{
	http.MethodPost:   "create",
	http.MethodGet:    "get",
	http.MethodHead:   "get",
	http.MethodPut:    "update",
	http.MethodPatch:  "patch",
	http.MethodDelete: "delete",
}

// ParseRequestInfo says what r asks for, from its method, path and query alone, as
// kube-apiserver's RequestInfoFactory.NewRequestInfo, so that filters (authorization, audit,
// max-in-flight) can run before routing:
//
//   - /api/<version>/... and /apis/<group>/<version>/... are resource requests; anything
//     else (/healthz, /openapi/v3, /apis, /apis/<group>) is not, and its Verb is the
//     lower-case HTTP method ("get", "post").
//   - the Verb of a resource request is create, get, update, patch or delete from the method;
//     get without a name is list, and watch when the query says watch=true or 1 (or the path
//     starts with the legacy /watch/ segment); delete without a name is deletecollection.
//   - /namespaces/<ns>/<resource>/<name>/<subresource> sets Namespace, Resource, Name and
//     Subresource (segments after the subresource are not interpreted); /namespaces/<ns> and
//     its status and finalize subresources are the namespaces resource, named <ns>.
//   - a list or watch with fieldSelector=metadata.name=<n> has Name <n>, so that
//     authorization by resourceNames can allow watching one object, as kube-apiserver.
//
// It returns an error only for a path segment that is empty ("//"), "." or "..", which
// routing never serves and an authorizer must not be asked about (kube-apiserver would read
// "/namespaces//x" as namespace ""; this refuses it).
func ParseRequestInfo(r *http.Request) (*RequestInfo, error) {
	info := &RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("invalid path %q: segment %q is not allowed", r.URL.Path, p)
		}
	}
	if len(parts) < 2 || (parts[0] != "api" && parts[0] != "apis") {
		return info, nil
	}
	info.APIPrefix, parts = parts[0], parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 2 {
			return info, nil // /apis/<group>: group discovery
		}
		info.APIGroup, parts = parts[0], parts[1:]
	}
	info.APIVersion, parts = parts[0], parts[1:]
	if len(parts) == 0 {
		return info, nil // /api/v1, /apis/<group>/<version>: version discovery
	}
	info.IsResourceRequest = true
	info.Verb = verbs[r.Method]
	if parts[0] == "watch" && info.Verb == "get" {
		info.Verb, parts = "watch", parts[1:]
	}
	if len(parts) > 0 && parts[0] == "namespaces" {
		if len(parts) > 1 {
			info.Namespace = parts[1]
			if len(parts) > 2 && !namespaceSubresources[parts[2]] {
				parts = parts[2:]
			}
		}
	}
	if len(parts) > 0 {
		info.Resource = parts[0]
	}
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	if info.Name == "" && info.Verb == "get" {
		info.Verb = "list"
		if w, err := strconv.ParseBool(QueryParam(r, "watch")); err == nil && w {
			info.Verb = "watch"
		}
	}
	if info.Name == "" && (info.Verb == "list" || info.Verb == "watch") {
		if sel, err := fields.ParseSelector(QueryParam(r, "fieldSelector")); err == nil {
			if name, ok := sel.RequiresExactMatch("metadata.name"); ok && validPathSegment(name) {
				info.Name = name
			}
		}
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	return info, nil
}

// validPathSegment reports whether name can be a path segment, as apimachinery's
// path.IsValidPathSegmentName: not "." or "..", no "/" or "%".
func validPathSegment(name string) bool {
	return name != "." && name != ".." && !strings.ContainsAny(name, "/%")
}

// splitPath splits a URL path into its non-empty segments.
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// InfoFor returns the RequestInfo of r: the one r's context carries (put there once by the
// handler chain's request-info filter, as kube-apiserver's WithRequestInfo), else
// ParseRequestInfo(r).
func InfoFor(r *http.Request) (*RequestInfo, error) {
	if info, ok := RequestInfoFrom(r.Context()); ok {
		return info, nil
	}
	return ParseRequestInfo(r)
}
