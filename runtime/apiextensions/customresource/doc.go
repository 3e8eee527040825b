// Package customresource serves the custom resources of CustomResourceDefinitions, as
// apiextensions-apiserver's crdHandler (pkg/apiserver/customresource_handler.go) and
// pkg/registry/customresource: a Handler takes a Definition per CRD (Set, Remove) and
// serves its objects as *unstructured.Unstructured through the same request path as typed
// resources (runtime/endpoints over a runtime/registry.Store per served version), with the
// version's structural schema (runtime/validation/structural) pruning unknown fields
// (fieldValidation Strict, Warn, Ignore), defaulting (on decode and on read from etcd) and
// validating; the status and scale subresources; additionalPrinterColumns tables; and
// /apis/<group>, /apis/<group>/<version> discovery. Versions convert with strategy None: only
// apiVersion changes.
package customresource
