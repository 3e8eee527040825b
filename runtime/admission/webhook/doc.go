// Package webhook is the MutatingAdmissionWebhook and ValidatingAdmissionWebhook admission
// plugins, as k8s.io/apiserver's admission/plugin/webhook: they call the webhooks of the
// MutatingWebhookConfigurations and ValidatingWebhookConfigurations stored in the server
// (admissionregistration.k8s.io/v1, read through a cache fed by a watch, so a new
// configuration applies within moments) with an admission.k8s.io/v1 AdmissionReview over
// HTTPS, after the in-process plugins.
//
// Which webhooks are called: configurations in name order, webhooks in list order; a webhook
// is called when its rules match the request (operation, group, version, resource and
// subresource, scope; under matchPolicy Equivalent also another version serving the same
// objects, the object then sent in the rule's version), its namespaceSelector selects the
// object's namespace, its objectSelector the object or the old object, and its
// matchConditions (CEL over object, oldObject, request and authorizer) are all true. A
// failed match condition skips the webhook; one that cannot be evaluated fails the request
// (403) under failurePolicy Fail and skips the webhook under Ignore. Requests for the
// admission configurations themselves are never sent to webhooks.
//
// How: the request body is an AdmissionReview (v1, or v1beta1 when the webhook's
// admissionReviewVersions name it first) whose request has a fresh uid, the matched and
// requested kind and resource, the user, dryRun and the operation's options; the webhook
// must answer an AdmissionReview of that version (for v1, with the same uid). clientConfig is a URL, or a service
// resolved to https://<name>.<namespace>.svc:<port><path> (ServiceResolver); the serving
// certificate is verified against caBundle (the system roots when empty). timeoutSeconds
// bounds the call.
//
// Answers: allowed=false refuses the request with the webhook's status (code at least 400,
// message `admission webhook "<name>" denied the request: <message>`); warnings become
// Warning headers of the response. A mutating webhook may return a JSONPatch, applied to the
// object in the matched version, which is then defaulted and converted back; later webhooks,
// validation and validating admission see the patched object. Webhooks run one after the
// other; a webhook with reinvocationPolicy IfNeeded is called once more when a webhook after
// it changed the object. Validating webhooks run in parallel; the first refusal is returned.
//
// Failures (unreachable, timed out, an invalid answer): failurePolicy Ignore admits the
// request as if the webhook were not there; Fail refuses it with 500 `Internal error
// occurred: failed calling webhook "<name>": ...`, kube's message. A dry run is sent only to
// webhooks whose sideEffects is None or NoneOnDryRun; a webhook with other side effects (only
// possible in configurations written as v1beta1) refuses it with 400 `admission webhook
// "<name>" does not support dry run`, without being called.
//
// Not done: audit annotations of webhook answers (patch, mutation and failed-open annotations
// are not recorded: the runtime's audit has no admission annotations), reinvoking in-process
// mutating plugins after a webhook changed the object, the operation's fieldManager and
// propagationPolicy in request.options, and the custom resources of
// CustomResourceDefinitions under matchPolicy Equivalent (they match their requested version
// exactly).
package webhook
