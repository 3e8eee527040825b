package config_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/internal/deploycheck"
	"github.com/apigen-dev/apigen/runtime/app"
	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestDeploymentServes runs example-apiserver in-process (app.Run) as the Deployment of
// example-api/config/deploy runs it: with its container's arguments, every volume the pod
// mounts made in a temporary directory (the emptyDir empty, the ConfigMaps of the manifests
// with their data, the Secret made at deploy time, as the README says, with a serving
// certificate made here), an embedded etcd for the one of --etcd-servers, a loopback address
// on a free port for --bind-address and --secure-port, and, for the in-cluster configuration
// it delegates to, --authentication-kubeconfig and --authorization-kubeconfig naming a second
// server that plays the cluster (its extension-apiserver-authentication ConfigMap names the
// front-proxy CA made here). The readiness and liveness probes then answer over HTTPS; a
// request the way the aggregator forwards it (the front proxy's client certificate,
// X-Remote-User and X-Remote-Group) creates a Database in a namespace this server never saw
// (the cluster's namespaces are not its own); the same headers without that certificate are
// refused.
func TestDeploymentServes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server; skipped in -short mode")
	}
	m, err := deploycheck.Build("deploy")
	if err != nil {
		t.Fatal(err)
	}
	var deploy appsv1.Deployment
	configMaps := map[string]map[string]string{}
	for _, o := range m.Objects {
		switch o.GetKind() {
		case "Deployment":
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &deploy)
		case "ConfigMap":
			var cm corev1.ConfigMap
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &cm)
			configMaps[cm.Name] = cm.Data
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	pki, err := certs.EnsureSelfSigned(t.TempDir(), []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// What the README has the operator create before the first apply; the CA of pki stands
	// for both the serving certificate's and the cluster's front-proxy CA.
	secrets := map[string]map[string]string{"example-apiserver-tls": {
		"tls.crt": read(pki.CertFile(certs.ServingName)), "tls.key": read(pki.KeyFile(certs.ServingName))}}
	cluster := startCluster(t, pki)

	volumes := map[string]string{} // volume name -> directory
	for _, v := range deploy.Spec.Template.Spec.Volumes {
		var files map[string]string
		switch {
		case v.EmptyDir != nil:
		case v.Secret != nil && secrets[v.Secret.SecretName] != nil:
			files = secrets[v.Secret.SecretName]
		case v.ConfigMap != nil && configMaps[v.ConfigMap.Name] != nil:
			files = configMaps[v.ConfigMap.Name]
		default:
			t.Fatalf("volume %s: neither the manifests nor the README's steps make it", v.Name)
		}
		volumes[v.Name] = writeFiles(t, files)
	}
	container := deploy.Spec.Template.Spec.Containers[0]
	etcd, _ := etcdtest.Run(t)
	var args []string
	for _, arg := range container.Args {
		name, value, _ := strings.Cut(arg, "=")
		switch name {
		case "--bind-address":
			value = "127.0.0.1"
		case "--secure-port":
			value = "0"
		case "--etcd-servers":
			value = strings.Join(etcd.Endpoints(), ",")
		case "--shutdown-delay-duration":
			value = "0s" // no load balancer to wait for
		}
		for _, mount := range container.VolumeMounts {
			if rest, ok := strings.CutPrefix(value, mount.MountPath); ok && (rest == "" || rest[0] == '/') {
				value = volumes[mount.Name] + rest
			}
		}
		args = append(args, name+"="+value)
	}
	// The in-cluster configuration a pod delegates to: here the server playing the cluster.
	args = append(args, "--authentication-kubeconfig="+cluster, "--authorization-kubeconfig="+cluster)

	var groups []app.GroupBuilder
	for _, b := range installed {
		groups = append(groups, b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	exited := make(chan int, 1)
	go func() { exited <- app.Run(ctx, "example-apiserver", args, &stdout, &stderr, groups...) }()
	defer func() {
		cancel()
		select {
		case code := <-exited:
			if code != 0 {
				t.Errorf("example-apiserver exited %d:\n%s", code, stderr.String())
			}
		case <-time.After(time.Minute):
			t.Error("example-apiserver did not stop within 1m")
		}
	}()
	base := waitServing(t, &stdout, &stderr, exited)

	caPool := x509.NewCertPool()
	caPool.AppendCertsFromPEM([]byte(read(pki.CertFile(certs.CAName))))
	frontProxy, err := tls.LoadX509KeyPair(pki.CertFile(certs.AdminName), pki.KeyFile(certs.AdminName))
	if err != nil {
		t.Fatal(err)
	}
	kubelet := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool}}}
	aggregator := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool, Certificates: []tls.Certificate{frontProxy}}}}
	for _, probe := range []*corev1.Probe{container.ReadinessProbe, container.LivenessProbe} {
		url := fmt.Sprintf("%s://%s%s", strings.ToLower(string(probe.HTTPGet.Scheme)), strings.TrimPrefix(base, "https://"), probe.HTTPGet.Path)
		if code, body := do(t, kubelet, http.MethodGet, url, "", nil); code != http.StatusOK {
			t.Errorf("probe GET %s: %d %s", url, code, body)
		}
	}
	asAlice := map[string]string{"X-Remote-User": "alice", "X-Remote-Group": "system:masters"}
	databases := base + "/apis/db.example.com/v1/namespaces/team-a/databases"
	body := `{"apiVersion":"db.example.com/v1","kind":"Database","metadata":{"name":"orders"},"spec":{"engine":"postgres","version":"16"}}`
	if code, resp := do(t, aggregator, http.MethodPost, databases, body, asAlice); code != http.StatusCreated {
		t.Errorf("POST %s through the front proxy: %d %s", databases, code, resp)
	}
	if code, resp := do(t, kubelet, http.MethodGet, databases, "", asAlice); code != http.StatusUnauthorized {
		t.Errorf("GET %s with X-Remote-User but no front-proxy certificate: %d, want 401\n%s", databases, code, resp)
	}
}

// startCluster runs a server in-process that plays the cluster: its
// extension-apiserver-authentication ConfigMap names the CA of pki as the front proxy's, with
// its certificate's CommonName allowed; it returns the server's kubeconfig and stops it in
// t.Cleanup.
func startCluster(t *testing.T, pki *certs.Bundle) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- app.Run(ctx, "cluster", []string{"--data-dir=" + dir, "--secure-port=0",
			"--requestheader-client-ca-file=" + pki.CertFile(certs.CAName), "--requestheader-allowed-names=" + certs.AdminUser,
			"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group"}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(time.Minute):
			t.Error("the cluster's server did not stop within 1m")
		}
	})
	waitServing(t, &stdout, &stderr, exited)
	return filepath.Join(dir, "kubeconfig")
}

// writeFiles writes files (name -> content) to a new temporary directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// waitServing waits for the readiness line on stdout and returns the URL it names.
func waitServing(t *testing.T, stdout, stderr *syncBuffer, exited chan int) string {
	t.Helper()
	serving := regexp.MustCompile(`serving on (https://127\.0\.0\.1:[0-9]+)`)
	deadline := time.After(time.Minute)
	for {
		if m := serving.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-exited:
			exited <- code
			t.Fatalf("example-apiserver exited %d before serving:\n%s", code, stderr.String())
		case <-deadline:
			t.Fatalf("example-apiserver not serving within 1m:\n%s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// do sends a request with headers and returns the status code and body.
func do(t *testing.T, c *http.Client, method, url, body string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
