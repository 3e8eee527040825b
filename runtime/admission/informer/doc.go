// Package informer keeps an in-memory copy of every object of one resource, fed by a list
// and then a watch through the resource's storage (rest.Lister and rest.Watcher), as
// client-go's informers feed kube-apiserver's admission plugins and RBAC authorizer: the
// webhook plugins read their MutatingWebhookConfigurations and ValidatingWebhookConfigurations
// through one, the ValidatingAdmissionPolicy plugin its policies, bindings and parameters,
// both the namespaces their namespace selectors look at, and the RBAC authorizer
// (authorization/rbac.StoragePolicy) its roles and bindings. A change in storage is seen within the
// watch's latency (milliseconds); after a failed list or a broken watch the cache lists
// again after a second, serving what it had meanwhile.
package informer
