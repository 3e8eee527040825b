package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tokenUsers are the users of startWithUsers' token file: name -> token.
var tokenUsers = map[string]string{"alice": "alice-token", "bob": "bob-token", "carol": "carol-token"}

// startWithUsers starts the server with --token-auth-file listing tokenUsers (no groups
// beyond system:authenticated) and the flags given.
func startWithUsers(t *testing.T, flags ...string) *apiServer {
	t.Helper()
	var lines []string
	for name, token := range tokenUsers {
		lines = append(lines, fmt.Sprintf("%s,%s,uid-%s", token, name, name))
	}
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return startServer(t, append([]string{"--token-auth-file=" + path}, flags...)...)
}

// as runs kubectl as user (one of tokenUsers), by a kubeconfig trusting the server's CA and
// carrying the user's token and no client certificate.
func (s *apiServer) as(t *testing.T, user string, args ...string) (string, error) {
	t.Helper()
	kubeconfig := filepath.Join(filepath.Dir(s.kubeconfig), user+".kubeconfig")
	if _, err := os.Stat(kubeconfig); err != nil {
		ca := filepath.Join(filepath.Dir(s.kubeconfig), "pki", "ca.crt")
		text := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: %q, certificate-authority: %q}\n"+
			"users:\n- name: u\n  user: {token: %s}\ncontexts:\n- name: u\n  context: {cluster: c, user: u, namespace: default}\ncurrent-context: u\n",
			s.proc.URL, ca, tokenUsers[user])
		if err := os.WriteFile(kubeconfig, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
	return string(out), err
}

// eventually runs kubectl as user until it succeeds (RBAC grants reach the authorizer within
// about a second), failing the test after 30s (generous: a loaded machine).
func (s *apiServer) eventually(t *testing.T, user string, args ...string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := s.as(t, user, args...)
		if err == nil {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl as %s %s: %v\n%s", user, strings.Join(args, " "), err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// refused fails the test unless kubectl as user fails with want in its output (each line
// of want in turn, when want has several).
func (s *apiServer) refused(t *testing.T, want, user string, args ...string) {
	t.Helper()
	out, err := s.as(t, user, args...)
	if err == nil {
		t.Errorf("kubectl as %s %s succeeded:\n%s\nwant an error with %q", user, strings.Join(args, " "), out, want)
		return
	}
	for _, line := range strings.Split(want, "\n") {
		if !strings.Contains(out, line) {
			t.Errorf("kubectl as %s %s: %v\n%s\nwant an error with %q", user, strings.Join(args, " "), err, out, line)
		}
	}
}

const escalationMessage = `user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`

// TestKubectlRBACEscalation: a user allowed to write RoleBindings, Roles, ClusterRoleBindings
// and ClusterRoles cannot grant through them what she does not hold (403 with kube's
// message), through create and patch alike, until she holds the bind or escalate verb.
func TestKubectlRBACEscalation(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startWithUsers(t)
	s.mustKubectl(t, "create", "namespace", "team-a")
	s.mustKubectl(t, "create", "role", "rbac-writer", "-n", "team-a", "--verb=get,list,create,update,patch",
		"--resource=rolebindings.rbac.authorization.k8s.io,roles.rbac.authorization.k8s.io")
	s.mustKubectl(t, "create", "role", "db-reader", "-n", "team-a", "--verb=get,list", "--resource=databases.db.example.com")
	s.mustKubectl(t, "create", "rolebinding", "alice-rbac", "-n", "team-a", "--role=rbac-writer", "--user=alice")
	s.mustKubectl(t, "create", "rolebinding", "alice-reads", "-n", "team-a", "--role=db-reader", "--user=alice")
	s.eventually(t, "alice", "get", "rolebindings", "-n", "team-a")

	// Bindings: cluster-admin and edit are not hers to bind; db-reader is (she holds it).
	s.refused(t, `rolebindings.rbac.authorization.k8s.io "grab" is forbidden: `+escalationMessage+"\n"+
		`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`+"\n"+`{NonResourceURLs:["*"], Verbs:["*"]}`,
		"alice", "create", "rolebinding", "grab", "-n", "team-a", "--clusterrole=cluster-admin", "--user=alice")
	s.refused(t, `rolebindings.rbac.authorization.k8s.io "grab-edit" is forbidden: `+escalationMessage+"\n"+
		`{APIGroups:["db.example.com"], Resources:["databases"], Verbs:["create" "update" "patch" "delete" "deletecollection" "watch"]}`,
		"alice", "create", "rolebinding", "grab-edit", "-n", "team-a", "--clusterrole=edit", "--user=alice")
	s.eventually(t, "alice", "create", "rolebinding", "bob-reads", "-n", "team-a", "--role=db-reader", "--user=bob")
	// Patch: adding herself to a binding of rbac-writer is fine (she holds it); changing a
	// binding of cluster-admin is not.
	s.mustKubectl(t, "create", "rolebinding", "admins", "-n", "team-a", "--clusterrole=cluster-admin", "--user=root")
	s.refused(t, `rolebindings.rbac.authorization.k8s.io "admins" is forbidden: `+escalationMessage, "alice",
		"patch", "rolebinding", "admins", "-n", "team-a", "--type=json", "-p", `[{"op":"add","path":"/subjects/-","value":{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}}]`)

	// Roles: delete on databases is not hers to grant, by create or by patch.
	s.refused(t, `roles.rbac.authorization.k8s.io "deleter" is forbidden: `+escalationMessage+"\n"+
		`{APIGroups:["db.example.com"], Resources:["databases"], Verbs:["delete"]}`,
		"alice", "create", "role", "deleter", "-n", "team-a", "--verb=get,list,delete", "--resource=databases.db.example.com")
	s.mustKubectl(t, "create", "role", "viewer", "-n", "team-a", "--verb=get", "--resource=databases.db.example.com")
	widen := `[{"op":"add","path":"/rules/-","value":{"verbs":["delete"],"apiGroups":["db.example.com"],"resources":["databases"]}}]`
	s.refused(t, `roles.rbac.authorization.k8s.io "viewer" is forbidden: `+escalationMessage, "alice",
		"patch", "role", "viewer", "-n", "team-a", "--type=json", "-p", widen)

	// With bind on cluster-admin and escalate on roles (in team-a) she may.
	s.mustKubectl(t, "create", "role", "trusted", "-n", "team-a", "--verb=bind", "--resource=clusterroles.rbac.authorization.k8s.io", "--resource-name=cluster-admin")
	s.mustKubectl(t, "create", "role", "escalator", "-n", "team-a", "--verb=escalate", "--resource=roles.rbac.authorization.k8s.io")
	s.mustKubectl(t, "create", "rolebinding", "alice-trusted", "-n", "team-a", "--role=trusted", "--user=alice")
	s.mustKubectl(t, "create", "rolebinding", "alice-escalates", "-n", "team-a", "--role=escalator", "--user=alice")
	s.eventually(t, "alice", "create", "rolebinding", "grab", "-n", "team-a", "--clusterrole=cluster-admin", "--user=bob")
	s.eventually(t, "alice", "patch", "role", "viewer", "-n", "team-a", "--type=json", "-p", widen)
	s.eventually(t, "alice", "create", "role", "deleter", "-n", "team-a", "--verb=get,list,delete", "--resource=databases.db.example.com")
}

// TestKubectlClusterRBACEscalation is TestKubectlRBACEscalation through ClusterRoles and
// ClusterRoleBindings: checked cluster-wide; aggregationRule needs every right.
func TestKubectlClusterRBACEscalation(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startWithUsers(t)
	s.mustKubectl(t, "create", "clusterrole", "cluster-rbac-writer", "--verb=get,list,create,update,patch",
		"--resource=clusterrolebindings.rbac.authorization.k8s.io,clusterroles.rbac.authorization.k8s.io")
	s.mustKubectl(t, "create", "clusterrolebinding", "alice-rbac", "--clusterrole=cluster-rbac-writer", "--user=alice")
	s.eventually(t, "alice", "get", "clusterroles")

	s.refused(t, `clusterrolebindings.rbac.authorization.k8s.io "grab" is forbidden: `+escalationMessage,
		"alice", "create", "clusterrolebinding", "grab", "--clusterrole=cluster-admin", "--user=alice")
	s.refused(t, `clusterroles.rbac.authorization.k8s.io "deleter" is forbidden: `+escalationMessage+"\n"+
		`{APIGroups:["db.example.com"], Resources:["databases"], Verbs:["delete"]}`,
		"alice", "create", "clusterrole", "deleter", "--verb=delete", "--resource=databases.db.example.com")
	s.refused(t, `clusterroles.rbac.authorization.k8s.io "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
		"alice", "create", "clusterrole", "gatherer", "--aggregation-rule=example.com/gather=true")
	s.mustKubectl(t, "create", "clusterrolebinding", "admins", "--clusterrole=cluster-admin", "--user=root")
	s.refused(t, `clusterrolebindings.rbac.authorization.k8s.io "admins" is forbidden: `+escalationMessage, "alice",
		"patch", "clusterrolebinding", "admins", "--type=merge", "-p", `{"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}]}`)
	// She may write what she holds, and not widen it by a patch.
	s.eventually(t, "alice", "create", "clusterrole", "reader-of-roles", "--verb=get,list", "--resource=clusterroles.rbac.authorization.k8s.io")
	s.refused(t, `clusterroles.rbac.authorization.k8s.io "reader-of-roles" is forbidden: `+escalationMessage+"\n"+
		`{APIGroups:["db.example.com"], Resources:["databases"], Verbs:["delete"]}`, "alice", "patch", "clusterrole", "reader-of-roles", "--type=json", "-p",
		`[{"op":"add","path":"/rules/-","value":{"verbs":["delete"],"apiGroups":["db.example.com"],"resources":["databases"]}}]`)

	s.mustKubectl(t, "create", "clusterrole", "trusted", "--verb=bind,escalate", "--resource=clusterroles.rbac.authorization.k8s.io")
	s.mustKubectl(t, "create", "clusterrolebinding", "alice-trusted", "--clusterrole=trusted", "--user=alice")
	s.eventually(t, "alice", "create", "clusterrolebinding", "grab", "--clusterrole=cluster-admin", "--user=alice")
	s.eventually(t, "alice", "create", "clusterrole", "deleter", "--verb=delete", "--resource=databases.db.example.com")
}

// TestKubectlAggregatedClusterRoles: the default view role holds the server's own resources
// (generated aggregate-to-view roles), so a user bound to it may list databases and not
// change them; a ClusterRole labelled aggregate-to-view extends view at once.
func TestKubectlAggregatedClusterRoles(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startWithUsers(t)
	s.mustKubectl(t, "create", "namespace", "team-a")
	db := filepath.Join(t.TempDir(), "db.yaml")
	if err := os.WriteFile(db, []byte("apiVersion: db.example.com/v1\nkind: Database\nmetadata: {name: orders}\nspec: {engine: postgres}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "create", "-n", "team-a", "-f", db)
	s.mustKubectl(t, "create", "rolebinding", "bob-views", "-n", "team-a", "--clusterrole=view", "--user=bob")
	out := s.eventually(t, "bob", "get", "databases", "-n", "team-a", "-o", "name")
	if !strings.Contains(out, "database.db.example.com/") {
		t.Errorf("bob's list of databases: %q", out)
	}
	s.refused(t, `databases.db.example.com is forbidden: User "bob" cannot create resource "databases" in API group "db.example.com" in the namespace "team-a"`,
		"bob", "create", "-n", "team-a", "-f", db)
	s.refused(t, `cannot delete resource "databases" in API group "db.example.com" in the namespace "team-a"`,
		"bob", "delete", "databases", "--all", "-n", "team-a")
	s.refused(t, `cannot list resource "databases" in API group "db.example.com" in the namespace "default"`,
		"bob", "get", "databases", "-n", "default")
	s.refused(t, `cannot list resource "rolebindings"`, "bob", "get", "rolebindings", "-n", "team-a")

	// A labelled ClusterRole: view (and so bob) gains reading rolebindings.
	s.mustKubectl(t, "create", "clusterrole", "binding-viewer", "--verb=get,list", "--resource=rolebindings.rbac.authorization.k8s.io")
	start := time.Now()
	s.mustKubectl(t, "label", "clusterrole", "binding-viewer", "rbac.authorization.k8s.io/aggregate-to-view=true")
	for {
		out := s.mustKubectl(t, "get", "clusterrole", "view", "-o", "jsonpath={.rules[*].resources}")
		if strings.Contains(out, "rolebindings") {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("view did not aggregate binding-viewer: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("view aggregated the labelled ClusterRole %v after kubectl label returned", time.Since(start))
	s.eventually(t, "bob", "get", "rolebindings", "-n", "team-a")
}

// TestKubectlAuth: `kubectl auth can-i` (SelfSubjectAccessReview, impersonating with --as),
// `kubectl auth can-i --list` (SelfSubjectRulesReview) and `kubectl auth whoami`
// (SelfSubjectReview) answer as RBAC says; impersonation without the impersonate verb is 403.
func TestKubectlAuth(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startWithUsers(t)
	s.mustKubectl(t, "create", "namespace", "team-a")
	s.mustKubectl(t, "create", "role", "db-writer", "-n", "team-a", "--verb=get,list,create", "--resource=databases.db.example.com")
	s.mustKubectl(t, "create", "rolebinding", "alice-writes", "-n", "team-a", "--role=db-writer", "--user=alice")

	// The admin (system:masters) asks about alice, impersonating her.
	canI := func(want string, args ...string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, _ := s.kubectl(t, append([]string{"auth", "can-i"}, args...)...)
			if strings.TrimSpace(out) == want || time.Now().After(deadline) {
				if strings.TrimSpace(out) != want {
					t.Errorf("kubectl auth can-i %s: %q, want %q", strings.Join(args, " "), out, want)
				}
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	canI("yes", "create", "databases", "--as", "alice", "-n", "team-a")
	canI("no", "create", "databases", "--as", "alice", "-n", "default")
	canI("no", "delete", "databases", "--as", "alice", "-n", "team-a")
	canI("yes", "delete", "databases", "-n", "default")
	// alice asks for herself.
	if out := s.eventually(t, "alice", "auth", "can-i", "create", "databases", "-n", "team-a"); strings.TrimSpace(out) != "yes" {
		t.Errorf("alice can-i create: %q", out)
	}
	if out, err := s.as(t, "alice", "auth", "can-i", "delete", "databases", "-n", "team-a"); err == nil || strings.TrimSpace(out) != "no" {
		t.Errorf("alice can-i delete: %v %q", err, out)
	}
	out, err := s.as(t, "alice", "auth", "can-i", "--list", "-n", "team-a")
	if err != nil {
		t.Fatalf("can-i --list: %v\n%s", err, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^databases\.db\.example\.com\s+\[\]\s+\[\]\s+\[get list create\]$`),
		regexp.MustCompile(`(?m)^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$`),
		regexp.MustCompile(`(?m)^\s+\[/api/\*\]\s+\[\]\s+\[get\]$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("kubectl auth can-i --list lacks %s:\n%s", want, out)
		}
	}
	if out, err := s.as(t, "alice", "auth", "can-i", "--list", "-n", "default"); err != nil || strings.Contains(out, "databases") {
		t.Errorf("can-i --list in default: %v\n%s", err, out)
	}

	out, err = s.as(t, "alice", "auth", "whoami")
	if err != nil || !regexp.MustCompile(`(?m)^Username\s+alice$`).MatchString(out) || !regexp.MustCompile(`(?m)^UID\s+uid-alice$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^Groups\s+\[system:authenticated\]$`).MatchString(out) {
		t.Errorf("kubectl auth whoami as alice: %v\n%s", err, out)
	}
	if out := s.mustKubectl(t, "auth", "whoami", "--as", "bob", "--as-group", "devs", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"); out != `bob ["devs","system:authenticated"]` {
		t.Errorf("whoami as bob in devs: %q", out)
	}

	// Impersonation needs the impersonate verb.
	s.refused(t, `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`,
		"alice", "get", "databases", "-n", "team-a", "--as", "bob")
	s.refused(t, `users "alice" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`,
		"alice", "auth", "can-i", "delete", "databases", "--as", "alice", "--as-group", "system:masters")
	s.mustKubectl(t, "create", "clusterrole", "impersonate-bob", "--verb=impersonate", "--resource=users", "--resource-name=bob")
	s.mustKubectl(t, "create", "clusterrolebinding", "alice-as-bob", "--clusterrole=impersonate-bob", "--user=alice")
	if out := s.eventually(t, "alice", "auth", "whoami", "--as", "bob", "-o", "jsonpath={.status.userInfo.username}"); out != "bob" {
		t.Errorf("alice as bob: %q", out)
	}
}
