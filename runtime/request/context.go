package request

import "context"

type contextKey int

const (
	namespaceKey contextKey = iota
	requestInfoKey
	documentKey
)

// WithNamespace returns a copy of ctx carrying namespace ("" for cluster-scoped requests).
func WithNamespace(ctx context.Context, namespace string) context.Context {
	return context.WithValue(ctx, namespaceKey, namespace)
}

// NamespaceValue returns the namespace ctx carries, or "" when none.
func NamespaceValue(ctx context.Context) string {
	ns, _ := ctx.Value(namespaceKey).(string)
	return ns
}

// RequestInfo is what the path of a resource request says, as kube-apiserver's RequestInfo:
// for GET /apis/db.example.com/v1/namespaces/team-a/databases/main/status it is
// {IsResourceRequest: true, Verb: "get", APIPrefix: "apis", APIGroup: "db.example.com",
// APIVersion: "v1", Namespace: "team-a", Resource: "databases", Subresource: "status",
// Name: "main"}.
type RequestInfo struct {
	IsResourceRequest bool
	Path              string
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch, delete,
	// deletecollection (not the HTTP method).
	Verb        string
	APIPrefix   string
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
}

// WithRequestInfo returns a copy of ctx carrying info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey, info)
}

// RequestInfoFrom returns the RequestInfo ctx carries and whether there was one.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	info, ok := ctx.Value(requestInfoKey).(*RequestInfo)
	return info, ok
}
