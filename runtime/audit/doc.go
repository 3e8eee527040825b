// Package audit records what a server was asked to do and what it answered, as
// kube-apiserver's auditing (--audit-policy-file, --audit-log-path,
// --audit-webhook-config-file): audit.k8s.io/v1 Events, at the level the first matching rule
// of an audit.k8s.io/v1 Policy gives the request: None (not recorded), Metadata (who, what,
// when, the response status), Request (also the request body) or RequestResponse (also the
// response body); omitStages and omitManagedFields as the policy and its rules say.
//
// The types are our own, matching k8s.io/apiserver's audit/v1 JSON field for field (its
// package cannot be imported without the framework). A policy is loaded and evaluated as
// k8s.io/apiserver's audit/policy reader and checker (a policy written for kube-apiserver,
// such as the documentation's example in testdata, behaves the same). WithAudit runs after
// authentication; the filters after it add the authorization decision and reason
// (authorization.k8s.io/decision, authorization.k8s.io/reason) and the impersonated user
// through the request's context. Backends: Log (JSON lines to a file) and Webhook (EventLists
// POSTed to a service, batched or blocking, as kube's webhook backend); Union sends to both.
package audit
