package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// sharedCAKey is the etcd key (under --etcd-prefix) of the CA that replicas sharing an etcd
// sign their certificates with. "_" cannot appear in a resource name, so no API object is
// ever stored there.
const sharedCAKey = "/apigen.dev/serving_ca"

// sharedCATimeout bounds the etcd calls of shareCA.
const sharedCATimeout = 10 * time.Second

// storedCA is the value at sharedCAKey: a CA certificate and its private key, PEM.
type storedCA struct {
	Cert []byte `json:"cert"`
	Key  []byte `json:"key"`
}

// shareCA makes the self-signed CA in dir (<data-dir>/pki) the one every replica on the etcd
// uses, so that their serving and admin certificates have one issuer and a kubeconfig written
// by one replica works against every other: the first replica to start puts its CA into etcd
// at prefix+sharedCAKey (created only if absent, in one transaction); every replica writes the
// CA found there into dir, replacing its own, before its certificates are issued. Whoever can
// read etcd can then mint client certificates, as whoever can write etcd can already grant
// itself anything through RBAC. Errors: etcd cannot be read within sharedCATimeout, or the
// CA cannot be read or written.
func shareCA(ctx context.Context, client *clientv3.Client, prefix, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, sharedCATimeout)
	defer cancel()
	key := prefix + sharedCAKey
	// A replica that finds the CA stored uses it without making one of its own first.
	if got, err := client.Get(ctx, key); err != nil {
		return fmt.Errorf("cannot read the shared CA from etcd: %w", err)
	} else if len(got.Kvs) == 1 {
		return useSharedCA(dir, key, got.Kvs[0].Value)
	}
	local, err := localCA(dir)
	if err != nil {
		return err
	}
	value, err := json.Marshal(local)
	if err != nil {
		return err
	}
	resp, err := client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value))).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return fmt.Errorf("cannot share the CA through etcd: %w", err)
	}
	if resp.Succeeded {
		return nil // this replica's CA is the shared one
	}
	return useSharedCA(dir, key, resp.Responses[0].GetResponseRange().Kvs[0].Value)
}

// useSharedCA writes the CA stored at key (value) into dir, replacing the one there.
func useSharedCA(dir, key string, value []byte) error {
	var shared storedCA
	if err := json.Unmarshal(value, &shared); err != nil {
		return fmt.Errorf("cannot read the shared CA at %s: %w", key, err)
	}
	if err := certs.WriteCA(dir, shared.Cert, shared.Key); err != nil {
		return fmt.Errorf("cannot use the shared CA at %s: %w", key, err)
	}
	return nil
}

// localCA returns the CA in dir, made if missing.
func localCA(dir string) (storedCA, error) {
	certPEM, keyPEM, err := certs.EnsureCA(dir)
	if err != nil {
		return storedCA{}, err
	}
	return storedCA{Cert: certPEM, Key: keyPEM}, nil
}
