// Package app is what a generated API server's main calls:
//
//	func main() {
//		os.Exit(app.Main("example-apiserver", os.Args[1:], os.Stdout, os.Stderr, dbinstall.NewAPIGroupInfo))
//	}
//
// Main parses kube-apiserver-named flags, starts an embedded single-member etcd under
// --data-dir (or connects to --etcd-servers; the embedded member serves other clients, such
// as etcdctl, only with the client certificate in <data-dir>/pki/etcd unless
// --embedded-etcd-client-url asks for plain HTTP), builds every API group over one shared scheme
// and an etcd-backed StorageFactory, serves them with runtime/server, writes a kubeconfig for
// kubectl to <data-dir>/kubeconfig, and prints one readiness line to stdout. SIGINT or SIGTERM
// shut it down gracefully.
//
// It serves HTTPS (a self-signed CA and certificates in <data-dir>/pki unless --tls-cert-file
// is given) with kube-apiserver's authentication, impersonation, authorization (RBAC over the
// served rbac.authorization.k8s.io API by default, guarded against escalation, with the
// default roles and the clusterrole-aggregation controller; authorization_apis.go) and audit
// flags (log and webhook backends; audit_options.go), and serves the review APIs
// (authorization.k8s.io, authentication.k8s.io); --plain-http serves plain HTTP on a loopback
// address without them. The first link of the chain is an aggregator
// (runtime/aggregator) serving apiregistration.k8s.io/v1 APIServices (unless --runtime-config
// turns it off): it proxies the group versions of APIServices naming a service to their
// backends; --proxy-endpoint registers such an APIService on start, for running outside a
// cluster.
//
// The chain is kube-apiserver's (CreateServerChain): aggregator -> typed server (the user's
// groups, namespaces and configmaps at /api/v1, the namespaces with their bootstrap and
// deletion controllers, RBAC) ->
// extensions server (runtime/apiextensions: CustomResourceDefinitions and their custom
// resources) -> not found. --runtime-config <group>/<version>=false (api/v1 for the core
// group) turns a built-in API off. The typed server also serves admissionregistration.k8s.io/v1,
// whose webhook configurations and ValidatingAdmissionPolicies the MutatingAdmissionWebhook,
// ValidatingAdmissionPolicy and ValidatingAdmissionWebhook plugins (on by default, after the
// in-process plugins) apply to every write.
//
// What the typed link serves is one table, builtins (builtin.go): an entry per step (the
// server's own groups, each built-in API, the admission chain, namespace lifecycle, the RBAC
// guard, the routes, the hooks), naming the groups it serves, how it builds their storage, the
// hooks, health checks and controllers it adds, and the products it needs from earlier
// entries. wiring.go walks it in that order, stated and justified beside the table: the build
// steps before any link exists, the serve steps on the typed link, the chained steps once
// buildChain (chain.go) has built every link; a table whose order leaves a need unmet fails
// the start.
//
// Serving HTTPS, the post-start hook "start-cluster-authentication-info-controller" publishes
// kube-system/extension-apiserver-authentication as kube-apiserver does for delegating
// (aggregated) API servers (clusterauthentication.go): client-ca-file (--client-ca-file's CAs
// and the self-signed CA) and, with --requestheader-client-ca-file, its CAs and the
// --requestheader-* flags, written through the in-process configmaps store and kept (rewritten
// when a watch reports it changed or deleted, and every minute). The RBAC bootstrap includes
// kube's Role kube-system/extension-apiserver-authentication-reader, which reads it.
//
// The post-start hook "start-garbage-collector" runs runtime/garbagecollector over every
// resource of the chain and every custom resource (picked up as CRDs are served), unless
// --enable-garbage-collector=false.
//
// The post-start hook "start-storage-version-migrator" runs runtime/storageversionmigrator,
// which carries out the storagemigration.k8s.io/v1 StorageVersionMigrations the server serves
// (storagemigration.go), through the loopback client; --storage-version-overrides stores
// resources in another version than their types declare.
//
// With --enable-priority-and-fairness (the default), requests are admitted by
// runtime/flowcontrol under the flowcontrol.apiserver.k8s.io/v1 FlowSchemas and
// PriorityLevelConfigurations the server serves (flowcontrol.go), sharing
// --max-requests-inflight plus --max-mutating-requests-inflight seats: the post-start hook
// "priority-and-fairness-config-consumer" reads them through a watch of the group's storage,
// "priority-and-fairness-config-producer" creates kube's default objects and keeps them.
//
// With --etcd-servers (replicas may share the etcd) and --leader-elect (the default), the
// controllers kube-controller-manager runs once per cluster (namespace, garbage collector,
// clusterrole aggregation, storage version migrator) run each under a coordination.k8s.io/v1 Lease through client-go's
// leaderelection (leaderelection.go), over a loopback client of the server itself
// (loopback.go, auth.Loopback); the post-start hook "start-leader-elected-controllers" starts
// their campaigns, the pre-shutdown hook of that name waits for them to release the Leases.
package app
