package app

import (
	"bytes"
	"context"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// TestClusterAuthenticationConfigMap starts an HTTPS server with a client CA and front-proxy
// flags, as a cluster a delegating API server runs against: it publishes
// kube-system/extension-apiserver-authentication with kube-apiserver's keys and values, puts
// it back when it is deleted, changed or made immutable, and a user bound (RoleBinding) to the
// bootstrap Role extension-apiserver-authentication-reader may read it and no other ConfigMap.
func TestClusterAuthenticationConfigMap(t *testing.T) {
	dir := t.TempDir()
	clients, proxy := selfSigned(t, dir, "clients"), selfSigned(t, dir, "front-proxy")
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("ext-token,system:serviceaccount:ext:apiserver,u-1,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, kubeconfig := startArgs(t, []string{"--plain-http=false", "--token-auth-file=" + tokens,
		"--client-ca-file=" + clients.CertFile(certs.CAName),
		"--requestheader-client-ca-file=" + proxy.CertFile(certs.CAName),
		"--requestheader-allowed-names=front-proxy-client,aggregator",
		"--requestheader-username-headers=X-Remote-User,X-Forwarded-User"}, testGroup)
	cs := kubeClient(t, kubeconfig)
	ctx := context.Background()
	configMaps := cs.CoreV1().ConfigMaps(metav1.NamespaceSystem)

	// published: waits for the ConfigMap with the wanted data and returns it.
	published := func(what string) *corev1.ConfigMap {
		t.Helper()
		var cm *corev1.ConfigMap
		waitUntil(t, 30*time.Second, what, func() bool {
			got, err := configMaps.Get(ctx, ClusterAuthenticationName, metav1.GetOptions{})
			if err != nil || len(got.Data) != 6 {
				return false
			}
			cm = got
			return true
		})
		return cm
	}
	cm := published("the ConfigMap")
	waitUntil(t, 30*time.Second, "the hook ready", func() bool {
		return strings.Contains(runKubectl(t, kubeconfig, "get", "--raw", "/readyz?verbose"), "[+]poststarthook/"+clusterAuthenticationHook+" ok")
	})
	certsOf := func(files ...string) []*x509.Certificate {
		var all []*x509.Certificate
		for _, f := range files {
			cs, err := cert.CertsFromFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, cs...)
		}
		return all
	}
	same := func(key string, want []*x509.Certificate) {
		t.Helper()
		got, err := cert.ParseCertsPEM([]byte(cm.Data[key]))
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if !slices.EqualFunc(got, want, func(a, b *x509.Certificate) bool { return bytes.Equal(a.Raw, b.Raw) }) {
			t.Errorf("%s holds %d certificates, not the %d wanted:\n%s", key, len(got), len(want), cm.Data[key])
		}
	}
	// --client-ca-file's CA, then the server's own, which signs the kubeconfig's admin certificate.
	same(ClientCAKey, certsOf(clients.CertFile(certs.CAName), filepath.Join(filepath.Dir(kubeconfig), "pki", "ca.crt")))
	same(RequestHeaderClientCAKey, certsOf(proxy.CertFile(certs.CAName)))
	want := map[string]string{
		RequestHeaderUsernameHeadersKey:    `["X-Remote-User","X-Forwarded-User"]`,
		RequestHeaderGroupHeadersKey:       `["X-Remote-Group"]`,
		RequestHeaderExtraHeadersPrefixKey: `["X-Remote-Extra-"]`,
		RequestHeaderAllowedNamesKey:       `["front-proxy-client","aggregator"]`,
	}
	for k, v := range want {
		if cm.Data[k] != v {
			t.Errorf("%s = %q, want %q", k, cm.Data[k], v)
		}
	}
	data := cm.Data

	// Deleted, it comes back (a watch reports the deletion).
	start := time.Now()
	if err := configMaps.Delete(ctx, ClusterAuthenticationName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	again := published("the ConfigMap recreated")
	if again.UID == cm.UID || !cmp.Equal(again.Data, data) {
		t.Errorf("recreated ConfigMap: uid %s (was %s), data (-want +got):\n%s", again.UID, cm.UID, cmp.Diff(data, again.Data))
	}
	t.Logf("recreated %v after its deletion", time.Since(start))

	// Changed, its data is put back; made immutable with other data, it is replaced.
	again.Data = map[string]string{ClientCAKey: "not a CA", "extra": "x"}
	if _, err := configMaps.Update(ctx, again, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "the changed ConfigMap's data put back", func() bool {
		got, err := configMaps.Get(ctx, ClusterAuthenticationName, metav1.GetOptions{})
		return err == nil && cmp.Equal(got.Data, data)
	})
	frozen, err := configMaps.Get(ctx, ClusterAuthenticationName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	frozen.Immutable, frozen.Data = &yes, map[string]string{"frozen": "x"}
	if _, err := configMaps.Update(ctx, frozen, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "the immutable ConfigMap replaced", func() bool {
		got, err := configMaps.Get(ctx, ClusterAuthenticationName, metav1.GetOptions{})
		return err == nil && cmp.Equal(got.Data, data) && got.Immutable == nil && got.UID != frozen.UID
	})

	// The bootstrap Role, bound to a delegating server's service account: it reads this
	// ConfigMap and no other.
	if out := runKubectl(t, kubeconfig, "get", "role", "-n", "kube-system", "extension-apiserver-authentication-reader",
		"-o", "jsonpath={.rules[0].verbs} {.rules[0].resources} {.rules[0].resourceNames}"); out != `["get","list","watch"] ["configmaps"] ["extension-apiserver-authentication"]` {
		t.Errorf("bootstrap role: %s", out)
	}
	runKubectl(t, kubeconfig, "create", "rolebinding", "-n", "kube-system", "ext-auth-reader",
		"--role=extension-apiserver-authentication-reader", "--serviceaccount=ext:apiserver")
	runKubectl(t, kubeconfig, "create", "configmap", "-n", "kube-system", "other", "--from-literal=a=b")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CertFile, cfg.KeyFile, cfg.BearerToken = "", "", "ext-token"
	cfg.CertData, cfg.KeyData = nil, nil
	ext, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, "the service account reading the ConfigMap", func() bool {
		_, err := ext.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, ClusterAuthenticationName, metav1.GetOptions{})
		return err == nil
	})
	if _, err := ext.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, "other", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the service account read another ConfigMap: %v", err)
	}
}

// TestConfigMaps serves ConfigMaps as kube-apiserver: kubectl creates and lists them (with
// the DATA column), client-go's typed clientset creates, updates and deletes them in
// protobuf, the validation errors are kube's (422 Invalid with field causes), and a deleted
// namespace's ConfigMaps go with it. With --plain-http no authentication ConfigMap is
// published.
func TestConfigMaps(t *testing.T) {
	_, kubeconfig := start(t, testGroup)
	runKubectl(t, kubeconfig, "create", "namespace", "team-a")
	runKubectl(t, kubeconfig, "create", "configmap", "settings", "-n", "team-a", "--from-literal=a=1", "--from-literal=b=2")
	out := runKubectl(t, kubeconfig, "get", "configmaps", "-A")
	if !regexp.MustCompile(`(?m)^NAMESPACE\s+NAME\s+DATA\s+AGE\n`).MatchString(out) || !regexp.MustCompile(`(?m)^team-a\s+settings\s+2\s+\d+s$`).MatchString(out) {
		t.Errorf("kubectl get configmaps -A:\n%s", out)
	}
	if strings.Contains(out, ClusterAuthenticationName) {
		t.Errorf("plain HTTP published the authentication ConfigMap:\n%s", out)
	}
	if out := runKubectl(t, kubeconfig, "get", "cm", "settings", "-n", "team-a", "-o", "jsonpath={.data.b}"); out != "2" {
		t.Errorf("kubectl get cm settings: %q", out)
	}
	// kubectl apply (a strategic merge patch the second time) and server-side apply.
	manifest := filepath.Join(t.TempDir(), "cm.yaml")
	apply := func(name, data string, flags ...string) {
		t.Helper()
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: team-a\ndata:\n" + data
		if err := os.WriteFile(manifest, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		runKubectl(t, kubeconfig, append([]string{"apply", "-f", manifest}, flags...)...)
	}
	for _, flags := range [][]string{nil, {"--server-side"}} {
		name := "applied" + strings.Join(flags, "")
		apply(name, "  a: \"1\"\n  b: \"2\"\n", flags...)
		apply(name, "  a: \"1\"\n  c: \"3\"\n", flags...)
		if out := runKubectl(t, kubeconfig, "get", "cm", name, "-n", "team-a", "-o", "jsonpath={.data}"); out != `{"a":"1","c":"3"}` {
			t.Errorf("kubectl apply %v twice: data %s", flags, out)
		}
	}

	// client-go's typed clientset, recording the content type of what it writes.
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent []string
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost || r.Method == http.MethodPut {
				mu.Lock()
				sent = append(sent, r.Method+" "+r.Header.Get("Content-Type"))
				mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	configMaps := cs.CoreV1().ConfigMaps("team-a")
	created, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "typed"},
		Data: map[string]string{"config.yaml": "a: 1\n"}, BinaryData: map[string][]byte{"blob": {0xff, 0x00}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Data["more"] = "x"
	updated, err := configMaps.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := configMaps.Get(ctx, "typed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"config.yaml": "a: 1\n", "more": "x"}; !cmp.Equal(got.Data, want) || !bytes.Equal(got.BinaryData["blob"], []byte{0xff, 0x00}) ||
		got.ResourceVersion != updated.ResourceVersion {
		t.Errorf("typed ConfigMap after update: %+v", got)
	}
	if err := configMaps.Delete(ctx, "typed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := configMaps.Get(ctx, "typed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("typed ConfigMap after delete: %v", err)
	}
	mu.Lock()
	if want := []string{"POST application/vnd.kubernetes.protobuf", "PUT application/vnd.kubernetes.protobuf"}; !cmp.Equal(sent, want) {
		t.Errorf("the clientset sent %q, want %q", sent, want)
	}
	mu.Unlock()

	// Validation: kube's 422 Invalid, with a cause per field.
	invalid := func(what string, err error, field, message string) {
		t.Helper()
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			t.Errorf("%s: %v, want 422 Invalid", what, err)
			return
		}
		s := status.Status()
		if s.Code != http.StatusUnprocessableEntity || s.Reason != metav1.StatusReasonInvalid || s.Details == nil ||
			!slices.ContainsFunc(s.Details.Causes, func(c metav1.StatusCause) bool { return c.Field == field }) ||
			!strings.Contains(s.Message, message) {
			t.Errorf("%s: %d %s %q %+v; want 422 Invalid on %s with %q", what, s.Code, s.Reason, s.Message, s.Details, field, message)
		}
	}
	yes := true
	frozen, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "frozen"}, Immutable: &yes,
		Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	frozen.Data["a"] = "2"
	_, err = configMaps.Update(ctx, frozen, metav1.UpdateOptions{})
	invalid("changing an immutable ConfigMap's data", err, "data", `ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `+"`immutable`"+` is set`)
	frozen.Data["a"], frozen.Immutable = "1", nil
	_, err = configMaps.Update(ctx, frozen, metav1.UpdateOptions{})
	invalid("unsetting immutable", err, "immutable", "immutable: Forbidden: field is immutable when `immutable` is set")
	frozen.Immutable, frozen.Labels = &yes, map[string]string{"metadata": "changes"}
	if _, err := configMaps.Update(ctx, frozen, metav1.UpdateOptions{}); err != nil {
		t.Errorf("changing an immutable ConfigMap's labels: %v", err)
	}
	_, err = configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad-key"}, Data: map[string]string{"a/b": ""}}, metav1.CreateOptions{})
	invalid("a key with a slash", err, "data[a/b]", "a valid config key must consist of alphanumeric characters, '-', '_' or '.'")
	_, err = configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dup-key"}, Data: map[string]string{"k": ""},
		BinaryData: map[string][]byte{"k": {1}}}, metav1.CreateOptions{})
	invalid("a key in data and binaryData", err, "data[k]", "duplicate of key present in binaryData")
	half := strings.Repeat("x", 512*1024)
	_, err = configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "too-big"}, Data: map[string]string{"a": half, "b": half + "x"}}, metav1.CreateOptions{})
	invalid("more than 1 MiB", err, "[]", "Too long: may not be more than 1048576 bytes")

	// The namespace controller deletes a terminating namespace's ConfigMaps.
	if err := cs.CoreV1().Namespaces().Delete(ctx, "team-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 60*time.Second, "namespace team-a finalized", func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "team-a", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	list, err := configMaps.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("ConfigMaps left in the deleted namespace: %v %v", list, err)
	}
}

// roundTripFunc is an http.RoundTripper calling itself.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
