package bench

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
)

// The operations a Scenario measures, in the order the load generator runs them.
const (
	OpCreate = "create"
	OpGet    = "get"
	OpUpdate = "update"
	OpApply  = "apply"
	OpList   = "list"
)

// Ops lists every operation a Scenario measures: apply is a server-side apply of a changed
// field, whose raw counterpart is the Put an update's is.
var Ops = []string{OpCreate, OpGet, OpUpdate, OpApply, OpList}

// Namespaces of the scenario's objects: each operation has its own, and the raw etcd
// operations have their own keys beside the server's, so that no measurement disturbs
// another.
const (
	listNamespace      = "bench-list" // Objects objects, read by get and list, server and raw
	createNamespace    = "bench-create"
	createRawNamespace = "bench-create-raw"
	updateNamespace    = "bench-update"
	updateRawNamespace = "bench-update-raw"
	applyNamespace     = "bench-apply"
	applyRawNamespace  = "bench-apply-raw"
)

// setupClients is how many clients create the scenario's objects.
const setupClients = 8

// Scenario is one benchmark of the server against raw etcd: the objects it reads and
// updates, and the Op factories of both sides. Build it with NewScenario.
type Scenario struct {
	apiURL string
	tls    *tls.Config
	// rr, when not nil, spreads the clients' requests over the server's replicas instead
	// (ScenarioConfig.Replicas).
	rr       *RoundRobin
	etcd     *EtcdOps
	tmpl     *ObjectTemplate
	objects  int
	pageSize int64
	// maxPages bounds a list: the pages the objects fill, plus one.
	maxPages int
	// rawValue is the value the server stored for one object, the raw side's payload.
	rawValue []byte

	// updateRV[c] is the resourceVersion of update object c, as client c last saw it; each
	// slot is touched by one client at a time.
	updateRV []string
	// cells counts the NewOp factories handed out, so that creates of each run get
	// names of their own.
	mu    sync.Mutex
	cells int
}

// ScenarioConfig configures NewScenario.
type ScenarioConfig struct {
	// ServerURL is the server's base URL, e.g. "https://127.0.0.1:6443"; TLS its TLS
	// configuration (nil for plain HTTP), see NewAPIClient.
	ServerURL string
	TLS       *tls.Config
	// Replicas, when not empty, are the server's replicas, in place of ServerURL and TLS
	// (which must then be empty): every request of every client, setup included, goes to
	// the replica one RoundRobin of the scenario picks.
	Replicas []Endpoint
	// Resource is the resource the scenario reads and writes; the zero value means Databases.
	Resource APIResource
	// Etcd are the raw side's operations, under the server's prefix. nil sets up the server's
	// side only (RawOp then fails): the anchor's scenario, whose raw side is apigen's.
	Etcd *EtcdOps
	// ServerEtcd reads the server's etcd, under its prefix, for the objects it stored. When
	// it is another etcd than Etcd's, NewScenario copies the objects get and list read into
	// Etcd, so that both sides read the same bytes. nil means Etcd's; both nil leaves
	// ObjectBytes unknown (0).
	ServerEtcd *EtcdOps
	// ObjectSize is the approximate size of an object's JSON in bytes, e.g. 1024.
	ObjectSize int
	// Objects is how many objects get and list read, e.g. 1000; PageSize is a list's limit,
	// e.g. 500, or 0 for unpaginated lists (no limit: one response of every object).
	Objects  int
	PageSize int64
	// MaxClients is the highest concurrency the scenario will run: it gets one update
	// object per client.
	MaxClients int
	// NoApply skips the objects of the apply operation, for a server without server-side
	// apply.
	NoApply bool
}

// NewScenario creates the scenario's objects through the server (cfg.Objects to read,
// cfg.MaxClients to update, and their raw counterparts in etcd) and checks that a paged list
// of the server and of the raw side's etcd returns all of them.
func NewScenario(ctx context.Context, cfg ScenarioConfig) (*Scenario, error) {
	if cfg.Objects < 1 || cfg.PageSize < 0 || cfg.MaxClients < 1 {
		return nil, fmt.Errorf("cannot set up scenario: want objects and clients >= 1 and page size >= 0, got %+v", cfg)
	}
	maxPages := 2 // the pages a list takes, and one more to tell a list that does not end
	if cfg.PageSize > 0 {
		maxPages = int((int64(cfg.Objects)+cfg.PageSize-1)/cfg.PageSize) + 1
	}
	if cfg.Resource == (APIResource{}) {
		cfg.Resource = Databases
	}
	tmpl, err := NewObjectTemplateFor(cfg.Resource, cfg.ObjectSize)
	if err != nil {
		return nil, err
	}
	var rr *RoundRobin
	if len(cfg.Replicas) > 0 {
		if cfg.ServerURL != "" || cfg.TLS != nil {
			return nil, errors.New("cannot set up scenario: both ServerURL or TLS and Replicas given")
		}
		if rr, err = NewRoundRobin(cfg.Replicas); err != nil {
			return nil, fmt.Errorf("cannot set up scenario: %w", err)
		}
		cfg.TLS = cfg.Replicas[0].TLS
	}
	s := &Scenario{
		rr:       rr,
		apiURL:   cfg.ServerURL,
		tls:      cfg.TLS,
		etcd:     cfg.Etcd,
		tmpl:     tmpl,
		objects:  cfg.Objects,
		pageSize: cfg.PageSize,
		maxPages: maxPages,
		updateRV: make([]string, cfg.MaxClients),
	}
	// The server admits objects only in existing namespaces (NamespaceLifecycle).
	setup := s.newAPIClient()
	defer setup.Close()
	for _, ns := range []string{listNamespace, createNamespace, updateNamespace, applyNamespace} {
		if err := setup.CreateNamespace(ctx, ns); err != nil {
			return nil, err
		}
	}
	if err := s.createAll(ctx, listNamespace, cfg.Objects, nil); err != nil {
		return nil, err
	}
	if err := s.createAll(ctx, updateNamespace, cfg.MaxClients, s.updateRV); err != nil {
		return nil, err
	}
	if !cfg.NoApply {
		if err := s.applyAll(ctx, applyNamespace, cfg.MaxClients); err != nil {
			return nil, err
		}
	}
	stored := cfg.ServerEtcd
	if stored == nil {
		stored = cfg.Etcd
	}
	if stored != nil {
		if s.rawValue, err = stored.Value(ctx, listNamespace, objectName(0)); err != nil {
			return nil, fmt.Errorf("cannot read a stored object: %w", err)
		}
	}
	if cfg.Etcd == nil {
		return s, s.checkServer(ctx)
	}
	if stored != cfg.Etcd {
		if err := copyObjects(ctx, stored, cfg.Etcd, listNamespace, cfg.Objects); err != nil {
			return nil, err
		}
	}
	for c := range cfg.MaxClients {
		for _, ns := range []string{updateRawNamespace, applyRawNamespace} {
			if err := s.etcd.Put(ctx, ns, objectName(c), s.rawValue); err != nil {
				return nil, err
			}
		}
	}
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// newAPIClient returns a client of the server, or of its replicas through the scenario's
// round robin.
func (s *Scenario) newAPIClient() *APIClient {
	if s.rr != nil {
		return NewBalancedAPIClient(s.rr, s.tmpl)
	}
	return NewAPIClient(s.apiURL, s.tmpl, s.tls)
}

// objectName names the scenario's n-th object in a namespace.
func objectName(n int) string {
	return fmt.Sprintf("bench-object-%07d", n)
}

// createAll creates objects 0..n-1 of namespace through the server with setupClients
// clients, and stores each one's resourceVersion in rvs when rvs is not nil.
func (s *Scenario) createAll(ctx context.Context, namespace string, n int, rvs []string) error {
	return s.createIn(ctx, namespace, n, setupClients, rvs)
}

// createIn is createAll with clients clients.
func (s *Scenario) createIn(ctx context.Context, namespace string, n, clients int, rvs []string) error {
	err := inClients(ctx, n, clients, func() (func(i int) error, func()) {
		client := s.newAPIClient()
		return func(i int) error {
			rv, err := client.Create(ctx, namespace, objectName(i), 0)
			if err == nil && rvs != nil {
				rvs[i] = rv
			}
			return err
		}, client.Close
	})
	if err != nil {
		return fmt.Errorf("cannot set up scenario: %w", err)
	}
	return nil
}

// applyAll creates objects 0..n-1 of namespace by server-side apply, with setupClients
// clients, so that ApplyManager owns their fields.
func (s *Scenario) applyAll(ctx context.Context, namespace string, n int) error {
	err := inClients(ctx, n, setupClients, func() (func(i int) error, func()) {
		client := s.newAPIClient()
		return func(i int) error {
			_, err := client.Apply(ctx, namespace, objectName(i), 0)
			return err
		}, client.Close
	})
	if err != nil {
		return fmt.Errorf("cannot set up scenario: %w", err)
	}
	return nil
}

// copyObjects copies the stored objects 0..n-1 of namespace from one etcd to the other, with
// setupClients clients.
func copyObjects(ctx context.Context, from, to *EtcdOps, namespace string, n int) error {
	err := inClients(ctx, n, setupClients, func() (func(i int) error, func()) {
		return func(i int) error {
			value, err := from.Value(ctx, namespace, objectName(i))
			if err != nil {
				return err
			}
			return to.Put(ctx, namespace, objectName(i), value)
		}, func() {}
	})
	if err != nil {
		return fmt.Errorf("cannot copy the stored objects to the raw side's etcd: %w", err)
	}
	return nil
}

// inClients runs do(i) for i in 0..n-1 on clients goroutines, each with a do of its own from
// newClient (and its done, called when the goroutine ends). A goroutine stops at its first
// error; the result is the errors joined, or ctx's error.
func inClients(ctx context.Context, n, clients int, newClient func() (do func(i int) error, done func())) error {
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			do, done := newClient()
			defer done()
			for i := c; i < n && ctx.Err() == nil; i += clients {
				if errs[c] = do(i); errs[c] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// check verifies that the server and etcd both list every object in pages of pageSize.
func (s *Scenario) check(ctx context.Context) error {
	if err := s.checkServer(ctx); err != nil {
		return err
	}
	wantPages := s.maxPages - 1
	pages, items, err := s.etcd.List(ctx, listNamespace, s.pageSize, s.maxPages)
	if err != nil {
		return fmt.Errorf("cannot check scenario: %w", err)
	}
	if pages != wantPages || items != s.objects {
		return fmt.Errorf("cannot check scenario: etcd listed %d keys in %d ranges, want %d in %d",
			items, pages, s.objects, wantPages)
	}
	return nil
}

// checkServer verifies that the server lists every object in pages of pageSize.
func (s *Scenario) checkServer(ctx context.Context) error {
	client := s.newAPIClient()
	defer client.Close()
	wantPages := s.maxPages - 1
	pages, items, err := client.List(ctx, listNamespace, s.pageSize, true, s.maxPages)
	if err != nil {
		return fmt.Errorf("cannot check scenario: %w", err)
	}
	if pages != wantPages || items != s.objects {
		return fmt.Errorf("cannot check scenario: the server listed %d objects in %d pages, want %d in %d",
			items, pages, s.objects, wantPages)
	}
	return nil
}

// ObjectBytes is the size of the stored object the raw side writes (the server stored), in
// bytes; 0 when the scenario has no etcd to read it from.
func (s *Scenario) ObjectBytes() int { return len(s.rawValue) }

// nextCell returns a number unique to one Run, for names of created objects.
func (s *Scenario) nextCell() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cells++
	return s.cells
}

// ServerOp returns the NewOp of op ("create", "get", "update", "apply" or "list") through the
// server. Every client has its own APIClient (one keep-alive connection, or one to each
// replica with ScenarioConfig.Replicas, the requests of all going round robin); the connections
// stay open until ctx ends. Clients of an update or apply each write their own object, so no
// update conflicts.
func (s *Scenario) ServerOp(ctx context.Context, op string) (NewOp, error) {
	return s.opThrough(ctx, op, s.newAPIClient)
}

// opThrough is ServerOp with the clients newAPIClient makes (each closed when ctx ends).
func (s *Scenario) opThrough(ctx context.Context, op string, newAPIClient func() *APIClient) (NewOp, error) {
	cell := s.nextCell()
	newClient := func() *APIClient {
		c := newAPIClient()
		context.AfterFunc(ctx, c.Close)
		return c
	}
	switch op {
	case OpCreate:
		return func(client int) (Op, error) {
			api := newClient()
			return func(ctx context.Context, i int) error {
				_, err := api.Create(ctx, createNamespace, fmt.Sprintf("bench-%d-%d-%d", cell, client, i), i)
				return err
			}, nil
		}, nil
	case OpGet:
		return func(client int) (Op, error) {
			api := newClient()
			return func(ctx context.Context, i int) error {
				_, err := api.Get(ctx, listNamespace, objectName(s.spread(client, i)))
				return err
			}, nil
		}, nil
	case OpUpdate:
		return func(client int) (Op, error) {
			if client >= len(s.updateRV) {
				return nil, fmt.Errorf("cannot update: client %d of a scenario set up for %d", client, len(s.updateRV))
			}
			api := newClient()
			return func(ctx context.Context, i int) error {
				rv, err := api.Update(ctx, updateNamespace, objectName(client), s.updateRV[client], cell*1_000_000+i+1)
				if err == nil {
					s.updateRV[client] = rv
				}
				return err
			}, nil
		}, nil
	case OpApply:
		return func(client int) (Op, error) {
			api := newClient()
			return func(ctx context.Context, i int) error {
				_, err := api.Apply(ctx, applyNamespace, objectName(client), cell*1_000_000+i+1)
				return err
			}, nil
		}, nil
	case OpList:
		return func(int) (Op, error) {
			api := newClient()
			return func(ctx context.Context, _ int) error {
				return s.wantAll(api.List(ctx, listNamespace, s.pageSize, false, s.maxPages))
			}, nil
		}, nil
	}
	return nil, fmt.Errorf("cannot benchmark unknown operation %q", op)
}

// RawOp returns the NewOp of op's raw etcd counterpart: Put of a new key (create), Get
// (get), Put of an existing key (update and apply), and ranges of pageSize keys (list), on
// the same key shapes and with values of the stored objects' size.
func (s *Scenario) RawOp(op string) (NewOp, error) {
	if s.etcd == nil {
		return nil, fmt.Errorf("cannot benchmark raw %s: the scenario has no raw side", op)
	}
	cell := s.nextCell()
	switch op {
	case OpCreate:
		return func(client int) (Op, error) {
			return func(ctx context.Context, i int) error {
				return s.etcd.Put(ctx, createRawNamespace, fmt.Sprintf("bench-%d-%d-%d", cell, client, i), s.rawValue)
			}, nil
		}, nil
	case OpGet:
		return func(client int) (Op, error) {
			return func(ctx context.Context, i int) error {
				_, err := s.etcd.Get(ctx, listNamespace, objectName(s.spread(client, i)))
				return err
			}, nil
		}, nil
	case OpUpdate, OpApply:
		ns := updateRawNamespace
		if op == OpApply {
			ns = applyRawNamespace
		}
		return func(client int) (Op, error) {
			return func(ctx context.Context, _ int) error {
				return s.etcd.Put(ctx, ns, objectName(client), s.rawValue)
			}, nil
		}, nil
	case OpList:
		return func(int) (Op, error) {
			return func(ctx context.Context, _ int) error {
				return s.wantAll(s.etcd.List(ctx, listNamespace, s.pageSize, s.maxPages))
			}, nil
		}, nil
	}
	return nil, fmt.Errorf("cannot benchmark unknown operation %q", op)
}

// spread picks the object client reads in its i-th get, so that clients read different
// objects and each walks through all of them.
func (s *Scenario) spread(client, i int) int {
	return (client*7919 + i) % s.objects
}

// wantAll turns a list's result into an error when it did not take the expected number of
// pages (items are not counted by the server side, to spare the client's CPU).
func (s *Scenario) wantAll(pages, _ int, err error) error {
	if err != nil {
		return err
	}
	if want := s.maxPages - 1; pages != want {
		return fmt.Errorf("cannot list: %d pages, want %d", pages, want)
	}
	return nil
}

// memNamespace holds the objects the memory figure stores.
const memNamespace = "bench-mem"

// StoreObjects creates n more objects of the scenario's size through the server, in
// namespace bench-mem (the memory figure's: RSS with n objects stored and cached).
func (s *Scenario) StoreObjects(ctx context.Context, n int) error {
	return s.storeIn(ctx, memNamespace, n, setupClients)
}

// agedNamespace holds the objects that age the server (Age).
const agedNamespace = "bench-aged"

// Age creates n objects of the scenario's size through the server with clients concurrent
// clients, in namespace bench-aged, and keeps them: the server then holds them in its storage,
// its watch cache and etcd's history, as a server that has been written to for a long time
// (the aged-server rows are measured after it).
func (s *Scenario) Age(ctx context.Context, n, clients int) error {
	return s.storeIn(ctx, agedNamespace, n, clients)
}

// storeIn creates namespace and n objects in it through the server with clients clients.
func (s *Scenario) storeIn(ctx context.Context, namespace string, n, clients int) error {
	client := s.newAPIClient()
	defer client.Close()
	if err := client.CreateNamespace(ctx, namespace); err != nil {
		return err
	}
	return s.createIn(ctx, namespace, n, clients, nil)
}

// TLS returns the TLS configuration the scenario's clients use (nil: plain HTTP); the first
// replica's with ScenarioConfig.Replicas.
func (s *Scenario) TLS() *tls.Config { return s.tls }

// Template returns the scenario's object template.
func (s *Scenario) Template() *ObjectTemplate { return s.tmpl }
