package server

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sync"
)

// PostStartHookFunc runs once the server listens, as k8s.io/apiserver's post-start hooks. ctx
// ends when the server shuts down. A hook that returns an error stops the server; /readyz
// fails until every hook has returned nil.
type PostStartHookFunc func(ctx context.Context) error

// AddPostStartHook registers hook under name ("start-compactor"); its readiness check is
// "poststarthook/<name>". It fails when hook is nil, when name is invalid (as for health
// checks) or taken in the server, and after PrepareRun.
func (s *Server) AddPostStartHook(name string, hook PostStartHookFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.prepared:
		return fmt.Errorf("cannot add post-start hook %q: the server is already prepared", name)
	case hook == nil:
		return fmt.Errorf("cannot add post-start hook %q: hook is nil", name)
	case validName(name) != nil:
		return fmt.Errorf("cannot add post-start hook: %w", validName(name))
	case s.hooks[name] != nil:
		return fmt.Errorf("cannot add post-start hook %q: a hook of that name exists", name)
	}
	s.hooks[name] = hook
	return nil
}

// PreShutdownHookFunc runs once when the server begins to shut down: after the post-start
// hooks' context has ended and before the server stops listening, as k8s.io/apiserver's
// pre-shutdown hooks, so that what a hook asks of the server itself (releasing a Lease over
// the loopback client) is still served. It must return within seconds; errors are logged.
type PreShutdownHookFunc func() error

// AddPreShutdownHook registers hook under name. It fails as AddPostStartHook does.
func (s *Server) AddPreShutdownHook(name string, hook PreShutdownHookFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.prepared:
		return fmt.Errorf("cannot add pre-shutdown hook %q: the server is already prepared", name)
	case hook == nil:
		return fmt.Errorf("cannot add pre-shutdown hook %q: hook is nil", name)
	case validName(name) != nil:
		return fmt.Errorf("cannot add pre-shutdown hook: %w", validName(name))
	case s.preShutdownHooks[name] != nil:
		return fmt.Errorf("cannot add pre-shutdown hook %q: a hook of that name exists", name)
	}
	if s.preShutdownHooks == nil {
		s.preShutdownHooks = map[string]PreShutdownHookFunc{}
	}
	s.preShutdownHooks[name] = hook
	return nil
}

// PreShutdownHooks returns the server's own pre-shutdown hooks by name.
func (s *Server) PreShutdownHooks() map[string]PreShutdownHookFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.preShutdownHooks)
}

// chainPreShutdownHooks returns the pre-shutdown hooks of every link from top down the chain
// that has any (a link with a PreShutdownHooks method); a name taken by two links is an
// error.
func chainPreShutdownHooks(top DelegationTarget) (map[string]PreShutdownHookFunc, error) {
	all := map[string]PreShutdownHookFunc{}
	for d := top; d != nil; d = d.NextDelegate() {
		link, ok := d.(interface {
			PreShutdownHooks() map[string]PreShutdownHookFunc
		})
		if !ok {
			continue
		}
		for name, hook := range link.PreShutdownHooks() {
			if all[name] != nil {
				return nil, fmt.Errorf("cannot merge pre-shutdown hooks: %q is registered twice in the chain", name)
			}
			all[name] = hook
		}
	}
	return all, nil
}

// runPreShutdownHooks runs hooks concurrently and waits for them, logging their errors.
func runPreShutdownHooks(hooks map[string]PreShutdownHookFunc, log *slog.Logger) {
	var wg sync.WaitGroup
	for name, hook := range hooks {
		wg.Go(func() {
			if err := hook(); err != nil {
				log.Error("pre-shutdown hook failed", "hook", name, "err", err)
			}
		})
	}
	wg.Wait()
}

// chainHooks returns the hooks of every link from top down the chain; a name taken by two
// links is an error.
func chainHooks(top DelegationTarget) (map[string]PostStartHookFunc, error) {
	all := map[string]PostStartHookFunc{}
	for d := top; d != nil; d = d.NextDelegate() {
		for name, hook := range d.PostStartHooks() {
			if all[name] != nil {
				return nil, fmt.Errorf("cannot merge post-start hooks: %q is registered twice in the chain", name)
			}
			all[name] = hook
		}
	}
	return all, nil
}

// chainChecks returns the health checks of every link from top down the chain, skipping a
// name already taken.
func chainChecks(top DelegationTarget) []HealthChecker {
	var all []HealthChecker
	seen := map[string]bool{}
	for d := top; d != nil; d = d.NextDelegate() {
		for _, c := range d.HealthzChecks() {
			if !seen[c.Name()] {
				seen[c.Name()] = true
				all = append(all, c)
			}
		}
	}
	return all
}
