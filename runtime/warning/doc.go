// Package warning lets code handling a request add warnings to its response, as
// k8s.io/apiserver's pkg/warning: the filters.WithWarningRecorder filter puts a Recorder in
// every request's context, and AddWarning (an admission webhook's warnings, a
// ValidatingAdmissionPolicy's Warn action) adds a `Warning: 299 - "<text>"` header to the
// response, which kubectl and client-go print. Warnings are deduplicated; past 4096
// characters in all they are truncated to 256 characters each, as kube-apiserver does.
package warning
