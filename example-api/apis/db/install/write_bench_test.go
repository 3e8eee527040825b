package install_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/example-api/apis/db/install"
	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/runtime/app"
)

// BenchmarkWrite measures a whole create and a whole update of the benchmark's Database
// (about 1 KiB of JSON: example-api/bench's ObjectTemplate, sent by its APIClient as loadgen
// sends it) through the server as it runs: the example API served by app.Run in this process
// on its embedded etcd, over plain HTTP/1.1 (--plain-http: no TLS, no authentication), one
// client sending one request at a time. An update replaces one object again and again with
// its last resourceVersion, as loadgen's update row does. B/op and allocs/op are the whole
// process's (the server, its embedded etcd and the client, whose share is small and fixed),
// and so is cpu-ns/op, the CPU time (user and system, getrusage) per operation: compare them
// before and after a change with
// `go test -run '^$' -bench Write -count 6 ./example-api/apis/db/install`.
func BenchmarkWrite(b *testing.B) {
	ctx := b.Context()
	tmpl, err := bench.NewObjectTemplate(1024)
	if err != nil {
		b.Fatal(err)
	}
	client := bench.NewAPIClient(startServer(b), tmpl, nil)
	defer client.Close()
	if err := client.CreateNamespace(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	i := 0 // every object's name and seq are new: b.Run calls each function more than once
	b.Run("create", func(b *testing.B) {
		measure(b, func() error {
			i++
			_, err := client.Create(ctx, "bench", fmt.Sprintf("create-%d", i), i)
			return err
		})
	})
	b.Run("update", func(b *testing.B) {
		i++
		name := fmt.Sprintf("update-%d", i)
		rv, err := client.Create(ctx, "bench", name, i)
		if err != nil {
			b.Fatal(err)
		}
		measure(b, func() error {
			i++
			rv, err = client.Update(ctx, "bench", name, rv, i)
			return err
		})
	})
}

// measure runs op b.N times with allocations and CPU time (reportCPU) reported; an error
// fails b.
func measure(b *testing.B, op func() error) {
	// The first request of a kind builds what later ones reuse (field manager, encoders).
	if err := op(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	report := reportCPU(b)
	for range b.N {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report()
}

// servingLine is the server's readiness line; it captures the server's URL.
var servingLine = regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+) `)

// startServer runs the example API with app.Run in this process, on its embedded etcd in a
// temporary directory, over plain HTTP on a free loopback port, and returns its URL; the
// server stops when b ends.
func startServer(b *testing.B) string {
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stdoutW := io.Pipe()
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	args := []string{"--data-dir=" + b.TempDir(), "--secure-port=0", "--plain-http", "--log-level=error"}
	go func() {
		code := app.Run(ctx, "bench-apiserver", args, stdoutW, &stderr, install.NewAPIGroupInfo)
		stdoutW.Close()
		exited <- code
	}()
	b.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(time.Minute):
			b.Error("the server did not stop within 1m")
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if m := servingLine.FindStringSubmatch(lines.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return m[1]
		}
	}
	b.Fatalf("the server exited before serving: %s", stderr.String())
	return ""
}
