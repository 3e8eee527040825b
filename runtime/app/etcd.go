package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/runtime/storage/embedded"
)

// etcdDialTimeout bounds connecting to etcd.
const etcdDialTimeout = 10 * time.Second

// embeddedLogLevel is the embedded member's zap level. etcd 3.6 logs harmless "error" lines on
// every start ("failed to update storage version") and stop ("setting up serving ... closed");
// real failures still reach the user as errors from embedded.Start and the etcd health check.
const embeddedLogLevel = "fatal"

// etcdConn is the server's etcd: a client, and the embedded member when one was started.
type etcdConn struct {
	client   *clientv3.Client
	embedded *embedded.Server
	// describe says which etcd is used in the readiness line: "embedded, <dir>, client URL
	// <url>" or the URLs.
	describe string
	// beforeClose are called, in order, when Close starts (the watch caches stop).
	beforeClose []func()
}

// connectEtcd connects to servers, or, when servers is empty, starts the embedded etcd in
// dir and talks to it in process (embedded.Server.Client): a single-machine server pays for
// no gRPC round trip to its own member. The member still listens on its loopback client URL
// (named in the readiness line) for etcdctl and other clients.
func connectEtcd(ctx context.Context, servers []string, dir string) (*etcdConn, error) {
	if len(servers) == 0 {
		member, err := embedded.Start(ctx, embedded.Config{DataDir: dir, LogLevel: embeddedLogLevel})
		if err != nil {
			return nil, fmt.Errorf("cannot start embedded etcd: %w", err)
		}
		return &etcdConn{
			client:   member.Client(),
			embedded: member,
			describe: fmt.Sprintf("embedded, %s, client URL %s", dir, strings.Join(member.Endpoints(), ",")),
		}, nil
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: servers, DialTimeout: etcdDialTimeout})
	if err != nil {
		return nil, fmt.Errorf("cannot connect to etcd %s: %w", strings.Join(servers, ","), err)
	}
	return &etcdConn{client: client, describe: strings.Join(servers, ",")}, nil
}

// Close calls beforeClose, closes the client, then stops the embedded member if there is one.
func (c *etcdConn) Close() error {
	for _, f := range c.beforeClose {
		f()
	}
	err := c.client.Close()
	if c.embedded != nil {
		// The in-process client's Close reports the cancellation of its own context.
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		err = errors.Join(err, c.embedded.Close())
	}
	if err != nil {
		return fmt.Errorf("cannot close etcd: %w", err)
	}
	return nil
}
