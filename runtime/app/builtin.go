package app

import (
	"context"
	"fmt"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storageversionmigrator"
)

// builtins is the table of what the typed link of the chain is made of: the server's own
// groups, the built-in APIs, and the admission chain, routes, post-start hooks, health checks
// and leader-elected controllers around them. The wiring (wiring.go) walks it three times, each time
// in this order: build (before any link exists: storage and API groups; the typed link then
// serves the groups in table order, the core group first), serve (on the typed link before it
// serves: hooks, checks, controllers) and chained (once buildChain has built every link).
//
// The order is what each entry needs from those before it (checkOrder refuses a table where
// an entry needing a product comes before one providing it, at every start):
//   - RBAC's default roles cover the server's own groups, and the authorizer RBAC builds
//     answers the reviews: own groups, then RBAC, then the reviews.
//   - events.k8s.io stores the core group's Events: the core group, then events.
//   - The admission chain is set on every group's Stores: after every entry serving groups.
//   - NamespaceLifecycle's cache starts only when the admission chain has the plugin, and the
//     namespace controller empties every group: namespace lifecycle after admission.
//   - RBAC's escalation checks wrap the Stores once admission is set on them: after admission.
//   - The routes are installed once every group serves its final storage (namespaces through
//     namespace.REST, RBAC guarded): after namespace lifecycle and the RBAC guard.
//   - The leader-elected controllers' hook starts every controller the entries added: last.
var builtins = []builtin{
	{name: "own groups", groups: []string{anyGroup},
		provides: []product{ownGroups, apiGroups}, build: buildOwnGroups},
	{name: "RBAC API and authorizer", groups: []string{"rbac.authorization.k8s.io"},
		needs: []product{ownGroups}, provides: []product{authorizer, rbacGroup, apiGroups}, build: buildRBAC},
	{name: "review APIs", groups: []string{"authorization.k8s.io", "authentication.k8s.io"},
		needs: []product{authorizer}, provides: []product{apiGroups}, build: buildReviews},
	{name: "admission configuration API", groups: []string{"admissionregistration.k8s.io"},
		provides: []product{apiGroups}, build: buildAdmissionRegistration},
	{name: "Lease API", groups: []string{"coordination.k8s.io"},
		provides: []product{apiGroups}, build: buildLeases},
	{name: "StorageVersionMigration API", groups: []string{"storagemigration.k8s.io"},
		provides: []product{apiGroups}, build: buildStorageMigrations},
	{name: "API Priority and Fairness", groups: []string{"flowcontrol.apiserver.k8s.io"},
		provides: []product{apiGroups}, build: buildFlowControl, serve: serveFlowControlHooks,
		checks: []string{"poststarthook/" + apfConsumerHook, "poststarthook/" + apfProducerHook}},
	{name: "core group", groups: []string{""}, leads: true,
		provides: []product{coreGroup, apiGroups}, build: buildCore},
	{name: "Events API", groups: []string{"events.k8s.io"},
		needs: []product{coreGroup}, provides: []product{apiGroups}, build: buildEvents},
	{name: "admission chain", needs: []product{apiGroups, authorizer}, provides: []product{admissionChain},
		build: buildAdmissionChain, serve: serveAdmissionPlugins,
		checks: []string{"poststarthook/start-admission-plugin-caches"}},
	{name: "namespace lifecycle", needs: []product{coreGroup, apiGroups, admissionChain},
		provides: []product{finalStorage, controllers}, serve: serveNamespaceLifecycle,
		checks:      []string{"poststarthook/start-system-namespaces-controller", "poststarthook/start-kube-apiserver-admission-initializer"},
		controllers: []string{"namespace-controller"}},
	{name: "RBAC guard and bootstrap", needs: []product{rbacGroup, authorizer, admissionChain},
		provides: []product{finalStorage, controllers}, build: guardRBAC, serve: serveRBACBootstrap,
		checks: []string{"poststarthook/rbac/bootstrap-roles"}, controllers: []string{"clusterrole-aggregation-controller"}},
	{name: "routes", needs: []product{apiGroups, finalStorage}, serve: serveRoutes,
		checks: []string{"etcd"}},
	{name: "cluster authentication", needs: []product{coreGroup}, serve: serveClusterAuthentication,
		checks: []string{"poststarthook/" + clusterAuthenticationHook}},
	{name: "object count", needs: []product{apiGroups}, serve: serveObjectCount,
		checks: []string{"poststarthook/storage-object-count-tracker"}},
	{name: "etcd compactor", serve: serveCompactor,
		checks: []string{"poststarthook/start-etcd-compactor"}},
	{name: "garbage collector", provides: []product{controllers}, chained: chainGarbageCollector,
		checks: []string{"poststarthook/" + GarbageCollectorHookName}, controllers: []string{"garbage-collector"}},
	{name: "storage version migrator", provides: []product{controllers}, chained: chainStorageVersionMigrator,
		checks: []string{"poststarthook/" + StorageVersionMigratorHookName}, controllers: []string{storageversionmigrator.ControllerName}},
	{name: "leader-elected controllers", needs: []product{controllers}, chained: chainSingletons,
		checks: []string{"poststarthook/" + singletonsHookName}},
}

// buildOwnGroups builds the server's own groups, the GroupBuilders given to Main, in their
// order, over the server's storage factory as a registry.UserStorageHost.
func buildOwnGroups(w *wiring) ([]*registry.APIGroupInfo, error) {
	// Kinds with their own storage (+apigen:storage=interface) have it closed with etcd's.
	host := &userStorageHost{storageFactory: w.factory, log: w.log}
	w.etcd.beforeClose = append(w.etcd.beforeClose, host.close)
	for _, build := range w.builders {
		info, err := build(w.scheme, host)
		if err != nil {
			return nil, fmt.Errorf("cannot build API group: %w", err)
		}
		w.own = append(w.own, info)
	}
	return w.own, nil
}

// buildRBAC builds the authorizer and, when RBAC is among the modes, the RBAC API
// (serveRBAC); its default roles include the own groups' aggregated roles.
func buildRBAC(w *wiring) ([]*registry.APIGroupInfo, error) {
	return serveRBAC(&w.opts.SecureOptions, w.sec, w.scheme, w.factory, w.ownGroups())
}

// buildReviews builds authorization.k8s.io and authentication.k8s.io (serveReviews), which
// ask the authorizer.
func buildReviews(w *wiring) ([]*registry.APIGroupInfo, error) {
	return serveReviews(&w.opts.SecureOptions, w.sec.authn, w.authorizer(), w.scheme, w.factory)
}

// buildAdmissionRegistration builds admissionregistration.k8s.io (serveAdmissionRegistration).
func buildAdmissionRegistration(w *wiring) ([]*registry.APIGroupInfo, error) {
	return serveAdmissionRegistration(w.opts, w.scheme, w.factory)
}

// buildLeases builds coordination.k8s.io (serveLeases).
func buildLeases(w *wiring) ([]*registry.APIGroupInfo, error) {
	return serveLeases(w.opts, w.scheme, w.factory)
}

// buildStorageMigrations builds storagemigration.k8s.io (serveStorageMigrations).
func buildStorageMigrations(w *wiring) ([]*registry.APIGroupInfo, error) {
	return serveStorageMigrations(w.opts, w.scheme, w.factory)
}

// buildFlowControl builds flowcontrol.apiserver.k8s.io and the APF controller
// (serveFlowControl); the handler chain admits requests through it (serverConfig).
func buildFlowControl(w *wiring) ([]*registry.APIGroupInfo, error) {
	fc, err := serveFlowControl(w.opts, w.log, w.scheme, w.factory, w.metrics)
	if err != nil || fc == nil {
		return nil, err
	}
	w.flowControl = fc
	return []*registry.APIGroupInfo{fc.info}, nil
}

// serveFlowControlHooks adds the hooks "priority-and-fairness-config-consumer" and
// "priority-and-fairness-config-producer" (flowControl.install).
func serveFlowControlHooks(w *wiring, typed *server.Server) error {
	return w.flowControl.install(typed)
}

// buildCore builds the core group: namespaces, configmaps, events (serveNamespaces).
func buildCore(w *wiring) ([]*registry.APIGroupInfo, error) {
	core, err := serveNamespaces(w.opts, w.log, w.scheme, w.factory)
	if err != nil || core == nil {
		return nil, err
	}
	w.core = core
	return []*registry.APIGroupInfo{core.Info()}, nil
}

// buildEvents finishes the core group's Events and builds events.k8s.io over their storage
// (serveEvents).
func buildEvents(w *wiring) ([]*registry.APIGroupInfo, error) {
	return serveEvents(w.opts, w.scheme, w.factory, w.coreGroup().Info())
}

// buildAdmissionChain builds the admission chain the flags select and sets it on every
// group's Stores (buildAdmission).
func buildAdmissionChain(w *wiring) ([]*registry.APIGroupInfo, error) {
	chain, err := buildAdmission(&w.opts.AdmissionOptions, w.apiGroups())
	w.admission = chain
	return nil, err
}

// serveAdmissionPlugins gives the plugins the scheme, resources and authorizer, and adds the
// hook "start-admission-plugin-caches" (initAdmissionPlugins). It reads the groups' storage
// before namespace lifecycle serves namespaces through namespace.REST.
func serveAdmissionPlugins(w *wiring, typed *server.Server) error {
	return initAdmissionPlugins(typed, w.admissionChain(), w.scheme, w.apiGroups(), w.authorizer())
}

// serveNamespaceLifecycle serves namespaces through namespace.REST and adds the hooks
// "start-system-namespaces-controller", "start-kube-apiserver-admission-initializer" and the
// controller "namespace-controller" (coreNamespaces.install).
func serveNamespaceLifecycle(w *wiring, typed *server.Server) error {
	w.use(admissionChain) // install starts NamespaceLifecycle's cache if the chain has it
	return w.coreGroup().install(typed, w.apiGroups(), w.singles)
}

// guardRBAC serves the RBAC resources through the escalation checks (rbacAPI.guard), once
// admission is set on the Stores they wrap.
func guardRBAC(w *wiring) ([]*registry.APIGroupInfo, error) {
	w.use(admissionChain) // the Stores guard wraps run the chain buildAdmission set on them
	return nil, w.rbacAPI().guard(w.authorizer(), w.log)
}

// serveRBACBootstrap adds the hook "rbac/bootstrap-roles" and the controller
// "clusterrole-aggregation-controller" (rbacAPI.install).
func serveRBACBootstrap(w *wiring, typed *server.Server) error {
	return w.rbacAPI().install(typed, w.log, w.singles)
}

// serveRoutes installs every group's routes on the typed link and the health checks "etcd"
// and, with KMS plugins configured, "kms-providers".
func serveRoutes(w *wiring, typed *server.Server) error {
	if err := typed.InstallAPIGroups(w.apiGroups()...); err != nil {
		return err
	}
	checks := []server.HealthChecker{server.EtcdHealthCheck(w.etcd.client, 0)}
	if w.etcd.kmsCheck != nil {
		checks = append(checks, w.etcd.kmsCheck)
	}
	return typed.AddHealthChecks(checks...)
}

// serveClusterAuthentication adds the hook "start-cluster-authentication-info-controller",
// which writes through the core group's configmaps (publishClusterAuthentication).
func serveClusterAuthentication(w *wiring, typed *server.Server) error {
	return publishClusterAuthentication(typed, &w.opts.SecureOptions, w.sec, w.coreGroup().ConfigMaps(), w.log)
}

// serveObjectCount adds the hook "storage-object-count-tracker", counting every group's
// stored objects (countObjects).
func serveObjectCount(w *wiring, typed *server.Server) error {
	infos := w.apiGroups()
	return typed.AddPostStartHook("storage-object-count-tracker", func(ctx context.Context) error {
		go countObjects(ctx, w.etcd.client, w.opts.EtcdPrefix, infos, w.metrics, objectCountInterval)
		return nil
	})
}

// serveCompactor adds the hook "start-etcd-compactor" (--etcd-compaction-interval).
func serveCompactor(w *wiring, typed *server.Server) error {
	interval := w.opts.EtcdCompactionInterval
	return typed.AddPostStartHook("start-etcd-compactor", func(ctx context.Context) error {
		etcd3.StartCompactor(ctx, w.etcd.client, interval)
		return nil
	})
}

// chainGarbageCollector adds the hook "start-garbage-collector" to the first link, or the
// controller "garbage-collector" (serveGarbageCollector): it watches every link's groups.
func chainGarbageCollector(w *wiring, c *chain) error {
	return serveGarbageCollector(&w.opts.GarbageCollectorOptions, w.log, w.metrics, c.top, c.extensions, w.singles)
}

// chainStorageVersionMigrator adds the hook "start-storage-version-migrator" to the first
// link, or the controller "storage-version-migrator-controller" (serveStorageVersionMigrator):
// it migrates the resources of every link, custom resources once the CRDs are served.
func chainStorageVersionMigrator(w *wiring, c *chain) error {
	var crdsServed <-chan struct{}
	if c.extensions != nil {
		crdsServed = c.extensions.Served()
	}
	return serveStorageVersionMigrator(w.opts, w.log, w.loopback, c.top, crdsServed, w.singles)
}

// chainSingletons adds the hook "start-leader-elected-controllers" to the first link, which
// starts every controller the entries above added (singletons.install).
func chainSingletons(w *wiring, c *chain) error {
	return w.singles.install(c.top)
}
