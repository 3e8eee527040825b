package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestRBACFollowsWatch checks that authorization never answers from a policy older than what
// the RBAC watches delivered, as kube-apiserver's informer-fed RBAC authorizer: after a quiet
// spell of 0, 2 or 10 s, a RoleBinding is created (or deleted), the test waits for its own
// watch to deliver the event (the write acknowledged plus the watch delay), and the very
// next request of the bound user is allowed (or denied). The spells run in parallel, each
// with its own user, so the test costs about 10 s.
func TestRBACFollowsWatch(t *testing.T) {
	_, kubeconfig := startArgs(t, []string{"--plain-http=false"}, testGroup)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	admin := kubeClient(t, kubeconfig)
	ctx := context.Background()
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "configmap-reader"},
		Rules:      []rbacv1.PolicyRule{{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bindings := admin.RbacV1().RoleBindings("default")
	// as lists ConfigMaps in default as user: nil when allowed, the error (403) when not.
	as := func(user string) error {
		c := rest.CopyConfig(cfg)
		c.Impersonate = rest.ImpersonationConfig{UserName: user}
		cs, err := kubernetes.NewForConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		return err
	}
	// await writes (create or delete the binding name) and returns once the test's own watch of
	// that binding delivered an event of type want.
	await := func(t *testing.T, name string, want watch.EventType, write func() error) {
		list, err := bindings.List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		w, err := bindings.Watch(wctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion,
			FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if err := write(); err != nil {
			t.Fatal(err)
		}
		for ev := range w.ResultChan() {
			if ev.Type == want {
				return
			}
		}
		t.Fatalf("no %s event of rolebinding %s within 10s", want, name)
	}
	bind := func(name, user string) func() error {
		return func() error {
			_, err := bindings.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "configmap-reader"},
				Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}}}, metav1.CreateOptions{})
			return err
		}
	}
	unbind := func(name string) func() error {
		return func() error { return bindings.Delete(ctx, name, metav1.DeleteOptions{}) }
	}
	for _, spell := range []time.Duration{0, 2 * time.Second, 10 * time.Second} {
		t.Run(fmt.Sprintf("grant after %v", spell), func(t *testing.T) {
			t.Parallel()
			user := fmt.Sprintf("grantee-%d", spell/time.Second)
			if err := as(user); !apierrors.IsForbidden(err) {
				t.Fatalf("%s before the binding: %v, want forbidden", user, err)
			}
			time.Sleep(spell)
			await(t, user, watch.Added, bind(user, user))
			if err := as(user); err != nil {
				t.Errorf("%s's first request after the binding: %v, want allowed", user, err)
			}
		})
		t.Run(fmt.Sprintf("revoke after %v", spell), func(t *testing.T) {
			t.Parallel()
			user := fmt.Sprintf("revokee-%d", spell/time.Second)
			await(t, user, watch.Added, bind(user, user))
			if err := as(user); err != nil {
				t.Fatalf("%s with the binding: %v, want allowed", user, err)
			}
			time.Sleep(spell)
			await(t, user, watch.Deleted, unbind(user))
			if err := as(user); !apierrors.IsForbidden(err) {
				t.Errorf("%s's first request after the revocation: %v, want forbidden", user, err)
			}
		})
	}
}
