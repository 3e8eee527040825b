package etcd3

import (
	"bytes"
	"context"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// objState is what is stored at a key at one revision: the stored bytes (nil when absent;
// for a remembered state under a watch cache, nil and their digest) and the key's
// ModRevision (0 when absent), and the object decoded from them.
type objState struct {
	obj runtime.Object // with resourceVersion rev (a zero object when absent); no one else holds it
	knownState
	// stale: the stored value was read by a transformer other than the one writes use (an
	// older encryption key or provider), so even an unchanged object is written again, as
	// kube-apiserver's GuaranteedUpdate rewrites a stale origState.
	stale bool
}

// getState reads the current state of the etcd key k (key is its relative name for errors).
func (s *store) getState(ctx context.Context, key, k string, ignoreNotFound bool) (*objState, error) {
	start := time.Now()
	resp, err := s.kv.Get(ctx, k, kubernetes.GetOptions{})
	s.observe("get", start)
	if err != nil {
		return nil, interpretError(err, key, listExpiredMessage, 0)
	}
	return s.stateFromKV(ctx, key, k, resp.KV, ignoreNotFound)
}

// startState returns the state a write of k starts from: the one this store last saw there
// when it remembers one (current is then false: it may be stale), else etcd's (current).
func (s *store) startState(ctx context.Context, key, k string, ignoreNotFound bool) (state *objState, current bool, err error) {
	if known, ok := s.states.get(k); ok {
		// A copy of the watch cache's object at that revision, or a decode of the bytes:
		// mostly bytes this store wrote itself, not worth a decode cache entry (a read of
		// etcd that confirms them adds one). A digest alone, whose revision the cache has
		// not reached, decodes to nothing, and etcd is read.
		if obj, err := s.decodeObject(k, known.data, known.rev, known.rev, useOnce); err == nil {
			return &objState{obj: obj, knownState: known}, false, nil
		}
	}
	state, err = s.getState(ctx, key, k, ignoreNotFound)
	return state, true, err
}

// stateFromKV decodes kv, read from the etcd key k (nil when absent), into an objState and
// remembers it. Errors: KeyNotFound when kv is nil and !ignoreNotFound.
func (s *store) stateFromKV(ctx context.Context, key, k string, kv *mvccpb.KeyValue, ignoreNotFound bool) (*objState, error) {
	if kv == nil {
		s.states.forget(k)
		if !ignoreNotFound {
			return nil, storage.NewKeyNotFoundError(key, 0)
		}
		return &objState{obj: s.newFunc()}, nil
	}
	data, stale, err := s.fromStorage(ctx, k, kv.Value)
	if err != nil {
		return nil, err
	}
	s.states.remember(k, kv.ModRevision, data)
	obj, err := s.decodeObject(k, data, kv.ModRevision, kv.ModRevision, useOwn)
	if err != nil {
		return nil, err
	}
	return &objState{obj: obj, knownState: knownState{data: data, rev: kv.ModRevision}, stale: stale}, nil
}

// refresh handles err, the failure of a step that ran on state: when state is current, err
// stands (done). When state may be stale, it reads the current state: if that is the state
// the step ran on, err stands; otherwise the caller retries on the fresh state. As
// kube-apiserver's GuaranteedUpdate treats an error computed from its cached object.
func (s *store) refresh(ctx context.Context, key, k string, state *objState, current, ignoreNotFound bool,
	err error) (fresh *objState, done error) {
	if current {
		return nil, err
	}
	fresh, rerr := s.getState(ctx, key, k, ignoreNotFound)
	if rerr != nil {
		return nil, rerr
	}
	if fresh.rev == state.rev {
		return nil, err
	}
	return fresh, nil
}

// GuaranteedUpdate implements storage.Interface, as kube-apiserver's etcd3
// store.GuaranteedUpdate: start from the last state this store saw at key (or read it),
// check preconditions, tryUpdate on a copy, and write with a transaction on that state's
// ModRevision, retrying with the current state the failed transaction returns. An error or
// a no-op computed from a remembered state is confirmed against a fresh read first.
func (s *store) GuaranteedUpdate(ctx context.Context, key string, dest runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) (err error) {
	ctx, span := s.startSpan(ctx, "GuaranteedUpdate etcd3", key)
	defer func() { span.End(err) }()
	k, err := s.fullKey(key)
	if err != nil {
		return err
	}
	state, current, err := s.startState(ctx, key, k, ignoreNotFound)
	if err != nil {
		return err
	}
	for {
		data, stored, err := s.update(key, state, preconditions, tryUpdate)
		if err != nil {
			if state, err = s.refresh(ctx, key, k, state, current, ignoreNotFound, err); err != nil {
				return err
			}
			current = true
			continue
		}
		if state.holds(data) && !state.stale {
			if !current {
				// A no-op only against the state tryUpdate saw: confirm that state is still
				// the current one, else run again on the current one (whose resourceVersion
				// tryUpdate may judge differently, even when its bytes are the same). A
				// state known by digest is confirmed by the bytes themselves.
				fresh, err := s.getState(ctx, key, k, ignoreNotFound)
				if err != nil {
					return err
				}
				changed := fresh.rev != state.rev || !bytes.Equal(fresh.data, data)
				current, state = true, fresh
				if changed || fresh.stale {
					continue
				}
			}
			return s.decode(k, state.data, state.rev, dest, state.rev) // tryUpdate may have changed state.obj
		}
		start := time.Now()
		resp, err := s.put(ctx, key, k, data, state.rev)
		s.observe("update", start)
		if err != nil {
			return err
		}
		if resp.Succeeded {
			s.states.remember(k, resp.Revision, data)
			return written(stored, dest, resp.Revision)
		}
		if state, err = s.stateFromKV(ctx, key, k, resp.KV, ignoreNotFound); err != nil {
			return err
		}
		current = true
	}
}

// update computes and encodes the new state from state: preconditions, then tryUpdate on
// state.obj, a copy of its own (from decodeObject or newFunc) it may change. It returns the
// bytes to store and the object they read back as.
func (s *store) update(key string, state *objState, preconditions *storage.Preconditions,
	tryUpdate storage.UpdateFunc) ([]byte, runtime.Object, error) {
	if err := preconditions.Check(key, state.obj); err != nil {
		return nil, nil, err
	}
	updated, err := tryUpdate(state.obj)
	if err != nil {
		return nil, nil, err
	}
	// updated is tryUpdate's to give away: clear its resourceVersion so it is not stored.
	if err := setResourceVersion(updated, 0); err != nil {
		return nil, nil, err
	}
	return s.encode(updated)
}

// Delete implements storage.Interface, as kube-apiserver's etcd3 store.Delete: out receives
// the last stored state with the resourceVersion of the delete. Like GuaranteedUpdate it
// starts from the last state this store saw at key.
func (s *store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) (err error) {
	ctx, span := s.startSpan(ctx, "Delete etcd3", key)
	defer func() { span.End(err) }()
	k, err := s.fullKey(key)
	if err != nil {
		return err
	}
	state, current, err := s.startState(ctx, key, k, false)
	if err != nil {
		return err
	}
	for {
		if err := s.checkDeletion(ctx, key, state, preconditions, validateDeletion); err != nil {
			if state, err = s.refresh(ctx, key, k, state, current, false, err); err != nil {
				return err
			}
			current = true
			continue
		}
		start := time.Now()
		resp, err := s.del(ctx, key, k, state.rev)
		s.observe("delete", start)
		if err != nil {
			return err
		}
		if resp.Succeeded {
			s.states.forget(k)
			if state.data == nil { // a state from the watch cache: its copy is the caller's
				return written(state.obj, out, resp.Revision)
			}
			return s.decode(k, state.data, state.rev, out, resp.Revision)
		}
		if state, err = s.stateFromKV(ctx, key, k, resp.KV, false); err != nil {
			return err
		}
		current = true
	}
}

// checkDeletion checks preconditions and validateDeletion (may be nil) against state.
func (s *store) checkDeletion(ctx context.Context, key string, state *objState, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	if err := preconditions.Check(key, state.obj); err != nil {
		return err
	}
	if validateDeletion != nil {
		return validateDeletion(ctx, state.obj)
	}
	return nil
}
