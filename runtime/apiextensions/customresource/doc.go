// Package customresource serves the custom resources of CustomResourceDefinitions, as
// apiextensions-apiserver's crdHandler (pkg/apiserver/customresource_handler.go) and
// pkg/registry/customresource: a Handler takes a Definition per CRD (Set, Remove) and
// serves its objects as *unstructured.Unstructured through the same request path as typed
// resources (runtime/endpoints over a runtime/registry.Store per served version), with the
// version's structural schema (runtime/validation/structural) pruning unknown fields
// (fieldValidation Strict, Warn, Ignore), defaulting (on decode and on read from etcd) and
// validating; the status and scale subresources; additionalPrinterColumns tables; and
// /apis/<group>, /apis/<group>/<version> discovery. Versions convert with strategy None (only
// apiVersion changes) or through the CRD's conversion webhook (runtime/apiextensions/conversion):
// request bodies to the storage version, stored objects (one at a time, a list page in one
// call, each watch event) to the request's version, objects stored in an older storage
// version on read, and objects to the versions of their managedFields entries.
package customresource
