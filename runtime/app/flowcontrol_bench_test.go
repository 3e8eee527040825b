package app

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// BenchmarkPriorityAndFairness measures what API Priority and Fairness is for: user reader's
// gets while user flooder floods lists (64 clients listing 200 ConfigMaps of 1 KiB each, as
// fast as they are answered; after a 429 each waits its Retry-After, a second, as client-go
// does) against the same gets alone (before and after the flood, their mean). The flooder is
// the tenant of floodConfig, with --max-requests-inflight=100 and
// --max-mutating-requests-inflight=50: one seat of 150 (one list at a time, about one core),
// one queue of 2; the reader is in kube's global-default level (13 seats). It
// reports the reader's p99 alone and under the flood, and their ratio (target <= 2), and the
// flooder's requests served and rejected per second; then the same against a server with
// --enable-priority-and-fairness=false (the max-in-flight limits alone), for comparison. One
// run (b.N is 1): the servers' starts are in it.
func BenchmarkPriorityAndFairness(b *testing.B) {
	on := measureFlood(b, true)
	off := measureFlood(b, false)
	b.ReportMetric(float64(on.alone.Microseconds())/1000, "p99-alone-ms")
	b.ReportMetric(float64(on.flooded.Microseconds())/1000, "p99-flood-ms")
	b.ReportMetric(on.ratio(), "p99-flood/alone")
	b.ReportMetric(off.ratio(), "no-apf-p99-flood/alone")
	b.ReportMetric(on.served, "flood-served/s")
	b.ReportMetric(on.rejected, "flood-429/s")
	b.Logf("reader p99 alone %v, under the flood %v: %.2fx (target <= 2x); flooder served %.0f/s, 429 %.0f/s", on.alone, on.flooded, on.ratio(), on.served, on.rejected)
	b.Logf("with --enable-priority-and-fairness=false (max-in-flight): alone %v, under the flood %v: %.2fx; flooder served %.0f/s, 429 %.0f/s", off.alone, off.flooded, off.ratio(), off.served, off.rejected)
}

// floodFigures are one server's figures: the reader's p99 alone and under the flood, and the
// flooder's answers per second.
type floodFigures struct {
	alone, flooded   time.Duration
	served, rejected float64
}

// ratio is the reader's p99 under the flood over alone.
func (f floodFigures) ratio() float64 { return float64(f.flooded) / float64(f.alone) }

// measureFlood starts a server (API Priority and Fairness on or off) and measures.
func measureFlood(b *testing.B, apf bool) floodFigures {
	_, kubeconfig := startArgs(b, []string{"--plain-http=false", fmt.Sprintf("--enable-priority-and-fairness=%v", apf), "--max-requests-inflight=100", "--max-mutating-requests-inflight=50"})
	kubectl := func(args ...string) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	kubectl("create", "clusterrolebinding", "apf-bench", "--clusterrole=cluster-admin", "--user=flooder", "--user=reader")
	manifest := filepath.Join(b.TempDir(), "flood.yaml")
	if err := os.WriteFile(manifest, []byte(floodConfig), 0o600); err != nil {
		b.Fatal(err)
	}
	kubectl("apply", "-f", manifest)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	data := map[string]string{"v": strings.Repeat("x", 1024)}
	for i := range 200 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: data}
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	_, get := apfClient(b, kubeconfig)
	// The flood's schema classifies flooder once the watch delivered it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if code, _, _ := get("flooder", "/api/v1/namespaces/default/configmaps"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("flooder not served")
		}
	}
	const samples = 400
	p99 := func() time.Duration {
		var d []time.Duration
		for range samples {
			start := time.Now()
			if code, _, _ := get("reader", "/api/v1/namespaces/default/configmaps/cm-1"); code != http.StatusOK {
				b.Fatalf("reader: %d", code)
			}
			d = append(d, time.Since(start))
		}
		slices.Sort(d)
		return d[len(d)*99/100]
	}
	alone := p99()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, _, _ := get("flooder", "/api/v1/namespaces/default/configmaps")
				mu.Lock()
				codes[code]++
				mu.Unlock()
				if code == http.StatusTooManyRequests { // Retry-After: 1, honored as client-go does
					select {
					case <-stop:
					case <-time.After(time.Second):
					}
				}
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // the flood under way
	floodStart := time.Now()
	flooded := p99()
	floodTime := time.Since(floodStart)
	close(stop)
	wg.Wait()
	// Alone again after the flood: the mean of the two is the figure, so that a spell of
	// other load on the machine during one of them weighs half.
	alone = (alone + p99()) / 2
	return floodFigures{alone: alone, flooded: flooded,
		served: float64(codes[http.StatusOK]) / floodTime.Seconds(), rejected: float64(codes[http.StatusTooManyRequests]) / floodTime.Seconds()}
}
