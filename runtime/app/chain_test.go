package app

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestBuildChain checks the links buildChain puts in order, from the first: aggregator,
// typed groups, extensions, not found; and that --runtime-config leaves out the aggregator or
// the extensions server.
func TestBuildChain(t *testing.T) {
	client, _ := etcdtest.Run(t)
	for _, tc := range []struct {
		runtimeConfig  map[string]string
		wantAggregator bool
		wantExtensions bool
	}{
		{nil, true, true},
		{map[string]string{apiregistrationV1: "false"}, false, true},
		{map[string]string{apiextensionsV1: "false"}, true, false},
	} {
		t.Run(fmt.Sprint(tc.runtimeConfig), func(t *testing.T) {
			opts := NewOptions()
			opts.RuntimeConfig = tc.runtimeConfig
			installed := 0
			c, err := buildChain(opts, chainConfig{server: server.Config{Name: "chain-test"}, scheme: runtime.NewScheme(),
				storage: &etcd3.StorageFactory{Client: client, Prefix: "/" + t.Name()}}, nil,
				func(*server.Server) error { installed++; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if installed != 1 {
				t.Errorf("installTyped ran %d times, want once", installed)
			}
			links := []server.DelegationTarget{c.top}
			for l := c.top.NextDelegate(); l != nil; l = l.NextDelegate() {
				links = append(links, l)
			}
			var want []server.DelegationTarget
			if tc.wantAggregator {
				if c.top == c.typed {
					t.Fatal("the aggregator is not the first link")
				}
				want = append(want, c.top)
			} else if c.top != c.typed {
				t.Fatal("the first link is not the typed groups' with apiregistration.k8s.io/v1 off")
			}
			want = append(want, c.typed)
			if tc.wantExtensions != (c.extensions != nil) {
				t.Fatalf("extensions = %v, want it: %v", c.extensions, tc.wantExtensions)
			}
			if tc.wantExtensions {
				want = append(want, c.extensions.Server, c.extensions.Server.NextDelegate())
			}
			if len(links) != len(want)+1 {
				t.Fatalf("%d links, want %d and not found", len(links), len(want))
			}
			for i, w := range want {
				if links[i] != w {
					t.Errorf("link %d is %T, want %T", i, links[i], w)
				}
			}
			if last := links[len(links)-1].UnprotectedHandler(); last == nil {
				t.Error("the last link has no handler")
			}
		})
	}
}
