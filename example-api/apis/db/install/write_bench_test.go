package install_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/example-api/apis/db/install"
	"github.com/apigen-dev/apigen/runtime/app"
)

// BenchmarkWrite measures a whole create and a whole update of the benchmark's Database
// (about 1 KiB of JSON, as example-api/bench's objects) through the server as it runs: the
// example API served by app.Run in this process on its embedded etcd, over plain HTTP/1.1
// (--plain-http: no TLS, no authentication), one client sending one request at a time. An
// update replaces one object again and again with its last resourceVersion, as loadgen's
// update row does. B/op and allocs/op are the whole process's (the server, its embedded
// etcd and the client, whose share is small and fixed), and so is cpu-ns/op, the CPU time
// (user and system, getrusage) per operation: compare them before and after a change with
// `go test -run '^$' -bench Write -count 6 ./example-api/apis/db/install`.
func BenchmarkWrite(b *testing.B) {
	base := startServer(b)
	client := &http.Client{Timeout: time.Minute}
	defer client.CloseIdleConnections()
	post(b, client, base+"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}}`, http.StatusCreated)
	databases := base + "/apis/db.example.com/v1/namespaces/bench/databases"
	i := 0 // every object's name and seq are new: b.Run calls each function more than once
	b.Run("create", func(b *testing.B) {
		measure(b, func() {
			i++
			post(b, client, databases, benchDatabaseJSON(fmt.Sprintf("create-%d", i), "", i), http.StatusCreated)
		})
	})
	b.Run("update", func(b *testing.B) {
		i++
		name := fmt.Sprintf("update-%d", i)
		rv := resourceVersion(b, post(b, client, databases, benchDatabaseJSON(name, "", i), http.StatusCreated))
		measure(b, func() {
			i++
			rv = resourceVersion(b, send(b, client, http.MethodPut, databases+"/"+name, benchDatabaseJSON(name, rv, i), http.StatusOK))
		})
	})
}

// measure runs op b.N times with allocations and CPU time (reportCPU) reported.
func measure(b *testing.B, op func()) {
	op() // the first request of a kind builds what later ones reuse (field manager, encoders)
	b.ReportAllocs()
	b.ResetTimer()
	report := reportCPU(b)
	for range b.N {
		op()
	}
	b.StopTimer()
	report()
}

// benchDatabaseJSON is the JSON of the v1 Database name as benchDatabase builds it, with
// resourceVersion rv unless it is "".
func benchDatabaseJSON(name, rv string, seq int) string {
	var sb strings.Builder
	sb.WriteString(`{"apiVersion":"db.example.com/v1","kind":"Database","metadata":{"name":"` + name + `"`)
	if rv != "" {
		sb.WriteString(`,"resourceVersion":"` + rv + `"`)
	}
	sb.WriteString(`},"spec":{"engine":"postgres","parameters":{"seq":"` + strconv.Itoa(seq) + `"`)
	for i := range 40 {
		fmt.Fprintf(&sb, `,"p%03d":"xxxxxxxxxxxxxxxx"`, i)
	}
	sb.WriteString(`}}}`)
	return sb.String()
}

// post sends a POST, see send.
func post(b *testing.B, client *http.Client, url, body string, want int) []byte {
	return send(b, client, http.MethodPost, url, body, want)
}

// send sends a JSON request and returns the response body; a status other than want fails b.
func send(b *testing.B, client *http.Client, method, url, body string, want int) []byte {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != want {
		b.Fatalf("%s %s: %d, want %d: %s", method, url, resp.StatusCode, want, data)
	}
	return data
}

// resourceVersion returns the metadata.resourceVersion of a served object.
func resourceVersion(b *testing.B, data []byte) string {
	var obj struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &obj); err != nil || obj.Metadata.ResourceVersion == "" {
		b.Fatalf("no resourceVersion in %s (%v)", data, err)
	}
	return obj.Metadata.ResourceVersion
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
