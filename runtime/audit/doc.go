// Package audit records what a server was asked to do and what it answered, as
// kube-apiserver's auditing (--audit-log-path, --audit-policy-file): audit.k8s.io/v1 Events,
// one JSON object per line, at the level the first matching rule of an audit.k8s.io/v1
// Policy gives the request: None (not logged), Metadata (who, what, when, the response code),
// Request (also the request body) or RequestResponse (also the response body).
//
// Status: the types, the policy, the log backend and the filter are built and tested;
// the server flags and the place in the handler chain (after authentication, before
// authorization, as kube-apiserver's) are wired with the rest of issue 7.
package audit
