package etcdtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

func TestRunGivesAWorkingClient(t *testing.T) {
	client, srv := etcdtest.Run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := client.Put(ctx, "k", "v"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	resp, err := client.Get(ctx, "k")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("Get: %v, %v", err, resp)
	}
	if len(srv.Endpoints()) != 1 {
		t.Errorf("Endpoints() = %v, want one", srv.Endpoints())
	}
}
