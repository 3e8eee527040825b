package etcd3

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/runtime/storage"
)

var (
	_ storage.RevisionReader    = (*store)(nil)
	_ storage.ProgressRequester = (*store)(nil)
)

// CurrentRevision implements storage.RevisionReader: the revision of a linearizable read of
// the resource's prefix key, coalesced with concurrent Gets (readBatcher), as
// kube-apiserver's GetCurrentResourceVersion. Errors: as interpretError.
func (s *store) CurrentRevision(ctx context.Context) (int64, error) {
	_, rev, err := s.reads.get(ctx, s.prefix)
	if err != nil {
		return 0, interpretError(err, "/", listExpiredMessage, 0)
	}
	return rev, nil
}

// RequestWatchProgress implements storage.ProgressRequester with clientv3's RequestProgress
// on the watch stream of ctx's metadata (Watch adds clientv3.WithRequireLeader to its
// context; so does this), as kube-apiserver's RequestWatchProgress. Watches with
// ProgressNotify turn the notification into a BOOKMARK at etcd's current revision.
func (s *store) RequestWatchProgress(ctx context.Context) error {
	if err := s.client.RequestProgress(clientv3.WithRequireLeader(ctx)); err != nil {
		return interpretError(err, "/", watchExpiredMessage, 0)
	}
	return nil
}
