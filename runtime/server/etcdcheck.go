package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// DefaultEtcdCheckTimeout bounds one etcd health check.
const DefaultEtcdCheckTimeout = 2 * time.Second

// EtcdHealthCheck returns the check named "etcd": a linearizable read of the key "health"
// (which need not exist) through client, as kube-apiserver's etcd check. It fails when the
// read fails or takes longer than timeout; a zero or negative timeout means
// DefaultEtcdCheckTimeout.
func EtcdHealthCheck(client *clientv3.Client, timeout time.Duration) HealthChecker {
	if timeout <= 0 {
		timeout = DefaultEtcdCheckTimeout
	}
	return NamedCheck("etcd", func(r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		if _, err := client.Get(ctx, "health", clientv3.WithCountOnly()); err != nil {
			return fmt.Errorf("cannot read from etcd: %w", err)
		}
		return nil
	})
}
