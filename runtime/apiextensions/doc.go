// Package apiextensions is the extensions server link of the delegation chain, as
// k8s.io/apiextensions-apiserver: a runtime/server.Server serving apiextensions.k8s.io/v1
// CustomResourceDefinitions (runtime/apis/apiextensions/v1), whose delegate serves the custom
// resources they define (runtime/apiextensions/customresource.Handler) and hands everything
// else on to the end of the chain.
//
// Its controllers (started by the post-start hook "start-apiextensions-controllers") mirror
// upstream's pkg/controller/status NamingConditionController, the establishing controller and
// the finalizer controller in one work queue keyed by CRD name:
//   - names: a CRD's plural, singular, short names, kind and list kind must not be taken by
//     another CRD of its group; status.acceptedNames and the NamesAccepted condition say
//     which are served;
//   - establish: once its names are accepted the CRD is served (Handler.Set, within a second
//     of the change) and its Established condition turns True;
//   - finalize: a deleted CRD (metadata.deletionTimestamp) gets Terminating=True, creates of
//     its objects are refused (405), every object is deleted (Handler.DeleteAll, retried until
//     none is left), its routes are removed and the finalizer
//     customresourcecleanup.apiextensions.k8s.io is removed, so the CRD goes.
//
// The CRD strategy adds that finalizer on create and keeps status.storedVersions listing
// every storage version, as upstream's strategy does.
//
// Conversion: strategy None changes only apiVersion; strategy Webhook converts through
// spec.conversion.webhook (runtime/apiextensions/conversion), a URL or a Service resolved by
// Config.ServiceResolver (the admission webhooks' webhook.ServiceResolver; cluster DNS names by
// default), on every path that changes an object's version.
package apiextensions
