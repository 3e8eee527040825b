// Package responsewriters writes the bodies every layer of the server shares: JSON documents
// and metav1.Status errors, as k8s.io/apiserver's endpoints/handlers/responsewriters. Every
// error a client sees goes through WriteError or WriteStatus, so it is always a Status with
// kind, apiVersion, status, code and reason set.
package responsewriters
