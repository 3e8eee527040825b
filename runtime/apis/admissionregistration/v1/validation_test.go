package v1

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// decode reads a YAML manifest into obj and defaults it, as the server does with a body.
func decode(t *testing.T, manifest string, obj any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(manifest), obj); err != nil {
		t.Fatal(err)
	}
	switch o := obj.(type) {
	case *ValidatingWebhookConfiguration:
		SetObjectDefaults_ValidatingWebhookConfiguration(o)
	case *MutatingWebhookConfiguration:
		SetObjectDefaults_MutatingWebhookConfiguration(o)
	case *ValidatingAdmissionPolicy:
		SetObjectDefaults_ValidatingAdmissionPolicy(o)
	case *ValidatingAdmissionPolicyBinding:
		SetObjectDefaults_ValidatingAdmissionPolicyBinding(o)
	}
}

// render renders errors one per line as kubectl prints their causes.
func render(errs field.ErrorList) string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return strings.Join(out, "\n")
}

const validWebhook = `
metadata: {name: deny}
webhooks:
- name: deny.db.example.com
  clientConfig: {url: "https://127.0.0.1:8443/validate"}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [db.example.com], apiVersions: ["*"], resources: [databases, databases/status]}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - {name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}
`

func TestValidateWebhookConfiguration(t *testing.T) {
	var ok ValidatingWebhookConfiguration
	decode(t, validWebhook, &ok)
	if errs := ValidateValidatingWebhookConfiguration(&ok); len(errs) != 0 {
		t.Fatalf("a valid configuration: %s", render(errs))
	}
	if w := ok.Webhooks[0]; *w.FailurePolicy != Fail || *w.MatchPolicy != Equivalent || *w.TimeoutSeconds != 10 || *w.Rules[0].Scope != AllScopes {
		t.Errorf("defaults: %+v", w)
	}
	for _, tc := range []struct {
		name, replace, with, want string
	}{
		{"name", "name: deny.db.example.com", "name: deny", `webhooks[0].name: Invalid value: "deny": should be a domain with at least three segments separated by dots`},
		{"http url", "https://127.0.0.1", "http://127.0.0.1", `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`},
		{"no client", `clientConfig: {url: "https://127.0.0.1:8443/validate"}`, "clientConfig: {}", `webhooks[0].clientConfig: Required value: exactly one of url or service is required`},
		{"service path", `clientConfig: {url: "https://127.0.0.1:8443/validate"}`, "clientConfig: {service: {name: hook, namespace: default, path: validate}}",
			`webhooks[0].clientConfig.service.path: Invalid value: "validate": must start with a '/'`},
		{"side effects", "sideEffects: None", "sideEffects: Some", `webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`},
		{"no side effects", "  sideEffects: None\n", "", `webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`},
		{"timeout", "sideEffects: None", "sideEffects: None\n  timeoutSeconds: 31", `webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`},
		{"review versions", "admissionReviewVersions: [v1]", "admissionReviewVersions: [v2]", `webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`},
		{"operations", "operations: [CREATE, UPDATE]", "operations: [CREATE, \"*\"]", `webhooks[0].rules[0].operations: Invalid value: ["CREATE","*"]: if '*' is present, must not specify other operations`},
		{"resources", "resources: [databases, databases/status]", "resources: [\"*\", databases]", `webhooks[0].rules[0].resources: Invalid value: ["*","databases"]: if '*' is present, must not specify other resources without subresources`},
		{"condition", "expression: \"!request", "expression: \"1 + !request", `webhooks[0].matchConditions[0].expression: Invalid value: "1 + !request.userInfo.username.startsWith('system:')": compilation failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, bool)'`},
		{"condition type", "expression: \"!request.userInfo.username.startsWith('system:')\"", "expression: \"request.name\"", `webhooks[0].matchConditions[0].expression: Invalid value: "request.name": must evaluate to bool but got string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj ValidatingWebhookConfiguration
			decode(t, strings.Replace(validWebhook, tc.replace, tc.with, 1), &obj)
			if got := render(ValidateValidatingWebhookConfiguration(&obj)); !strings.Contains(got, tc.want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}

	var m MutatingWebhookConfiguration
	decode(t, strings.Replace(validWebhook, "sideEffects: None", "sideEffects: None\n  reinvocationPolicy: Always", 1), &m)
	if got := render(ValidateMutatingWebhookConfiguration(&m)); got != `webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"` {
		t.Errorf("mutating: %s", got)
	}
}

const validPolicy = `
metadata: {name: db-size}
spec:
  paramKind: {apiVersion: db.example.com/v1, kind: DatabaseClass}
  matchConstraints:
    resourceRules:
    - {operations: [CREATE, UPDATE], apiGroups: [db.example.com], apiVersions: [v1], resources: [databases]}
  variables:
  - {name: size, expression: "object.spec.storage"}
  validations:
  - expression: "variables.size != '' && params != null"
    messageExpression: "'size ' + variables.size + ' is not allowed'"
    reason: Invalid
  auditAnnotations:
  - {key: size, valueExpression: "variables.size"}
`

func TestValidatePolicy(t *testing.T) {
	var ok ValidatingAdmissionPolicy
	decode(t, validPolicy, &ok)
	if errs := ValidateValidatingAdmissionPolicy(&ok); len(errs) != 0 {
		t.Fatalf("a valid policy: %s", render(errs))
	}
	for _, tc := range []struct{ name, replace, with, want string }{
		{"no rules", "    resourceRules:\n    - {operations: [CREATE, UPDATE], apiGroups: [db.example.com], apiVersions: [v1], resources: [databases]}\n", "    matchPolicy: Exact\n",
			"spec.matchConstraints.resourceRules: Required value"},
		{"params without paramKind", "  paramKind: {apiVersion: db.example.com/v1, kind: DatabaseClass}\n", "", `undeclared reference to 'params'`},
		{"unknown variable field", "variables.size != ''", "variables.sise != ''", `undefined field 'sise'`},
		{"variable name", "name: size, expression", "name: 1size, expression", `spec.variables[0].name: Invalid value: "1size": name is not a valid CEL identifier`},
		{"reason", "reason: Invalid", "reason: Conflict", `spec.validations[0].reason: Unsupported value: "Conflict"`},
		{"message expression type", "messageExpression: \"'size ' + variables.size + ' is not allowed'\"", "messageExpression: \"1\"",
			`spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int`},
		{"kind", "kind: DatabaseClass", "kind: Database_Class", `spec.paramKind.kind: Invalid value: "Database_Class": may have mixed case`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj ValidatingAdmissionPolicy
			decode(t, strings.Replace(validPolicy, tc.replace, tc.with, 1), &obj)
			if got := render(ValidateValidatingAdmissionPolicy(&obj)); !strings.Contains(got, tc.want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
	var empty ValidatingAdmissionPolicy
	decode(t, "metadata: {name: x}\nspec: {}", &empty)
	want := "spec.matchConstraints: Required value\n" +
		"spec.validations: Required value: validations or auditAnnotations must contain at least one item\n" +
		"spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"
	if got := render(ValidateValidatingAdmissionPolicy(&empty)); got != want {
		t.Errorf("an empty policy:\n%s", got)
	}
}

func TestValidateBinding(t *testing.T) {
	const valid = "metadata: {name: b}\nspec:\n  policyName: db-size\n  validationActions: [Deny, Audit]\n  paramRef: {name: small, parameterNotFoundAction: Deny}\n"
	var ok ValidatingAdmissionPolicyBinding
	decode(t, valid, &ok)
	if errs := ValidateValidatingAdmissionPolicyBinding(&ok); len(errs) != 0 {
		t.Fatalf("a valid binding: %s", render(errs))
	}
	for _, tc := range []struct{ replace, with, want string }{
		{"[Deny, Audit]", "[Deny, Warn]", `spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn`},
		{"  validationActions: [Deny, Audit]\n", "", `spec.validationActions: Required value: at least one validation action is required`},
		{"{name: small, parameterNotFoundAction: Deny}", "{parameterNotFoundAction: Deny}", `spec.paramRef: Required value: one of name or selector must be specified`},
		{"{name: small, parameterNotFoundAction: Deny}", "{name: small, selector: {}, parameterNotFoundAction: Deny}", `spec.paramRef.name: Forbidden: name and selector are mutually exclusive`},
		{", parameterNotFoundAction: Deny}", "}", `spec.paramRef.parameterNotFoundAction: Required value`},
		{"policyName: db-size", "policyName: Db_Size", `spec.policyName: Invalid value: "Db_Size"`},
	} {
		var obj ValidatingAdmissionPolicyBinding
		decode(t, strings.Replace(valid, tc.replace, tc.with, 1), &obj)
		if got := render(ValidateValidatingAdmissionPolicyBinding(&obj)); !strings.Contains(got, tc.want) {
			t.Errorf("%s -> %s:\ngot:\n%s\nwant:\n%s", tc.replace, tc.with, got, tc.want)
		}
	}
}
