package matching

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

var (
	dbsV1       = schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databases"}
	dbsV1alpha1 = schema.GroupVersionResource{Group: "db.example.com", Version: "v1alpha1", Resource: "databases"}
)

// twoVersions serves databases in v1 and v1alpha1 (the example API's shape).
type twoVersions struct{}

func (twoVersions) EquivalentResourcesFor(gvr schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
	if gvr == dbsV1 || gvr == dbsV1alpha1 {
		return []schema.GroupVersionResource{dbsV1, dbsV1alpha1}
	}
	return nil
}

func (twoVersions) ResourceFor(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool) {
	return gvk.GroupVersion().WithResource("databases"), gvk.Kind == "Database"
}

func (twoVersions) KindFor(gvr schema.GroupVersionResource, sub string) schema.GroupVersionKind {
	if sub == "scale" {
		return schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	}
	return gvr.GroupVersion().WithKind("Database")
}

func rule(ops []admregv1.OperationType, groups, versions, resources []string, scope admregv1.ScopeType) *admregv1.RuleWithOperations {
	return &admregv1.RuleWithOperations{Operations: ops, Rule: admregv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: &scope}}
}

func attrs(op admission.Operation, gvr schema.GroupVersionResource, sub, ns string) *admission.Attributes {
	return &admission.Attributes{Operation: op, Resource: gvr, Subresource: sub, Namespace: ns, Name: "main",
		Kind: gvr.GroupVersion().WithKind("Database")}
}

func TestRuleMatches(t *testing.T) {
	create := []admregv1.OperationType{admregv1.Create}
	all := []admregv1.OperationType{admregv1.OperationAll}
	db := []string{"db.example.com"}
	for _, tc := range []struct {
		name string
		rule *admregv1.RuleWithOperations
		a    *admission.Attributes
		want bool
	}{
		{"exact", rule(create, db, []string{"v1"}, []string{"databases"}, "*"), attrs(admission.Create, dbsV1, "", "team-a"), true},
		{"other operation", rule(create, db, []string{"v1"}, []string{"databases"}, "*"), attrs(admission.Update, dbsV1, "", "team-a"), false},
		{"all operations", rule(all, db, []string{"*"}, []string{"*"}, "*"), attrs(admission.Delete, dbsV1, "", "team-a"), true},
		{"other group", rule(create, []string{"apps"}, []string{"*"}, []string{"*"}, "*"), attrs(admission.Create, dbsV1, "", "team-a"), false},
		{"other version", rule(create, db, []string{"v1alpha1"}, []string{"databases"}, "*"), attrs(admission.Create, dbsV1, "", "team-a"), false},
		{"* excludes subresources", rule(all, db, []string{"*"}, []string{"*"}, "*"), attrs(admission.Update, dbsV1, "status", "team-a"), false},
		{"res/sub", rule(all, db, []string{"*"}, []string{"databases/status"}, "*"), attrs(admission.Update, dbsV1, "status", "team-a"), true},
		{"*/sub", rule(all, db, []string{"*"}, []string{"*/status"}, "*"), attrs(admission.Update, dbsV1, "status", "team-a"), true},
		{"*/*", rule(all, db, []string{"*"}, []string{"*/*"}, "*"), attrs(admission.Update, dbsV1, "scale", "team-a"), true},
		{"res/* with no subresource", rule(all, db, []string{"*"}, []string{"databases/*"}, "*"), attrs(admission.Update, dbsV1, "", "team-a"), true},
		{"Namespaced scope, namespaced object", rule(all, db, []string{"*"}, []string{"*"}, admregv1.NamespacedScope), attrs(admission.Create, dbsV1, "", "team-a"), true},
		{"Cluster scope, namespaced object", rule(all, db, []string{"*"}, []string{"*"}, admregv1.ClusterScope), attrs(admission.Create, dbsV1, "", "team-a"), false},
		{"Cluster scope, namespace object", rule(all, []string{""}, []string{"v1"}, []string{"namespaces"}, admregv1.ClusterScope), attrs(admission.Create, namespaces, "", ""), true},
	} {
		if got := RuleMatches(tc.rule, tc.a, tc.a.Resource); got != tc.want {
			t.Errorf("%s: RuleMatches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMatchRulesEquivalent(t *testing.T) {
	alphaOnly := []NamedRule{{Rule: rule([]admregv1.OperationType{admregv1.Create}, []string{"db.example.com"}, []string{"v1alpha1"}, []string{"databases"}, "*")}}
	a := attrs(admission.Create, dbsV1, "", "team-a")
	exact, equivalent := admregv1.Exact, admregv1.Equivalent
	if _, ok, err := MatchRules(alphaOnly, &exact, a, twoVersions{}); ok || err != nil {
		t.Errorf("Exact matched a v1 request with a v1alpha1 rule: %v %v", ok, err)
	}
	m, ok, err := MatchRules(alphaOnly, &equivalent, a, twoVersions{})
	if !ok || err != nil || m.Resource != dbsV1alpha1 || m.Kind != dbsV1alpha1.GroupVersion().WithKind("Database") {
		t.Errorf("Equivalent: %+v %v %v, want the v1alpha1 resource and kind", m, ok, err)
	}
	named := []NamedRule{{Rule: alphaOnly[0].Rule, Names: []string{"other"}}}
	if _, ok, _ := MatchRules(named, &equivalent, a, twoVersions{}); ok {
		t.Error("a rule naming another object matched")
	}
}

func TestSelectors(t *testing.T) {
	ctx := context.Background()
	lookup := func(_ context.Context, name string) (map[string]string, error) {
		if name == "team-a" {
			return map[string]string{"env": "prod"}, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	prod, err := Selector(&metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := MatchNamespaceSelector(ctx, prod, attrs(admission.Create, dbsV1, "", "team-a"), lookup); !ok || err != nil {
		t.Errorf("team-a: %v %v", ok, err)
	}
	if _, err := MatchNamespaceSelector(ctx, prod, attrs(admission.Create, dbsV1, "", "missing"), lookup); !apierrors.IsNotFound(err) {
		t.Errorf("a missing namespace: %v, want 404", err)
	}
	if ok, _ := MatchNamespaceSelector(ctx, prod, attrs(admission.Create, dbsV1, "", ""), lookup); !ok {
		t.Error("a cluster-scoped object did not match a namespace selector")
	}
	ns := attrs(admission.Create, namespaces, "", "")
	ns.Name, ns.Object = "new", &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "new", Labels: map[string]string{"env": "dev"}}}
	if ok, err := MatchNamespaceSelector(ctx, prod, ns, lookup); ok || err != nil {
		t.Errorf("a namespace's create is judged by its own labels: %v %v", ok, err)
	}

	obj := attrs(admission.Update, dbsV1, "", "team-a")
	obj.Object = &metav1.PartialObjectMetadata{}
	obj.OldObject = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"env": "prod"}}}
	if !MatchObjectSelector(prod, obj) {
		t.Error("the old object's labels did not count")
	}
	obj.OldObject = nil
	if MatchObjectSelector(prod, obj) {
		t.Error("an unlabelled object matched")
	}
}

func TestMatchResources(t *testing.T) {
	ctx := context.Background()
	equivalent := admregv1.Equivalent
	mr := &admregv1.MatchResources{
		MatchPolicy: &equivalent,
		ResourceRules: []admregv1.NamedRuleWithOperations{{RuleWithOperations: *rule([]admregv1.OperationType{admregv1.OperationAll},
			[]string{"db.example.com"}, []string{"*"}, []string{"databases"}, "*")}},
		ExcludeResourceRules: []admregv1.NamedRuleWithOperations{{ResourceNames: []string{"legacy"},
			RuleWithOperations: *rule([]admregv1.OperationType{admregv1.OperationAll}, []string{"*"}, []string{"*"}, []string{"*"}, "*")}},
	}
	a := attrs(admission.Create, dbsV1, "", "")
	if m, ok, err := MatchResources(ctx, mr, a, twoVersions{}, nil); !ok || err != nil || m.Resource != dbsV1 {
		t.Errorf("match: %+v %v %v", m, ok, err)
	}
	a.Name = "legacy"
	if _, ok, err := MatchResources(ctx, mr, a, twoVersions{}, nil); ok || err != nil {
		t.Errorf("an excluded name matched: %v %v", ok, err)
	}
	if _, ok, _ := MatchResources(ctx, &admregv1.MatchResources{}, attrs(admission.Delete, dbsV1, "", ""), nil, nil); !ok {
		t.Error("no rules (a binding's matchResources) must match every resource")
	}
}
