package cel

import (
	"context"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/request"
)

func mustCompile(t *testing.T, c *Compiler, expr string, want ...*cel.Type) *Expression {
	t.Helper()
	e, err := c.Compile(expr, want...)
	if err != nil {
		t.Fatalf("Compile(%q): %v", expr, err)
	}
	return e
}

func TestCompileErrors(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ expr, want string }{
		{"object.spec >", "compilation failed: ERROR: <input>:1:14: Syntax error"},
		{"request.nmae == 'x'", "compilation failed: ERROR: <input>:1:8: undefined field 'nmae'"},
		{"params.x", "undeclared reference to 'params'"},
		{"authorizer.path('/healthz').check('get').allowed()", "undeclared reference to 'authorizer'"},
		{"request.name", "must evaluate to bool but got string"},
	} {
		if _, err := c.Compile(tc.expr, cel.BoolType); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.expr, err, tc.want)
		}
	}
}

// allowDatabases allows alice to create databases, nothing else.
var allowDatabases = authorization.AuthorizerFunc(func(_ context.Context, a authorization.Attributes) (authorization.Decision, string, error) {
	if a.User != nil && a.User.Name == "alice" && a.Verb == "create" && a.Resource == "databases" {
		return authorization.Allow, "", nil
	}
	return authorization.NoOpinion, "", nil
})

func TestEval(t *testing.T) {
	c, err := NewCompiler(Options{HasParams: true, HasAuthorizer: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddVariable("size", "object.spec.size"); err != nil {
		t.Fatal(err)
	}
	if err := c.AddVariable("big", "variables.size > params.limit"); err != nil {
		t.Fatal(err)
	}
	if err := c.AddVariable("broken", "object.spec.size.foo()"); err == nil {
		t.Fatal("an invalid variable compiled")
	}
	a := &admission.Attributes{Operation: admission.Create, Name: "main", Namespace: "team-a", User: &request.User{Name: "alice"}}
	a.Resource.Group, a.Resource.Version, a.Resource.Resource = "db.example.com", "v1", "databases"
	req, err := RequestValue(admission.NewAdmissionRequest(a, "uid", a.Resource, a.Kind))
	if err != nil {
		t.Fatal(err)
	}
	in := &Input{Object: map[string]any{"spec": map[string]any{"size": int64(20)}}, Params: map[string]any{"limit": int64(10)},
		Request: req, Authorizer: authorization.CELAuthorizer(allowDatabases), User: UserInfo(a.User), Resource: Resource(a)}
	act := c.NewActivation(context.Background(), in, RuntimeCELCostBudget)
	for expr, want := range map[string]any{
		"variables.big": true,
		"request.operation + ' ' + request.namespace":                     "CREATE team-a",
		"oldObject == null":                                               true,
		"authorizer.requestResource.check('create').allowed()":            true,
		"authorizer.group('').resource('pods').check('create').allowed()": false,
		"quantity('1Gi').isGreaterThan(quantity('1Mi'))":                  true,
	} {
		out, err := act.Eval(mustCompile(t, c, expr, cel.AnyType))
		if err != nil || out.Value() != want {
			t.Errorf("%s = %v, %v; want %v", expr, out, err, want)
		}
	}
	_, err = act.Eval(mustCompile(t, c, "variables.broken == 1", cel.BoolType))
	if err == nil || !strings.Contains(err.Error(), `composited variable "broken" fails to compile`) {
		t.Errorf("a broken variable: %v", err)
	}
	_, err = act.Eval(mustCompile(t, c, "object.spec.missing == 1", cel.BoolType))
	if err == nil || err.Error() != "expression 'object.spec.missing == 1' resulted in error: no such key: missing" {
		t.Errorf("an evaluation error: %v", err)
	}

	// The budget is shared by the expressions of one activation.
	small := c.NewActivation(context.Background(), in, 3)
	out, err := small.Eval(mustCompile(t, c, "[1, 2, 3].all(x, x > 0)", cel.BoolType))
	if err == nil || !err.(*EvalError).OutOfBudget || out != nil {
		t.Errorf("over budget: %v %v", out, err)
	}
	if v, err := c.NewActivation(context.Background(), in, 100).Eval(mustCompile(t, c, "true", cel.BoolType)); err != nil || v != types.True {
		t.Errorf("true = %v %v", v, err)
	}
}
