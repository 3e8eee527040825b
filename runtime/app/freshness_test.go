package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admregv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/internal/freeport"
)

// TestCachedAuthoritiesFollowWatches checks that authorization and admission never answer from
// a policy older than what their watches delivered, as kube-apiserver's informer-fed RBAC
// authorizer and admission plugins: after a quiet spell of 0, 2 or 10 s, a RoleBinding is
// created (or deleted), the test waits for its own watch to deliver the event and watchDelay
// more (the write acknowledged plus the watch delay), and the very next request of the bound user is allowed
// (or denied). After a quiet spell of 2 s, the same holds for a ClusterRole aggregated into a
// bound one, a ValidatingAdmissionPolicy's binding and a ValidatingWebhookConfiguration (see
// admissionFollowsWatches). The subtests run in parallel, each with its own user and objects,
// so the test costs about 10 s.
func TestCachedAuthoritiesFollowWatches(t *testing.T) {
	t.Parallel()
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
	await := func(t *testing.T, name string, want watch.EventType, write func() error) {
		t.Helper()
		awaitEvent(t, bindings, name, write, func(ev watch.Event) bool { return ev.Type == want })
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
	// JSON: the served admissionregistration.k8s.io takes no protobuf bodies yet.
	jsonCfg := rest.CopyConfig(cfg)
	jsonCfg.ContentType = "application/json"
	admissionFollowsWatches(t, kubernetes.NewForConfigOrDie(jsonCfg), as)
}

// watchable is a client-go typed client of one resource, as awaitEvent needs it.
type watchable[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// watchDelay is how long after its own watch delivered an event the test lets the server's
// watches take to deliver it too: the bound on the watch delay (p99 100 ms under
// load). The server's caches are fed by the same watch cache as the test's watch, but their
// goroutines may be scheduled later than the test's on a loaded machine.
const watchDelay = 100 * time.Millisecond

// awaitEvent runs write and returns once the test's own watch of the object name of c,
// started before write, delivered an event done accepts, and watchDelay more: the write
// acknowledged plus the watch delay. It fails t after 10 s.
func awaitEvent[L runtime.Object](t *testing.T, c watchable[L], name string, write func() error, done func(watch.Event) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	byName := fields.OneTermEqualSelector("metadata.name", name).String()
	list, err := c.List(ctx, metav1.ListOptions{FieldSelector: byName})
	if err != nil {
		t.Fatal(err)
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, metav1.ListOptions{ResourceVersion: lm.GetResourceVersion(), FieldSelector: byName})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := write(); err != nil {
		t.Fatal(err)
	}
	for ev := range w.ResultChan() {
		if done(ev) {
			time.Sleep(watchDelay)
			return
		}
	}
	t.Fatalf("no awaited event of %s within 10s", name)
}

// admissionFollowsWatches adds the parallel subtests of TestCachedAuthoritiesFollowWatches for
// the aggregation controller and the admission plugins, each after a quiet spell of 2 s: a
// ClusterRole labelled for aggregation grants its rules, through the aggregated role, to the
// next request; a ValidatingAdmissionPolicyBinding (and its removal), and a
// ValidatingWebhookConfiguration whose webhook cannot be reached with failurePolicy Fail (and
// its removal), apply to the next create. as lists ConfigMaps in default as a user.
func admissionFollowsWatches(t *testing.T, admin *kubernetes.Clientset, as func(user string) error) {
	ctx := context.Background()
	const spell = 2 * time.Second
	configMaps := admin.CoreV1().ConfigMaps("default")
	create := func(name string, labels map[string]string) error {
		_, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
		return err
	}
	t.Run("aggregated clusterrole after 2s", func(t *testing.T) {
		t.Parallel()
		roles := admin.RbacV1().ClusterRoles()
		label := map[string]string{"fresh.apigen.dev/aggregate-to-lister": "true"}
		if _, err := roles.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "fresh-lister"},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: label}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "fresh-lister"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "fresh-lister"},
			Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "aggregatee"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(spell)
		if err := as("aggregatee"); !apierrors.IsForbidden(err) {
			t.Fatalf("aggregatee before the aggregated role: %v, want forbidden", err)
		}
		awaitEvent(t, roles, "fresh-lister", func() error {
			_, err := roles.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "fresh-lister-part", Labels: label},
				Rules: []rbacv1.PolicyRule{{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}, metav1.CreateOptions{})
			return err
		}, func(ev watch.Event) bool {
			r, ok := ev.Object.(*rbacv1.ClusterRole)
			return ok && len(r.Rules) > 0
		})
		if err := as("aggregatee"); err != nil {
			t.Errorf("aggregatee's first request after aggregation: %v, want allowed", err)
		}
	})
	t.Run("validating admission policy after 2s", func(t *testing.T) {
		t.Parallel()
		reg := admin.AdmissionregistrationV1()
		if _, err := reg.ValidatingAdmissionPolicies().Create(ctx, &admregv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "fresh-names"},
			Spec: admregv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admregv1.MatchResources{ResourceRules: []admregv1.NamedRuleWithOperations{{RuleWithOperations: admregv1.RuleWithOperations{
					Operations: []admregv1.OperationType{admregv1.Create},
					Rule:       admregv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
				Validations: []admregv1.Validation{{Expression: "!object.metadata.name.startsWith('vap-refused')"}},
			}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		bindings := reg.ValidatingAdmissionPolicyBindings()
		time.Sleep(spell)
		awaitEvent(t, bindings, "fresh-names", func() error {
			_, err := bindings.Create(ctx, &admregv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "fresh-names"},
				Spec: admregv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "fresh-names",
					ValidationActions: []admregv1.ValidationAction{admregv1.Deny}}}, metav1.CreateOptions{})
			return err
		}, func(ev watch.Event) bool { return ev.Type == watch.Added })
		if err := create("vap-refused-1", nil); err == nil {
			t.Error("the first create after the binding was admitted")
		}
		time.Sleep(spell)
		awaitEvent(t, bindings, "fresh-names", func() error { return bindings.Delete(ctx, "fresh-names", metav1.DeleteOptions{}) },
			func(ev watch.Event) bool { return ev.Type == watch.Deleted })
		if err := create("vap-refused-2", nil); err != nil {
			t.Errorf("the first create after the binding's removal: %v", err)
		}
	})
	t.Run("webhook configuration after 2s", func(t *testing.T) {
		t.Parallel()
		configs := admin.AdmissionregistrationV1().ValidatingWebhookConfigurations()
		url, fail, none := "https://"+freeport.Addr(t)+"/validate", admregv1.Fail, admregv1.SideEffectClassNone
		labels := map[string]string{"fresh.apigen.dev/webhook": "true"}
		time.Sleep(spell)
		awaitEvent(t, configs, "fresh-unreachable", func() error {
			_, err := configs.Create(ctx, &admregv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "fresh-unreachable"},
				Webhooks: []admregv1.ValidatingWebhook{{Name: "unreachable.fresh.apigen.dev", ClientConfig: admregv1.WebhookClientConfig{URL: &url},
					Rules: []admregv1.RuleWithOperations{{Operations: []admregv1.OperationType{admregv1.Create},
						Rule: admregv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
					ObjectSelector: &metav1.LabelSelector{MatchLabels: labels}, FailurePolicy: &fail, SideEffects: &none,
					AdmissionReviewVersions: []string{"v1"}}}}, metav1.CreateOptions{})
			return err
		}, func(ev watch.Event) bool { return ev.Type == watch.Added })
		if err := create("webhook-refused-1", labels); err == nil || !strings.Contains(err.Error(), "failed calling webhook") {
			t.Errorf("the first create after the configuration: %v, want the webhook's failure", err)
		}
		time.Sleep(spell)
		awaitEvent(t, configs, "fresh-unreachable", func() error { return configs.Delete(ctx, "fresh-unreachable", metav1.DeleteOptions{}) },
			func(ev watch.Event) bool { return ev.Type == watch.Deleted })
		if err := create("webhook-refused-2", labels); err != nil {
			t.Errorf("the first create after the configuration's removal: %v", err)
		}
	})
}
