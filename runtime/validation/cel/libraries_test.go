package cel

import (
	"strings"
	"testing"
)

// TestKubernetesLibraries evaluates one rule of each Kubernetes CEL library (taken from
// k8s.io/apiserver/pkg/cel/library) on a value that passes and one that fails: before the
// libraries were added, none of these rules compiled.
func TestKubernetesLibraries(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule string
		self Type
		ok   any
		bad  any
	}{
		{"quantity", "quantity(self).isLessThan(quantity('10Gi'))", String, "512Mi", "20Gi"},
		{"quantity compare", "quantity(self).compareTo(quantity('1')) >= 0 && isQuantity(self)", String, "1500m", "500m"},
		{"lists isSorted", "self.isSorted()", List, []string{"a", "b", "c"}, []string{"b", "a"}},
		{"lists sum", "self.sum() <= 10", List, []int{1, 2, 3}, []int{5, 6}},
		{"lists indexOf", "self.indexOf('primary') == 0", List, []string{"primary", "replica"}, []string{"replica", "primary"}},
		{"regex find", "self.find('[0-9]+') == '16'", String, "postgres-16", "postgres"},
		{"url", "isURL(self) && url(self).getScheme() == 'https'", String, "https://example.com/x", "http://example.com"},
		{"ip", "isIP(self) && ip(self).family() == 4", String, "10.0.0.1", "fd00::1"},
		{"cidr", "cidr('10.0.0.0/8').containsIP(self)", String, "10.1.2.3", "192.168.0.1"},
		{"format", "!format.dns1123Label().validate(self).hasValue()", String, "main-db", "Main_DB"},
		{"semver", "isSemver(self) && semver(self).isGreaterThan(semver('1.2.0'))", String, "1.10.0", "1.1.9"},
		{"ext lists", "self.distinct().size() == self.size()", List, []int{1, 2}, []int{1, 1}},
		{"two-variable comprehension", "self.all(i, v, i < 2 || v != 'x')", List, []string{"x", "x"}, []string{"a", "b", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCompile(t, Spec{Rule: tc.rule, Message: "rejected"}, tc.self)
			if errs := r.Validate(ctx, create, path, tc.ok, nil); len(errs) != 0 {
				t.Errorf("%v rejected: %s", tc.ok, render(errs))
			}
			if got := render(r.Validate(ctx, create, path, tc.bad, nil)); got != "FieldValueInvalid spec.engine: rejected" {
				t.Errorf("%v: got %q, want it rejected", tc.bad, got)
			}
		})
	}
}

// TestLibraryErrors checks that a library function's run-time error (an unparsable
// quantity) is an Invalid error naming the rule, and a literal the library checks at compile
// time (an invalid regex) fails to compile, as in kube-apiserver.
func TestLibraryErrors(t *testing.T) {
	r := mustCompile(t, Spec{Rule: "quantity(self).isInteger()"}, String)
	errs := r.Validate(ctx, create, path, "ten", nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "quantities must match the regular expression") {
		t.Errorf("bad quantity: %q", render(errs))
	}
	if _, err := Compile(Spec{Rule: "self.matches('[')"}, String); err == nil || !strings.Contains(err.Error(), "invalid matches argument") {
		t.Errorf("invalid regex literal compiled: %v", err)
	}
}
