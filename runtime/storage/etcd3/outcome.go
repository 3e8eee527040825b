package etcd3

import (
	"bytes"
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// resolveTimeout bounds the second attempt of a write whose first attempt ended without an
// answer (see put): short, so that the answer still reaches a client whose request deadline
// has just passed (filters.WriteDeadlineGrace is 500 ms).
const resolveTimeout = 250 * time.Millisecond

// ambiguous reports whether err, the failure of a write transaction, leaves its outcome
// unknown: the transaction reached etcd, or may have, and etcd may apply it. A deadline or a
// cancellation during the call, etcd's own request timeouts, a leader change and a
// connection lost mid-call are; a refusal before etcd took the request (no leader, too many
// requests, too large, ...) is not.
func ambiguous(err error) bool {
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, rpctypes.ErrTimeout), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost), errors.Is(err, rpctypes.ErrLeaderChanged),
		errors.Is(err, rpctypes.ErrTimeoutWaitAppliedIndex):
		return true
	}
	switch status.Code(err) {
	case codes.DeadlineExceeded, codes.Canceled, codes.Unavailable:
		return true
	}
	return false
}

// put writes data at the etcd key k if its ModRevision is expectedRev (0: the key must not
// exist), as OptimisticPut with GetOnFailure, and makes the outcome of the write known
// whenever etcd can say it (see sendWrite): when the second attempt applies, or finds the
// key at a newer revision holding exactly data (the first applied: data carries the object's
// uid, so it is this write's), the write succeeded; a different state found is returned as a
// failed compare.
//
// A ctx with a TTL (storage.WithTTL) attaches the key to a lease of the store's leaseManager.
func (s *store) put(ctx context.Context, key, k string, data []byte, expectedRev int64) (kubernetes.PutResponse, error) {
	data, err := s.toStorage(ctx, k, data)
	if err != nil {
		return kubernetes.PutResponse{}, err
	}
	opts := kubernetes.PutOptions{GetOnFailure: true}
	if ttl := storage.TTLFrom(ctx); ttl > 0 {
		id, err := s.leases.lease(ctx, ttl)
		if err != nil {
			return kubernetes.PutResponse{}, interpretError(err, key, listExpiredMessage, 0)
		}
		opts.LeaseID = id
	}
	resp, second, err := sendWrite(s, ctx, key, func(ctx context.Context) (kubernetes.PutResponse, error) {
		return s.kv.OptimisticPut(ctx, k, data, expectedRev, opts)
	})
	if err == nil && second && !resp.Succeeded && resp.KV != nil && resp.KV.ModRevision > expectedRev && bytes.Equal(resp.KV.Value, data) {
		return kubernetes.PutResponse{Succeeded: true, Revision: resp.KV.ModRevision}, nil
	}
	return resp, err
}

// del deletes the etcd key k if its ModRevision is expectedRev, as OptimisticDelete with
// GetOnFailure, and makes an unknown outcome known as put does: a second attempt that
// applies, or finds the key gone, means the delete succeeded (resp.Revision is then the
// revision etcd was at); one that finds the key changed leaves it unknown.
func (s *store) del(ctx context.Context, key, k string, expectedRev int64) (kubernetes.DeleteResponse, error) {
	resp, second, err := sendWrite(s, ctx, key, func(ctx context.Context) (kubernetes.DeleteResponse, error) {
		return s.kv.OptimisticDelete(ctx, k, expectedRev, kubernetes.DeleteOptions{GetOnFailure: true})
	})
	switch {
	case err != nil || !second || resp.Succeeded:
		return resp, err
	case resp.KV == nil:
		return kubernetes.DeleteResponse{Succeeded: true, Revision: resp.Revision}, nil
	}
	return resp, storage.NewTimeoutError(key, true, context.DeadlineExceeded)
}

// sendWrite runs a write transaction, attempt, with ctx, and makes its outcome known whenever
// etcd can say it:
//
//   - ctx already ended: nothing is sent; a Timeout error (the write was not applied);
//   - the call fails before it was queued on a connection to etcd (the client waits for
//     one; see TrackSends): it never left: an Unreachable error (not applied);
//   - the call fails ambiguously (see ambiguous): the same transaction is sent again, with
//     resolveTimeout, and its result returned with second set. Its compare makes that safe:
//     at most one of the two attempts applies; the caller reads the outcome from what the
//     second found. If etcd does not answer it either, a Timeout error with Unknown set says
//     the write may have been applied.
//
// Other errors are interpretError's.
func sendWrite[R any](s *store, ctx context.Context, key string, attempt func(context.Context) (R, error)) (resp R, second bool, err error) {
	if err := ctx.Err(); err != nil {
		return resp, false, storage.NewTimeoutError(key, false, err)
	}
	marked, mark := withSendMark(ctx)
	resp, err = attempt(marked)
	if err == nil || !ambiguous(err) {
		return resp, false, interpretError(err, key, listExpiredMessage, 0)
	}
	if mark.neverLeft() {
		return resp, false, storage.NewUnreachableError(key, err)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resolveTimeout)
	defer cancel()
	if resp, err2 := attempt(rctx); err2 == nil {
		return resp, true, nil
	}
	return resp, true, storage.NewTimeoutError(key, true, err)
}

// resourceVersionWait is how long a read at a revision etcd has not reached waits for it
// before it fails with ResourceVersionTooLarge, as kube-apiserver's watch cache waits
// (3 s, its blockTimeout): a client that read a newer revision from another server of the
// same etcd, or a just-written one, is served once this one catches up.
var resourceVersionWait = 3 * time.Second

// revisionPollInterval is how often waitForRevision asks etcd for its revision.
const revisionPollInterval = 50 * time.Millisecond

// waitForRevision waits until etcd's revision, current when called, reaches rv, asking etcd
// every revisionPollInterval with a count-only read of the etcd key k. Errors: a
// ResourceVersionTooLarge error when resourceVersionWait passes or ctx ends first; a read's
// error as interpretError.
func (s *store) waitForRevision(ctx context.Context, key, k string, rv, current int64) error {
	if current >= rv {
		return nil
	}
	wait := time.NewTimer(resourceVersionWait)
	defer wait.Stop()
	tick := time.NewTicker(revisionPollInterval)
	defer tick.Stop()
	for current < rv {
		select {
		case <-ctx.Done():
			return tooLargeResourceVersion(rv, current)
		case <-wait.C:
			return tooLargeResourceVersion(rv, current)
		case <-tick.C:
		}
		resp, err := s.client.Get(ctx, k, clientv3.WithCountOnly())
		if err != nil {
			if ctx.Err() != nil {
				return tooLargeResourceVersion(rv, current)
			}
			return interpretError(err, key, listExpiredMessage, rv)
		}
		current = resp.Header.Revision
	}
	return nil
}
