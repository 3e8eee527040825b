package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/runtime/certs"
)

// AnchorVersion is the k8s.io/sample-apiserver release `make bench-anchor` installs: the
// k8s.io/apiserver of the same Kubernetes release as go.mod's.
const AnchorVersion = "v0.37.2"

// anchorPrefix is the anchor's --etcd-prefix on the benchmark's etcd: a prefix of its own
// beside apigen's (etcdPrefix) and the raw side's keys.
const anchorPrefix = "/anchor"

// noCoreAPI is the server the anchor's kubeconfigs name: nothing listens on port 1 of the
// loopback address, so a request of the anchor to a core kube-apiserver would fail (and show
// in its log) rather than reach one. With the flags of anchorArgs nothing sends one.
const noCoreAPI = "https://127.0.0.1:1"

// anchorDisabledAdmission are the admission plugins anchorArgs turns off: every one of the
// sample's that needs a core kube-apiserver (NamespaceLifecycle reads namespaces, the
// webhook and policy plugins read their configurations from informers of the core API), and
// the sample's own BanFlunder, which reads Fischers and has no counterpart in apigen's
// example server. The anchor then admits what apigen's example server admits without
// webhooks or policies.
var anchorDisabledAdmission = []string{"NamespaceLifecycle", "MutatingAdmissionPolicy", "MutatingAdmissionWebhook",
	"ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "BanFlunder"}

// anchorFiles are the files of the anchor's directory that anchorArgs names.
type anchorFiles struct {
	// pki is certs.EnsureSelfSigned's bundle: CA (--client-ca-file), serving certificate
	// and key (--tls-cert-file, --tls-private-key-file), admin client certificate (in
	// system:masters) for loadgen.
	pki *certs.Bundle
	// kubeconfig names noCoreAPI.
	kubeconfig string
	// certDir is --cert-dir (unused while the serving certificate is given; set so that
	// nothing is written to the working directory).
	certDir string
}

// anchorArgs returns the anchor's command line: k8s.io/sample-apiserver's RecommendedOptions
// run standalone, without a core kube-apiserver:
//
//   - HTTPS on 127.0.0.1:port with the bundle's serving certificate, client certificates
//     verified against its CA (--client-ca-file), and no lookup of the
//     extension-apiserver-authentication ConfigMap (--authentication-skip-lookup);
//   - system:masters always allowed (DelegatingAuthorizationOptions' AlwaysAllowGroups
//     default, which has no flag), as apigen allows its admin certificate;
//   - --kubeconfig, --authentication-kubeconfig and --authorization-kubeconfig name
//     noCoreAPI: RecommendedOptions' CoreAPI and the delegating authenticator and authorizer
//     fail without a kubeconfig outside a cluster; they build clients from it lazily, and no
//     request of the benchmark reaches them (client certificates in system:masters need no
//     TokenReview or SubjectAccessReview, no informer of the core API is started);
//   - API Priority and Fairness off (--enable-priority-and-fairness=false: it reads its
//     configuration from the core API; apigen has none either), admission plugins that need the
//     core API and BanFlunder off (anchorDisabledAdmission);
//   - storage on etcd (--etcd-servers) under anchorPrefix, the watch cache on (its default).
func anchorArgs(port int, etcd []string, f anchorFiles) []string {
	return []string{
		"--bind-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(port),
		"--cert-dir", f.certDir,
		"--tls-cert-file", f.pki.CertFile(certs.ServingName),
		"--tls-private-key-file", f.pki.KeyFile(certs.ServingName),
		"--client-ca-file", f.pki.CertFile(certs.CAName),
		"--authentication-skip-lookup",
		"--authentication-kubeconfig", f.kubeconfig,
		"--authorization-kubeconfig", f.kubeconfig,
		"--kubeconfig", f.kubeconfig,
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins", strings.Join(anchorDisabledAdmission, ","),
		"--etcd-servers", strings.Join(etcd, ","),
		"--etcd-prefix", anchorPrefix,
	}
}

// writeAnchorKubeconfig writes a kubeconfig naming noCoreAPI to path.
func writeAnchorKubeconfig(path string) error {
	const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: no-core-api
  cluster:
    server: ` + noCoreAPI + `
    insecure-skip-tls-verify: true
contexts:
- name: no-core-api
  context:
    cluster: no-core-api
    user: none
users:
- name: none
  user: {}
current-context: no-core-api
`
	return os.WriteFile(path, []byte(kubeconfig), 0o600)
}

// startAnchor starts the anchor, bin (k8s.io/sample-apiserver), with its files and log in
// dir, on etcd, on CPUs cpus (nil: unpinned), and waits until its /readyz answers 200 to the
// admin client certificate. Its stop sends SIGTERM and waits (SIGKILL after stopTimeout).
func startAnchor(ctx context.Context, bin, dir string, etcd []string, cpus []int) (*apiServer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	pki, err := certs.EnsureSelfSigned(filepath.Join(dir, "pki"), nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, fmt.Errorf("cannot make the anchor's certificates: %w", err)
	}
	admin, err := tls.LoadX509KeyPair(pki.CertFile(certs.AdminName), pki.KeyFile(certs.AdminName))
	if err != nil {
		return nil, err
	}
	files := anchorFiles{pki: pki, kubeconfig: filepath.Join(dir, "kubeconfig"), certDir: filepath.Join(dir, "certs")}
	if err := writeAnchorKubeconfig(files.kubeconfig); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "anchor.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := exec.Command(bin, anchorArgs(port, etcd, files)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Killed with loadgen, if loadgen dies before it stops the anchor (the anchor writes to a
	// file, so no broken pipe ends it).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if cpus != nil {
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(len(cpus)))
		err = bench.WithCPUs(cpus, cmd.Start)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		return nil, fmt.Errorf("cannot start the anchor %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop := func() error { return stopProcess(cmd, exited) }
	srv := &apiServer{url: fmt.Sprintf("https://127.0.0.1:%d", port), pid: cmd.Process.Pid, stop: stop,
		tls: &tls.Config{RootCAs: pki.CAPool, Certificates: []tls.Certificate{admin}}}
	if err := waitReady(ctx, srv, exited); err != nil {
		log, _ := os.ReadFile(logPath)
		return nil, errors.Join(fmt.Errorf("the anchor %s is not ready: %w\n%s", bin, err, tail(log, 4000)), stop())
	}
	return srv, nil
}

// waitReady polls srv's /readyz until it answers 200, for at most readyTimeout, or until the
// process exits.
func waitReady(ctx context.Context, srv *apiServer, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: srv.tls}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	for {
		err := readyz(ctx, client, srv.url)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("/readyz: %w (last: %v)", ctx.Err(), err)
		case <-exited:
			return errors.New("the process exited")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stopProcess sends cmd SIGTERM and waits for exited, killing it after stopTimeout.
func stopProcess(cmd *exec.Cmd, exited <-chan struct{}) error {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return nil
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		<-exited
		return fmt.Errorf("process %d did not exit within %s of SIGTERM; killed", cmd.Process.Pid, stopTimeout)
	}
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cannot find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// anchorSkip says why the anchor is not measured in o's run, or "" when it is.
func anchorSkip(o *options) string {
	switch {
	case o.anchorBinary == "":
		return "no -anchor-binary (make bench-anchor installs k8s.io/sample-apiserver " + AnchorVersion + ")"
	case o.inProcess:
		return "-in-process measures one server in loadgen's process"
	case !o.https:
		return "-transport http: the anchor serves HTTPS only"
	case o.etcd == etcdCluster:
		return "-etcd cluster measures replicas of apigen only"
	}
	return ""
}

// anchorRun is the anchor in a benchmark: its process, its scenario (the same workloads on
// Flunders, set up by benchmark), its memory sampler and its idle RSS.
type anchorRun struct {
	srv      *apiServer
	scenario *bench.Scenario
	mem      *bench.MemSampler
	cpu      func() (time.Duration, error)
	idle     bench.MemStatus
}

// startAnchorRun starts the anchor (startAnchor) and samples its memory.
func startAnchorRun(ctx context.Context, bin, dir string, etcd []string, cpus []int) (*anchorRun, error) {
	srv, err := startAnchor(ctx, bin, dir, etcd, cpus)
	if err != nil {
		return nil, err
	}
	mem, err := bench.StartMemSampler(srv.pid, sampleInterval)
	if err != nil {
		return nil, errors.Join(err, srv.stop())
	}
	return &anchorRun{srv: srv, mem: mem, cpu: cpuTimeSum([]int{srv.pid})}, nil
}

// stop stops the sampler and the anchor.
func (a *anchorRun) stop() error {
	a.mem.Stop()
	return a.srv.stop()
}

// measure runs op as cfg asks through the anchor (its CPU time as the server's) into row's
// anchor columns.
func (a *anchorRun) measure(ctx context.Context, cfg bench.Config, op string, row *bench.Row) error {
	newOp, err := a.scenario.ServerOp(ctx, op)
	if err != nil {
		return err
	}
	cfg.CPUTime = a.cpu
	a.mem.TakePeak()
	if row.Anchor, err = bench.Run(ctx, cfg, newOp); err != nil {
		return fmt.Errorf("anchor: %w", err)
	}
	row.HasAnchor, row.AnchorPeakRSS = true, a.mem.TakePeak()
	return nil
}

// peakRSS writes the anchor's peak RSS line and returns the peak: the larger of the highest
// sample and the kernel's VmHWM.
func (a *anchorRun) peakRSS(out io.Writer) (uint64, error) {
	peak, samples, last := a.mem.Peak()
	if err := a.mem.Err(); err != nil {
		return 0, fmt.Errorf("anchor memory sampling stopped early: %w", err)
	}
	fmt.Fprintf(out, "anchor peak RSS: VmRSS %.1f MiB sampled every %s (%d samples), VmHWM %.1f MiB\n",
		float64(peak)/(1<<20), sampleInterval, samples, float64(last.HWM)/(1<<20))
	return max(peak, last.HWM), nil
}

// anchorHeader writes the line that says where the anchor runs, or why it is not measured.
func anchorHeader(out io.Writer, o *options, a *anchorRun, etcd []string) {
	if a == nil {
		fmt.Fprintf(out, "anchor: not measured: %s\n", anchorSkip(o))
		return
	}
	fmt.Fprintf(out, "anchor: k8s.io/sample-apiserver %s (%s) %s on loadgen's etcd %s (--etcd-prefix %s), the same workloads on %s/%s %s "+
		"of the same size padded in metadata.annotations (%d-byte stored objects); HTTPS, client certificate in %s, HTTP/2, gzip accepted; no core kube-apiserver "+
		"(kubeconfigs naming %s, unused), --enable-priority-and-fairness=false, admission plugins off: %s; server/anchor = server ops/s / anchor ops/s\n",
		AnchorVersion, o.anchorBinary, a.srv.url, etcd[0], anchorPrefix, bench.Flunders.Group, bench.Flunders.Version, bench.Flunders.Resource,
		a.scenario.ObjectBytes(), certs.AdminGroup, noCoreAPI, strings.Join(anchorDisabledAdmission, ", "))
}
