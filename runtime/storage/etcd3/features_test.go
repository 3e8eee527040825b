package etcd3

import (
	"context"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestVersionSupportsWatchProgress: kube-apiserver's versions with a working RequestProgress.
func TestVersionSupportsWatchProgress(t *testing.T) {
	for v, want := range map[string]bool{
		"3.4.30": false, "3.4.31": true, "3.5.12": false, "3.5.13": true, "3.6.0": true,
		"3.6.11": true, "3.7.3": true, "3.3.27": false, "2.3.8": false, "garbage": false,
	} {
		if got := versionSupportsWatchProgress(v); got != want {
			t.Errorf("versionSupportsWatchProgress(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestSupportsWatchProgressOfEtcd: a real etcd (3.7) over its client URL supports it.
func TestSupportsWatchProgressOfEtcd(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ok, err := SupportsWatchProgress(ctx, client); !ok || err != nil {
		t.Errorf("SupportsWatchProgress of etcd: %v, %v; want true", ok, err)
	}
}
