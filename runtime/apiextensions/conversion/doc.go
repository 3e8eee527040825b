// Package conversion converts custom resources between the versions of a
// CustomResourceDefinition whose spec.conversion.strategy is Webhook, as
// apiextensions-apiserver's pkg/apiserver/conversion/webhook_converter.go: a batch of objects
// (one object, or the items of a list that are not in the desired version yet) goes to the
// webhook in one apiextensions.k8s.io ConversionReview (v1, or v1beta1 when the CRD's
// conversionReviewVersions name it before v1) with a fresh uid and the desiredAPIVersion,
// through the admission webhooks' HTTPS client (runtime/admission/webhook.Client: a URL, or a
// Service resolved by its ServiceResolver; the serving certificate verified against
// caBundle) with kube's 30 s timeout.
//
// The answer is checked as kube checks it: for v1 the review's apiVersion and kind and the
// response's uid; result.status Success (else result.message is the error); as many converted
// objects as were sent, each in the desired group version with the same kind, name,
// namespace and uid. Of the converted metadata only labels and annotations are kept (and
// validated when they changed); the rest is the original's. Every failure is a 500 Status
// whose message is kube's: "conversion webhook for <group/version, Kind=kind> failed: ...",
// or "... returned invalid object: ..." for an invalid converted object.
package conversion
