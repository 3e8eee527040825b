package scaffold_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// userCommands is what a user types from nothing to a served `kubectl get orders`, as the
// new repository's README says (cd not counted):
//
//	apigen init example.com/shop
//	go tool apigen create api --group shop.example.com --version v1 --kind Order
//	go generate ./...
//	make run
//	kubectl get orders
const userCommands = 5

// BenchmarkInitToServed measures, per iteration and with a warm module and build cache,
// the time from `apigen init` to a `kubectl get orders` answered by the new server: init
// (with its go mod tidy), create api, go generate, make build (make run's build step),
// starting the server until ready (make run's run step) and kubectl get orders. The apigen
// binary is built from this checkout before the timer starts. It reports ns/op, the user's
// commands and each phase's share in ms.
func BenchmarkInitToServed(b *testing.B) {
	if _, err := os.Stat(kubectlPath); err != nil {
		b.Skipf("kubectl is required at %s: %v", kubectlPath, err)
	}
	apigen := buildApigen(b, b.TempDir())
	phases := map[string]time.Duration{}
	const long = 10 * time.Minute
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		repo := filepath.Join(tmp, "shop")
		phase := func(name string, f func()) {
			start := time.Now()
			f()
			phases[name] += time.Since(start)
		}
		phase("init", func() { runIn(b, tmp, long, apigen, "init", "example.com/shop") })
		phase("create", func() {
			runIn(b, repo, long, "go", "tool", "apigen", "create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Order")
		})
		phase("generate", func() { runIn(b, repo, long, "go", "generate", "./...") })
		phase("build", func() { runIn(b, repo, long, "make", "build") })
		var srv *server
		phase("start", func() { srv = startServer(b, filepath.Join(repo, "bin", "shop-apiserver"), filepath.Join(tmp, "data")) })
		phase("kubectl", func() {
			if out := srv.kubectl(b, "get", "orders"); !strings.Contains(out, "No resources found") {
				b.Fatalf("kubectl get orders: %s", out)
			}
		})
		b.StopTimer()
		srv.stop(b)
		b.StartTimer()
	}
	b.ReportMetric(userCommands, "user-commands")
	for name, d := range phases {
		b.ReportMetric(float64(d.Milliseconds())/float64(b.N), fmt.Sprintf("%s-ms/op", name))
	}
}
