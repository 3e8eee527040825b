package app

import (
	"fmt"
	"log/slog"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/server"
)

// product is what an entry of the built-in table provides to the entries after it.
type product string

// The products of the built-in table. Most are values the wiring's accessors hand out, and
// an entry reading one its needs do not declare fails the start; finalStorage and
// controllers are effects, which only the declarations record.
const (
	// ownGroups are the server's own groups (ownGroups()).
	ownGroups product = "the server's own groups"
	// apiGroups are the groups the typed link serves (apiGroups()): every entry serving
	// groups provides it, so an entry needing it comes after them all.
	apiGroups product = "the typed link's groups"
	// authorizer is the server's authorizer (authorizer()); nil with --plain-http.
	authorizer product = "the authorizer"
	// rbacGroup is the served RBAC API (rbacAPI()); nil when RBAC is off.
	rbacGroup product = "the RBAC API"
	// coreGroup is the core group (coreGroup()); nil when --runtime-config turns it off.
	coreGroup product = "the core group"
	// admissionChain is the admission chain (admissionChain()), set on every group's Stores.
	admissionChain product = "the admission chain"
	// finalStorage: the groups serve the storage their routes will serve (an entry swapping
	// a resource's storage after build provides it).
	finalStorage product = "the groups' final storage"
	// controllers: the leader-elected controllers are added (w.singles.add).
	controllers product = "the leader-elected controllers"
)

// anyGroup, among an entry's groups, allows any group: the server's own.
const anyGroup = "*"

// builtin is one entry of the table builtins. Each step function may be nil.
type builtin struct {
	// name names the entry in errors.
	name string
	// groups are the API groups the entry may serve ("" the core group, anyGroup any), when
	// the flags leave them on; none for an entry that only wires.
	groups []string
	// leads puts the entry's groups before the others' on the typed link: the core group,
	// /api, as kube-apiserver installs the legacy API first.
	leads bool
	// needs are the products of earlier entries the entry uses; provides those it makes.
	needs, provides []product
	// checks are the /readyz checks the entry adds, as a secure server on its embedded etcd
	// lists them ("poststarthook/<hook>", or a health check's name); controllers the Leases
	// of the controllers it adds, as replicas on --etcd-servers elect them.
	checks, controllers []string
	// build builds storage before any link exists and returns the API groups to serve.
	build func(*wiring) ([]*registry.APIGroupInfo, error)
	// serve adds to the typed link, before it serves, what the entry runs: hooks, health
	// checks, controllers.
	serve func(*wiring, *server.Server) error
	// chained adds what needs the whole chain (the first link, the extensions server).
	chained func(*wiring, *chain) error
}

// wiring walks a table of builtin entries over a server's environment, and holds what the
// entries provide, handed out through accessors that check the reading entry declared it.
type wiring struct {
	table []builtin

	// The environment, which every entry may read.
	opts     *Options
	log      *slog.Logger
	scheme   *runtime.Scheme
	factory  storageFactory
	metrics  *metrics.Metrics
	etcd     *etcdConn
	sec      *security // sec.authz and sec.rbac are products: authorizer(), rbacAPI()
	singles  *singletons
	loopback *loopback // the client of the server's own API, configured once it listens
	builders []GroupBuilder

	// The products.
	own       []*registry.APIGroupInfo
	groups    []*registry.APIGroupInfo
	core      *coreNamespaces
	admission *admission.Chain
	// flowControl is API Priority and Fairness (nil when its API is off); the handler chain
	// of every link admits requests through it.
	flowControl *flowControl

	// running is the entry whose step runs; undeclared the products it read without
	// declaring them.
	running    *builtin
	undeclared []product
}

// build checks the table's order (checkOrder) and runs every entry's build step in order,
// collecting the groups they return. Errors: a misordered table, a step's error, a group
// outside the entry's groups, a product read without being declared.
func (w *wiring) build() error {
	if err := checkOrder(w.table); err != nil {
		return err
	}
	for i := range w.table {
		e := &w.table[i]
		if e.build == nil {
			continue
		}
		if err := w.run(e, func() error {
			infos, err := e.build(w)
			if err != nil {
				return err
			}
			for _, info := range infos {
				if !slices.Contains(e.groups, info.Group) && !slices.Contains(e.groups, anyGroup) {
					return fmt.Errorf("built-in table: %s serves the group %q, not among its groups", e.name, info.Group)
				}
			}
			if e.leads {
				w.groups = append(slices.Clone(infos), w.groups...)
			} else {
				w.groups = append(w.groups, infos...)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// serve runs every entry's serve step on typed, the typed link, in order.
func (w *wiring) serve(typed *server.Server) error {
	for i := range w.table {
		if e := &w.table[i]; e.serve != nil {
			if err := w.run(e, func() error { return e.serve(w, typed) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// chained runs every entry's chained step on c, in order.
func (w *wiring) chained(c *chain) error {
	for i := range w.table {
		if e := &w.table[i]; e.chained != nil {
			if err := w.run(e, func() error { return e.chained(w, c) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// run runs step of e; after step's own error, it reports a product e read without declaring
// it.
func (w *wiring) run(e *builtin, step func() error) error {
	w.running, w.undeclared = e, nil
	defer func() { w.running = nil }()
	if err := step(); err != nil {
		return err
	}
	if len(w.undeclared) > 0 {
		return fmt.Errorf("built-in table: %s uses %s, which its needs do not declare", e.name, w.undeclared[0])
	}
	return nil
}

// use records that the running entry uses p (a read outside any step, by the assembly after
// the table, is not checked).
func (w *wiring) use(p product) {
	if e := w.running; e != nil && !slices.Contains(e.needs, p) && !slices.Contains(e.provides, p) {
		w.undeclared = append(w.undeclared, p)
	}
}

// ownGroups returns the server's own groups.
func (w *wiring) ownGroups() []*registry.APIGroupInfo { w.use(ownGroups); return w.own }

// apiGroups returns the groups built so far, the core group first.
func (w *wiring) apiGroups() []*registry.APIGroupInfo { w.use(apiGroups); return w.groups }

// authorizer returns the authorizer; nil with --plain-http.
func (w *wiring) authorizer() authorization.Authorizer { w.use(authorizer); return w.sec.authz }

// rbacAPI returns the served RBAC API; nil when RBAC is off.
func (w *wiring) rbacAPI() *rbacAPI { w.use(rbacGroup); return w.sec.rbac }

// coreGroup returns the core group; nil when it is off.
func (w *wiring) coreGroup() *coreNamespaces { w.use(coreGroup); return w.core }

// admissionChain returns the admission chain.
func (w *wiring) admissionChain() *admission.Chain { w.use(admissionChain); return w.admission }

// checkOrder reports the first need of table that is not met: some entry must provide it,
// and every entry providing it must come before the entry needing it.
func checkOrder(table []builtin) error {
	for i, e := range table {
		for _, p := range e.needs {
			provided := false
			for j, o := range table {
				if !slices.Contains(o.provides, p) {
					continue
				}
				if j >= i {
					return fmt.Errorf("built-in table: %s needs %s, which %s provides at or after it", e.name, p, o.name)
				}
				provided = true
			}
			if !provided {
				return fmt.Errorf("built-in table: %s needs %s, which no entry provides", e.name, p)
			}
		}
	}
	return nil
}
