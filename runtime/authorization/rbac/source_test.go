package rbac

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// TestStoragePolicy follows the RBAC stores on a real etcd: before Run every Policy reads
// storage (a binding written a moment ago applies); once Run has listed, the policy is the
// caches', made once per change (the same *Policy while nothing changes), and a revocation
// applies as soon as the watch delivers it.
func TestStoragePolicy(t *testing.T) {
	t.Parallel()
	info := rbacGroup(t)
	p, err := NewStoragePolicy(info)
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithNamespace(context.Background(), "")
	stores := info.VersionedResourcesStorageMap["v1"]
	if _, err := stores["clusterroles"].(rest.Creater).Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "lister"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := stores["clusterrolebindings"].(rest.Creater).Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "ann-lists"},
		RoleRef:  rbacv1.RoleRef{APIGroup: GroupName, Kind: "ClusterRole", Name: "lister"},
		Subjects: []rbacv1.Subject{{APIGroup: GroupName, Kind: "User", Name: "ann"}}}, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list := authorization.Attributes{User: &request.User{Name: "ann"},
		RequestInfo: request.RequestInfo{IsResourceRequest: true, Verb: "list", APIVersion: "v1", Resource: "configmaps"}}
	allowed := func() (*Policy, bool) {
		t.Helper()
		policy, err := p.Policy(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return policy, policy.Allows(list)
	}
	if _, ok := allowed(); !ok {
		t.Fatal("before Run: the binding just written does not apply")
	}

	runCtx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p.Run(runCtx)
	first, ok := allowed()
	if again, _ := allowed(); !ok || again != first {
		t.Errorf("after Run: allowed %v, the same policy twice %v", ok, again == first)
	}
	if _, _, err := stores["clusterrolebindings"].(rest.GracefulDeleter).Delete(ctx, "ann-lists", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, ok := allowed(); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the revocation did not apply within 5s of its write")
		}
	}
}
