package roundtriptest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/v1beta1"
	"github.com/apigen-dev/apigen/runtime/roundtriptest"
)

// testGroup is the runtime's test group as a generated round-trip test describes it.
func testGroup(installFn func(*runtime.Scheme)) roundtriptest.Group {
	versions := []string{"v1", "v1beta1"}
	return roundtriptest.Group{
		Name:    testapi.GroupName,
		Install: installFn,
		Kinds: []roundtriptest.Kind{
			{Name: "Gadget", Hub: runtime.APIVersionInternal, Storage: "v1", Versions: versions},
			{Name: "Widget", Hub: runtime.APIVersionInternal, Storage: "v1", Versions: versions},
		},
	}
}

// installTestAPI registers the test group's internal, v1 and v1beta1 types, as
// install.NewScheme does.
func installTestAPI(scheme *runtime.Scheme) {
	for _, add := range []func(*runtime.Scheme) error{testapi.AddToScheme, v1.AddToScheme, v1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
}

// TestRunLossless: the test group converts without loss (v1beta1's spec.colour is spec.color
// elsewhere), so Run passes, and it round-trips each kind from the internal version and both
// served versions.
func TestRunLossless(t *testing.T) {
	t.Parallel()
	roundtriptest.Run(t, testGroup(installTestAPI))
}

// lossyEnv makes TestLossyGroup run: TestRunReportsLostField runs it in a child process,
// whose failure it expects.
const lossyEnv = "ROUNDTRIPTEST_LOSSY"

// TestLossyGroup runs Run on the test group with v1beta1's Gadget conversion to the internal
// version dropping spec.owner. It is skipped unless TestRunReportsLostField runs it.
func TestLossyGroup(t *testing.T) {
	if os.Getenv(lossyEnv) == "" {
		t.Skip("run by TestRunReportsLostField, which expects it to fail")
	}
	roundtriptest.Run(t, testGroup(func(scheme *runtime.Scheme) {
		installTestAPI(scheme)
		err := scheme.AddConversionFunc((*v1beta1.Gadget)(nil), (*testapi.Gadget)(nil), func(a, b any, _ conversion.Scope) error {
			b.(*testapi.Gadget).ObjectMeta = a.(*v1beta1.Gadget).ObjectMeta // spec.owner is lost
			return nil
		})
		if err != nil {
			panic(err)
		}
	}))
}

// TestRunReportsLostField: a conversion that drops a field fails the round trip with the
// field's path and the route it was lost on.
func TestRunReportsLostField(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLossyGroup$", "-test.count=1")
	cmd.Env = append(os.Environ(), lossyEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the lossy group passed:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestLossyGroup/Gadget/__internal",
		"--- FAIL: TestLossyGroup/Gadget/v1beta1",
		"__internal -> v1beta1 -> v1beta1 JSON -> __internal",
		"--- FAIL: TestLossyGroup/Gadget/v1 ", // through v1beta1
		"  spec.owner: \"",
		"fuzzer seed: ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the failure does not say %q:\n%s", want, out)
		}
	}
	for _, notWant := range []string{"FAIL: TestLossyGroup/Widget"} {
		if strings.Contains(string(out), notWant) {
			t.Errorf("the failure says %q, which converts without loss:\n%s", notWant, out)
		}
	}
}

type inner struct {
	Name  string            `json:"name"`
	Size  resource.Quantity `json:"size"`
	Extra *string           `json:"extra,omitempty"`
}

type outer struct {
	Embedded `json:",inline"`
	Spec     inner             `json:"spec"`
	Items    []inner           `json:"items,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	NoTag    int
}

// Embedded stands for an inline metav1.TypeMeta.
type Embedded struct {
	Kind string `json:"kind"`
}

func TestDiff(t *testing.T) {
	t.Parallel()
	s := "x"
	base := func() outer {
		return outer{
			Embedded: Embedded{Kind: "K"},
			Spec:     inner{Name: "a", Size: resource.MustParse("1Gi")},
			Items:    []inner{{Name: "i0"}, {Name: "i1"}},
			Labels:   map[string]string{"app": "db"},
		}
	}
	for name, tc := range map[string]struct {
		change func(*outer)
		want   []string
	}{
		"equal":                      {change: func(*outer) {}},
		"quantity of the same value": {change: func(o *outer) { o.Spec.Size = resource.MustParse("1024Mi") }},
		"nil and empty map":          {change: func(o *outer) { o.Labels = nil; o.Items = []inner{{Name: "i0"}, {Name: "i1"}} }, want: []string{`labels[app]: "db" -> <absent>`}},
		"nested field":               {change: func(o *outer) { o.Spec.Name = "b" }, want: []string{`spec.name: "a" -> "b"`}},
		"inline field":               {change: func(o *outer) { o.Kind = "L" }, want: []string{`kind: "K" -> "L"`}},
		"pointer":                    {change: func(o *outer) { o.Spec.Extra = &s }, want: []string{`spec.extra: nil -> &"x"`}},
		"element":                    {change: func(o *outer) { o.Items[1].Name = "j" }, want: []string{`items[1].name: "i1" -> "j"`}},
		"length":                     {change: func(o *outer) { o.Items = o.Items[:1] }, want: []string{`items: 2 items`}},
		"quantity":                   {change: func(o *outer) { o.Spec.Size = resource.MustParse("2Gi") }, want: []string{`spec.size: 1Gi -> 2Gi`}},
		"untagged and two fields":    {change: func(o *outer) { o.NoTag = 3; o.Spec.Name = "c" }, want: []string{"NoTag: 0 -> 3", `spec.name: "a" -> "c"`}},
	} {
		t.Run(name, func(t *testing.T) {
			a, b := base(), base()
			tc.change(&b)
			ds := roundtriptest.Diff(a, b)
			if len(ds) != len(tc.want) {
				t.Fatalf("Diff = %v, want %d differences like %q", ds, len(tc.want), tc.want)
			}
			for i, d := range ds {
				if !strings.HasPrefix(d.String(), tc.want[i]) {
					t.Errorf("difference %d is %q, want it to start with %q", i, d, tc.want[i])
				}
			}
		})
	}
}
