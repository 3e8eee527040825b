package app

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// singletonLeases are the Leases of the controllers that run in one replica at a time: those
// the built-in table declares.
var singletonLeases = tableControllers()

// TestLeaderElection runs two servers on one etcd: each singleton controller's Lease in
// kube-system is held by one of them; when the holder stops (cleanly, releasing its Leases)
// the other takes each over and runs the controller (a namespace deleted through it is
// finalized).
func TestLeaderElection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	_, member := etcdtest.Run(t)
	flags := []string{"--etcd-servers=" + strings.Join(member.Endpoints(), ","),
		"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=200ms"}
	ctxA, stopA := context.WithCancel(context.Background())
	_, kubeconfigA := startWith(t, stopA, func(args []string, stdout, stderr io.Writer) int {
		return Run(ctxA, "test-apiserver", append(args, flags...), stdout, stderr, testGroup)
	})
	clientA := kubeClient(t, kubeconfigA)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	holders := func(c *kubernetes.Clientset) map[string]string {
		out := map[string]string{}
		for _, name := range singletonLeases {
			if l, err := c.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{}); err == nil &&
				l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
				out[name] = *l.Spec.HolderIdentity
			}
		}
		return out
	}
	// A alone takes every Lease.
	var a string
	waitUntil(t, 20*time.Second, "A to hold every singleton Lease", func() bool {
		h := holders(clientA)
		a = h[singletonLeases[0]]
		for _, name := range singletonLeases {
			if h[name] == "" || h[name] != a {
				return false
			}
		}
		return true
	})
	// Those are every Lease in kube-system: the table declares every controller it adds.
	leases, err := clientA.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range leases.Items {
		names = append(names, l.Name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(singletonLeases))) {
		t.Errorf("Leases in kube-system %q, want the built-in table's controllers %q", names, singletonLeases)
	}

	// B starts and campaigns, but A keeps every Lease while it runs.
	_, kubeconfigB := startArgs(t, flags, testGroup)
	clientB := kubeClient(t, kubeconfigB)
	time.Sleep(time.Second) // five retry periods of B's campaigns
	for name, h := range holders(clientB) {
		if h != a {
			t.Errorf("Lease %s moved to %s while its holder %s runs", name, h, a)
		}
	}

	// Stop A: it releases its Leases and B takes each over, well within a lease duration.
	stopA()
	waitUntil(t, 10*time.Second, "B to hold every Lease A held", func() bool {
		h := holders(clientB)
		b := h[singletonLeases[0]]
		for _, name := range singletonLeases {
			if h[name] == "" || h[name] == a || h[name] != b {
				return false
			}
		}
		return true
	})

	// B runs the namespace controller now: a deleted namespace is finalized and removed.
	if _, err := clientB.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := clientB.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 20*time.Second, "the namespace finalized by B's controller", func() bool {
		_, err := clientB.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return err != nil && strings.Contains(err.Error(), "not found")
	})
}

// kubeClient is a client-go clientset of the server whose kubeconfig is path.
func kubeClient(t *testing.T, path string) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitUntil polls cond every 50ms until it holds, failing t after within.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
