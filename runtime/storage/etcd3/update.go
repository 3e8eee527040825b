package etcd3

import (
	"bytes"
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// objState is what is stored at a key at one revision.
type objState struct {
	obj  runtime.Object // decoded, with resourceVersion rev; a zero object when absent
	data []byte         // the stored bytes; nil when absent
	rev  int64          // the key's ModRevision; 0 when absent
}

// getState reads the current state of the etcd key k (key is its relative name for errors).
func (s *store) getState(ctx context.Context, key, k string, ignoreNotFound bool) (*objState, error) {
	resp, err := s.kv.Get(ctx, k, kubernetes.GetOptions{})
	if err != nil {
		return nil, interpretError(err, key, listExpiredMessage, 0)
	}
	return s.stateFromKV(key, resp.KV, ignoreNotFound)
}

// stateFromKV decodes kv (nil when the key is absent) into an objState.
// Errors: KeyNotFound when kv is nil and !ignoreNotFound.
func (s *store) stateFromKV(key string, kv *mvccpb.KeyValue, ignoreNotFound bool) (*objState, error) {
	if kv == nil {
		if !ignoreNotFound {
			return nil, storage.NewKeyNotFoundError(key, 0)
		}
		return &objState{obj: s.newFunc()}, nil
	}
	obj, err := s.decodeNew(kv.Value, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	return &objState{obj: obj, data: kv.Value, rev: kv.ModRevision}, nil
}

// checkPreconditions reports a Conflict, in kube-apiserver's words, when obj does not
// satisfy p. A nil p always holds.
func checkPreconditions(key string, p *storage.Preconditions, obj runtime.Object) error {
	if p == nil {
		return nil
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot check preconditions on %T: %v", obj, err))
	}
	if p.UID != nil && *p.UID != acc.GetUID() {
		return storage.NewConflictError(key, 0, fmt.Sprintf(
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, acc.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != acc.GetResourceVersion() {
		return storage.NewConflictError(key, 0, fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
			*p.ResourceVersion, acc.GetResourceVersion()))
	}
	return nil
}

// GuaranteedUpdate implements storage.Interface, as kube-apiserver's etcd3
// store.GuaranteedUpdate: read, check preconditions, tryUpdate on a copy, and write with a
// transaction on the read's ModRevision, retrying with the fresh state on a lost race.
func (s *store) GuaranteedUpdate(ctx context.Context, key string, dest runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	k, err := s.fullKey(key)
	if err != nil {
		return err
	}
	state, err := s.getState(ctx, key, k, ignoreNotFound)
	if err != nil {
		return err
	}
	for {
		if err := checkPreconditions(key, preconditions, state.obj); err != nil {
			return err
		}
		updated, err := tryUpdate(state.obj.DeepCopyObject())
		if err != nil {
			return err
		}
		// updated is tryUpdate's to give away: clear its resourceVersion so it is not stored.
		if err := setResourceVersion(updated, 0); err != nil {
			return err
		}
		data, err := s.encode(updated)
		if err != nil {
			return err
		}
		if state.data != nil && bytes.Equal(data, state.data) {
			return setInto(dest, state.obj)
		}
		resp, err := s.kv.OptimisticPut(ctx, k, data, state.rev, kubernetes.PutOptions{GetOnFailure: true})
		if err != nil {
			return interpretError(err, key, listExpiredMessage, 0)
		}
		if resp.Succeeded {
			return s.decode(data, dest, resp.Revision)
		}
		if state, err = s.stateFromKV(key, resp.KV, ignoreNotFound); err != nil {
			return err
		}
	}
}

// Delete implements storage.Interface, as kube-apiserver's etcd3 store.Delete: out receives
// the last stored state with the resourceVersion of the delete.
func (s *store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	k, err := s.fullKey(key)
	if err != nil {
		return err
	}
	state, err := s.getState(ctx, key, k, false)
	if err != nil {
		return err
	}
	for {
		if err := checkPreconditions(key, preconditions, state.obj); err != nil {
			return err
		}
		if validateDeletion != nil {
			if err := validateDeletion(ctx, state.obj); err != nil {
				return err
			}
		}
		resp, err := s.kv.OptimisticDelete(ctx, k, state.rev, kubernetes.DeleteOptions{GetOnFailure: true})
		if err != nil {
			return interpretError(err, key, listExpiredMessage, 0)
		}
		if resp.Succeeded {
			return s.decode(state.data, out, resp.Revision)
		}
		if state, err = s.stateFromKV(key, resp.KV, false); err != nil {
			return err
		}
	}
}
