package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// quotaCRD is a CustomResourceDefinition whose validation rules call Kubernetes' CEL
// libraries: quantity() (and isQuantity) and the lists library's isSorted().
const quotaCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: quotas.cel.example.com
spec:
  group: cel.example.com
  scope: Namespaced
  names: {plural: quotas, singular: quota, kind: Quota}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "quantity(self.request).compareTo(quantity(self.limit)) <= 0"
              message: request must not exceed limit
            properties:
              request:
                type: string
                x-kubernetes-validations:
                - rule: isQuantity(self)
                  messageExpression: "'request ' + self + ' is not a quantity'"
              limit: {type: string}
              tiers:
                type: array
                items: {type: string}
                x-kubernetes-validations:
                - rule: self.isSorted()
                  message: tiers must be sorted
`

// TestCRDLibraryRules applies, with kubectl, a CRD whose x-kubernetes-validations use
// quantity() and isSorted() (Kubernetes' CEL libraries): the CRD is accepted and its objects
// are validated by those rules, with kube-apiserver's 422 wording.
func TestCRDLibraryRules(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "quota-crd.yaml", quotaCRD))
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/quotas.cel.example.com")
	waitForAPIResource(t, s, "cel.example.com", regexp.MustCompile(`(?m)^quotas\s`))
	quota := func(name, request, limit, tiers string) string {
		return writeCRDManifest(t, name+".yaml", "apiVersion: cel.example.com/v1\nkind: Quota\nmetadata:\n  name: "+name+
			"\n  namespace: default\nspec:\n  request: "+request+"\n  limit: "+limit+"\n  tiers: "+tiers+"\n")
	}
	s.mustKubectl(t, "apply", "-f", quota("small", "500Mi", "1Gi", "[bronze, gold, silver]"))
	if got := s.mustKubectl(t, "get", "quota.cel.example.com", "small", "-o", "jsonpath={.spec.limit}"); got != "1Gi" {
		t.Errorf("stored limit = %q", got)
	}
	for _, tc := range []struct{ name, request, limit, tiers, want string }{
		{"greedy", "2Gi", "1Gi", "[gold]", `The Quota "greedy" is invalid: spec: Invalid value: request must not exceed limit`},
		{"unsorted", `"1"`, `"2"`, "[silver, gold]", `The Quota "unsorted" is invalid: spec.tiers: Invalid value: tiers must be sorted`},
		{"nonsense", "lots", `"2"`, "[]", `spec.request: Invalid value: "lots": request lots is not a quantity`},
	} {
		out, err := s.kubectl(t, "apply", "-f", quota(tc.name, tc.request, tc.limit, tc.tiers))
		if err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %v\n%s\nwant %q", tc.name, err, out, tc.want)
		}
	}
}
