package server

import (
	"context"
	"fmt"
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
