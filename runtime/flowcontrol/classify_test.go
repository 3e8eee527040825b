package flowcontrol

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
	"github.com/apigen-dev/apigen/runtime/request"
)

// defaultConfig digests kube's mandatory and suggested objects for seats seats.
func defaultConfig(t *testing.T, seats int, extraSchemas ...*flowcontrolv1.FlowSchema) *config {
	t.Helper()
	cfg, err := digest(append(append(append([]*flowcontrolv1.FlowSchema{}, mandatorySchemas...), suggestedSchemas...), extraSchemas...),
		append(append([]*flowcontrolv1.PriorityLevelConfiguration{}, mandatoryLevels...), suggestedLevels...), seats, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestClassify checks classification against kube's default FlowSchemas, as kube-apiserver
// classifies the same requests, and a schema of the test's with ByNamespace.
func TestClassify(t *testing.T) {
	t.Parallel()
	tenant := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "tenant-a"}, Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "workload-low"},
		MatchingPrecedence:         500,
		DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByNamespaceType},
		Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
			Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "tenant-a"}}},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{"db.example.com"},
				Resources: []string{"databases", "databases/status"}, Namespaces: []string{"*"}}},
		}},
	}}
	dangling := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "dangling"}, Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "missing"},
		MatchingPrecedence:         2,
		Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
			Subjects:      []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "*"}}},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"}}},
		}},
	}}
	cfg := defaultConfig(t, 600, tenant, dangling)
	authed := func(name string, groups ...string) *request.User {
		return &request.User{Name: name, Groups: append(groups, "system:authenticated")}
	}
	get := &request.RequestInfo{IsResourceRequest: true, Verb: "get", APIGroup: "db.example.com", Resource: "databases", Namespace: "team-a", Name: "x"}
	for _, tc := range []struct {
		name          string
		user          *request.User
		info          *request.RequestInfo
		schema, level string
		distinguisher string
	}{
		{"masters are exempt", authed("admin", "system:masters"), get, "exempt", "exempt", ""},
		{"an authenticated user", authed("alice"), get, "global-default", "global-default", "alice"},
		{"a status get of a tenant, by namespace", authed("bob", "tenant-a"),
			&request.RequestInfo{IsResourceRequest: true, Verb: "get", APIGroup: "db.example.com", Resource: "databases", Subresource: "status", Namespace: "team-b"},
			"tenant-a", "workload-low", "team-b"},
		{"a tenant's cluster-scoped list is not namespaced", authed("bob", "tenant-a"),
			&request.RequestInfo{IsResourceRequest: true, Verb: "list", APIGroup: "db.example.com", Resource: "databases"},
			"global-default", "global-default", "bob"},
		{"a tenant's write", authed("bob", "tenant-a"),
			&request.RequestInfo{IsResourceRequest: true, Verb: "create", APIGroup: "db.example.com", Resource: "databases", Namespace: "team-b"},
			"global-default", "global-default", "bob"},
		{"a kube-system service account", authed("system:serviceaccount:kube-system:job", "system:serviceaccounts"), get,
			"kube-system-service-accounts", "workload-high", "team-a"},
		{"another service account", authed("system:serviceaccount:team-a:app", "system:serviceaccounts"), get,
			"service-accounts", "workload-low", "system:serviceaccount:team-a:app"},
		{"a node", authed("system:node:n1", "system:nodes"), get, "system-nodes", "system", "system:node:n1"},
		{"a leader election lease update", authed("system:kube-scheduler"),
			&request.RequestInfo{IsResourceRequest: true, Verb: "update", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kube-scheduler"},
			"system-leader-election", "leader-election", "system:kube-scheduler"},
		{"an anonymous health probe", &request.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}},
			&request.RequestInfo{Path: "/readyz", Verb: "get"}, "probes", "exempt", ""},
		{"an anonymous request", &request.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}},
			&request.RequestInfo{Path: "/apis", Verb: "get"}, "global-default", "global-default", "system:anonymous"},
		{"no user at all", &request.User{}, get, "catch-all", "catch-all", ""},
	} {
		s, hash := cfg.classify(tc.user, tc.info)
		if s.fs.Name != tc.schema || s.level.pl.Name != tc.level {
			t.Errorf("%s: classified %s/%s, want %s/%s", tc.name, s.fs.Name, s.level.pl.Name, tc.schema, tc.level)
			continue
		}
		want := flowHash(tc.schema, tc.distinguisher)
		if hash != want {
			t.Errorf("%s: flow hash %x, want that of (%s, %q)", tc.name, hash, tc.schema, tc.distinguisher)
		}
	}
}

// flowHash is the hash classify gives the flow (schema, distinguisher).
func flowHash(schema, distinguisher string) uint64 { return hashFlow(schema, distinguisher) }

// TestNominalSeats checks kube's split of the server's seats: ceil(seats * shares / sum),
// the exempt level unlimited, and that a level keeps its queues across digests while its
// parameters stay the same.
func TestNominalSeats(t *testing.T) {
	t.Parallel()
	cfg := defaultConfig(t, 600)
	// kube's default shares: exempt 0, catch-all 5, system 30, node-high 40,
	// leader-election 10, workload-high 40, workload-low 100, global-default 20 (sum 245).
	for name, want := range map[string]int{"catch-all": 13, "system": 74, "node-high": 98, "leader-election": 25,
		"workload-high": 98, "workload-low": 245, "global-default": 49, "exempt": 0} {
		if got := cfg.levels[name].seats; got != want {
			t.Errorf("level %s: %d seats, want %d", name, got, want)
		}
	}
	if !cfg.levels["exempt"].set.exempt {
		t.Error("the exempt level is limited")
	}
	again, err := digest(schemasOf(cfg), levelsOf(cfg), 300, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if again.levels["global-default"].set != cfg.levels["global-default"].set || again.levels["global-default"].set.limit != 25 {
		t.Errorf("global-default after halving the seats: new queues %v, limit %d (want the same queues, 25)",
			again.levels["global-default"].set != cfg.levels["global-default"].set, again.levels["global-default"].set.limit)
	}
}

func schemasOf(c *config) []*flowcontrolv1.FlowSchema {
	var out []*flowcontrolv1.FlowSchema
	for _, s := range c.schemas {
		out = append(out, s.fs)
	}
	return out
}

func levelsOf(c *config) []*flowcontrolv1.PriorityLevelConfiguration {
	var out []*flowcontrolv1.PriorityLevelConfiguration
	for _, l := range c.levels {
		out = append(out, l.pl)
	}
	return out
}
