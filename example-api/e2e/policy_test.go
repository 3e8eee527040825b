package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// admissionPolicies are two ValidatingAdmissionPolicies with bindings: replicas-limit
// refuses more than 5 replicas; class-storage, with DatabaseClass parameters, refuses storage
// beyond the class's maxStorage (quantity() from Kubernetes' CEL library) and only warns for
// a database in a namespace labelled stage=dev.
const admissionPolicies = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas-limit
spec:
  matchConstraints:
    resourceRules:
    - {operations: [CREATE, UPDATE], apiGroups: [db.example.com], apiVersions: ["*"], resources: [databases]}
  validations:
  - expression: "!has(object.spec.replicas) || object.spec.replicas <= 5"
    message: at most 5 replicas
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicas-limit
spec:
  policyName: replicas-limit
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: class-storage
spec:
  paramKind: {apiVersion: db.example.com/v1, kind: DatabaseClass}
  matchConstraints:
    resourceRules:
    - {operations: [CREATE, UPDATE], apiGroups: [db.example.com], apiVersions: [v1], resources: [databases]}
  variables:
  - {name: storage, expression: "quantity(object.spec.storage)"}
  validations:
  - expression: "variables.storage.compareTo(quantity(params.spec.maxStorage)) <= 0"
    messageExpression: "'storage ' + object.spec.storage + ' exceeds ' + params.spec.maxStorage + ' of class ' + params.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: class-storage
spec:
  policyName: class-storage
  paramRef: {name: standard-postgres, parameterNotFoundAction: Deny}
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchExpressions: [{key: stage, operator: NotIn, values: [dev]}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: class-storage-dev
spec:
  policyName: class-storage
  paramRef: {name: standard-postgres, parameterNotFoundAction: Allow}
  validationActions: [Warn]
  matchResources:
    namespaceSelector:
      matchLabels: {stage: dev}
`

// TestValidatingAdmissionPolicy applies ValidatingAdmissionPolicies and bindings with kubectl
// and sees them refuse Databases by CEL rules (admission policies), with
// kube's messages through kubectl and client-go: a plain rule, a rule over the binding's
// DatabaseClass parameter, and a Warn binding.
func TestValidatingAdmissionPolicy(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", "../config/samples/db_v1_databaseclass.yaml")
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "policies.yaml", admissionPolicies))
	s.mustKubectl(t, "create", "namespace", "dev")
	s.mustKubectl(t, "label", "namespace", "dev", "stage=dev")

	manifest := func(name, ns, spec string) string {
		return writeCRDManifest(t, ns+"-"+name+".yaml", "apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: "+name+
			"\n  namespace: "+ns+"\nspec:\n  engine: postgres\n"+spec)
	}
	untilRefused(t, func() (string, error) {
		return s.kubectl(t, "create", "-f", manifest("many", "default", "  replicas: 7\n"))
	},
		`databases.db.example.com "many" is forbidden: ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit' denied request: at most 5 replicas`)
	out, err := s.kubectl(t, "create", "-f", manifest("huge", "default", "  storage: 200Gi\n"))
	// 422 Invalid (a validation without reason): kubectl prints the refusal's cause, as it
	// does for kube-apiserver's.
	if err == nil || !strings.Contains(out, `The databases "huge" is invalid: : ValidatingAdmissionPolicy 'class-storage' with binding 'class-storage' denied request: storage 200Gi exceeds 100Gi of class standard-postgres`) {
		t.Errorf("storage over the class's maximum: %v\n%s", err, out)
	}
	s.mustKubectl(t, "create", "-f", manifest("fits", "default", "  storage: 50Gi\n"))
	out = s.mustKubectl(t, "create", "-f", manifest("huge", "dev", "  storage: 200Gi\n"))
	if !strings.Contains(out, "Warning: Validation failed for ValidatingAdmissionPolicy 'class-storage' with binding 'class-storage-dev': storage 200Gi exceeds 100Gi of class standard-postgres") {
		t.Errorf("the Warn binding's warning did not reach kubectl:\n%s", out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = s.dynamic.Resource(databasesV1).Namespace("default").Create(ctx,
		newDatabase("db.example.com/v1", "client", map[string]any{"engine": "postgres", "replicas": int64(6)}), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "denied request: at most 5 replicas") {
		t.Errorf("client-go: %v", err)
	}
	if status, ok := err.(apierrors.APIStatus); !ok || len(status.Status().Details.Causes) != 1 {
		t.Errorf("the refusal's causes: %#v", err)
	}
}
