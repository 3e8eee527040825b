package bench

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// EtcdOps are the raw etcd equivalents of the server's operations, on keys shaped as the
// server's (<prefix>/<group>/<resource>/<namespace>/<name>) with values of the size of the
// server's stored objects. They share one clientv3 client, as the server does, and are safe
// for concurrent use.
type EtcdOps struct {
	client *clientv3.Client
	// resourcePrefix is e.g. "/registry/db.example.com/databases/".
	resourcePrefix string
}

// NewEtcdOps returns raw operations on Databases through client under prefix (the server's
// --etcd-prefix, e.g. "/registry").
func NewEtcdOps(client *clientv3.Client, prefix string) *EtcdOps {
	return NewEtcdOpsFor(client, prefix, Databases)
}

// NewEtcdOpsFor returns raw operations on res through client under prefix, at the keys
// apigen and k8s.io/apiserver's registries both store it under:
// <prefix>/<group>/<resource>/<namespace>/<name>.
func NewEtcdOpsFor(client *clientv3.Client, prefix string, res APIResource) *EtcdOps {
	return &EtcdOps{client: client, resourcePrefix: prefix + "/" + res.Group + "/" + res.Resource + "/"}
}

// Key returns the etcd key the server stores Database name of namespace under.
func (e *EtcdOps) Key(namespace, name string) string {
	return e.resourcePrefix + namespace + "/" + name
}

// Put writes value at the key of namespace/name unconditionally (the raw counterpart of a
// create and of an update).
func (e *EtcdOps) Put(ctx context.Context, namespace, name string, value []byte) error {
	if _, err := e.client.Put(ctx, e.Key(namespace, name), string(value)); err != nil {
		return fmt.Errorf("cannot put %s: %w", e.Key(namespace, name), err)
	}
	return nil
}

// Get reads the key of namespace/name (a linearizable read, as the server's quorum read) and
// returns the value's size. Errors: etcd errors, and a missing key.
func (e *EtcdOps) Get(ctx context.Context, namespace, name string) (int, error) {
	resp, err := e.client.Get(ctx, e.Key(namespace, name))
	if err != nil {
		return 0, fmt.Errorf("cannot get %s: %w", e.Key(namespace, name), err)
	}
	if len(resp.Kvs) != 1 {
		return 0, fmt.Errorf("cannot get %s: key not found", e.Key(namespace, name))
	}
	return len(resp.Kvs[0].Value), nil
}

// Value returns the value stored at the key of namespace/name. Errors: etcd errors, and a
// missing key.
func (e *EtcdOps) Value(ctx context.Context, namespace, name string) ([]byte, error) {
	resp, err := e.client.Get(ctx, e.Key(namespace, name))
	if err != nil {
		return nil, fmt.Errorf("cannot get %s: %w", e.Key(namespace, name), err)
	}
	if len(resp.Kvs) != 1 {
		return nil, fmt.Errorf("cannot get %s: key not found", e.Key(namespace, name))
	}
	return resp.Kvs[0].Value, nil
}

// List reads every key of namespace in ranges of at most limit keys (limit 0: one range of
// all), as the server's paged list does: the first range is a linearizable read, each following one starts after the
// previous range's last key at the first range's revision. It returns the number of ranges
// and of keys; maxPages bounds the loop.
func (e *EtcdOps) List(ctx context.Context, namespace string, limit int64, maxPages int) (pages, items int, err error) {
	prefix := e.resourcePrefix + namespace + "/"
	end := clientv3.GetPrefixRangeEnd(prefix)
	key := prefix
	var rev int64
	for pages < maxPages {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(limit)}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := e.client.Get(ctx, key, opts...)
		if err != nil {
			return pages, items, fmt.Errorf("cannot list %s page %d: %w", prefix, pages+1, err)
		}
		pages++
		items += len(resp.Kvs)
		if rev == 0 {
			rev = resp.Header.Revision
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return pages, items, nil
		}
		key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	return pages, items, fmt.Errorf("cannot list %s: more than %d pages", prefix, maxPages)
}
