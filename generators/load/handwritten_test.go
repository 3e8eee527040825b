package load

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/model"
)

// TestLoadCodeGeneratorLayout loads a group laid out as k8s.io/sample-apiserver's: a
// hand-written install/install.go is recorded and its Install adopted (not refused), and the
// validation package's Validate<Kind> and Validate<Kind>Update with the signatures the
// strategies call are found; near misses are warnings at the function saying what to write.
func TestLoadCodeGeneratorLayout(t *testing.T) {
	api, warnings := loadOK(t, filepath.Join(fixtures, "codegenlayout"))
	g := api.Groups[0]
	if g.HandInstall == nil || !g.AdoptsInstall() {
		t.Fatalf("HandInstall = %+v, want the hand-written install.go with Install adopted", g.HandInstall)
	}
	if !g.HandInstall.Declares("GroupName") || g.HandInstall.Path != g.InstallPath || g.HandInstall.Name != "install" {
		t.Errorf("HandInstall = %+v, want package install at %s declaring GroupName", g.HandInstall, g.InstallPath)
	}
	if pos := g.HandInstall.Funcs["Install"]; !strings.HasSuffix(pos.File, filepath.Join("install", "install.go")) || pos.Line != 16 {
		t.Errorf("Install at %v, want install/install.go:16", pos)
	}
	if g.Validation == nil {
		t.Fatal("Validation = nil, want the validation package")
	}
	var hooks []string
	for name := range g.Validation.Funcs {
		hooks = append(hooks, name)
	}
	slices.Sort(hooks)
	if want := []string{"ValidateFlunder", "ValidateFlunderUpdate"}; !slices.Equal(hooks, want) {
		t.Errorf("validation hooks = %v, want %v", hooks, want)
	}
	if !g.ValidationTakesContext["ValidateFlunderUpdate"] || g.ValidationTakesContext["ValidateFlunder"] {
		t.Errorf("ValidationTakesContext = %v, want ValidateFlunderUpdate only", g.ValidationTakesContext)
	}
	if g.Validation.Path != g.Hub.Path+"/validation" || g.Validation.Name != "validation" {
		t.Errorf("Validation = %s (package %s), want %s/validation", g.Validation.Path, g.Validation.Name, g.Hub.Path)
	}
	if g.Fuzzer == nil || g.Fuzzer.Path != g.Hub.Path+"/fuzzer" || g.Fuzzer.Name != "fuzzer" || !g.Fuzzer.HasVar("Funcs") {
		t.Errorf("Fuzzer = %+v, want package fuzzer at %s/fuzzer declaring var Funcs", g.Fuzzer, g.Hub.Path)
	}
	file := "codegenlayout/apis/wardle/validation/validation.go"
	want := []string{
		file + ":30:6: warning: func ValidateFischer(f wardle.Fischer) field.ErrorList is not called: the generated strategy of Fischer calls " +
			"func ValidateFischer(obj *wardle.Fischer) field.ErrorList (on create, and on update when there is no ValidateFischerUpdate) from package validation; write that signature",
		file + ":33:6: warning: func ValidateFischerUpdate(newFischer, oldFischer *wardle.Fischer, opts Options) field.ErrorList is not called: " +
			"the generated strategy of Fischer calls func ValidateFischerUpdate(obj, old *wardle.Fischer) field.ErrorList (on update) from package validation; write that signature",
		file + ":38:6: warning: func ValidateFlunderCreate(f *wardle.Flunder) field.ErrorList is not called: the generated strategy of Flunder calls " +
			"func ValidateFlunder(obj *wardle.Flunder) field.ErrorList (on create, and on update when there is no ValidateFlunderUpdate) from package validation; name it so",
	}
	if len(warnings) != len(want) {
		t.Errorf("warnings = %v, want %d", warnings, len(want))
	}
	for _, w := range want {
		if !strings.Contains(warnings.Error(), w) {
			t.Errorf("warnings =\n%v\nwant substring %q", warnings, w)
		}
	}
}

// TestLoadHandWrittenInstallSignature: a hand-written Install that NewAPIGroupInfo cannot
// call is an error at it naming the signature to write, where any hand-written file used to
// be refused.
func TestLoadHandWrittenInstallSignature(t *testing.T) {
	_, err := loadFixture(t, filepath.Join(fixtures, "badinstall"))
	var diags model.Diagnostics
	if !errors.As(err, &diags) || !diags.HasErrors() {
		t.Fatalf("Load() error = %v, want error diagnostics", err)
	}
	want := "badinstall/apis/wardle/install/install.go:6:6: func Install(scheme *runtime.Scheme) error: the generated NewAPIGroupInfo calls " +
		"the install package's Install, as Kubernetes' install packages declare it: write func Install(scheme *runtime.Scheme) (k8s.io/apimachinery/pkg/runtime), or rename this function"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Load() error =\n%v\nwant substring %q", err, want)
	}
}

// TestLoadFuzzerPackage: a group's fuzzer package (<hub>/fuzzer) whose Funcs is a function of
// another signature than apimachinery's fuzzer.FuzzerFuncs is an error at it; one without
// Funcs is a warning at its package clause, and neither is recorded in model.Group.Fuzzer.
func TestLoadFuzzerPackage(t *testing.T) {
	api, err := loadFixture(t, filepath.Join(fixtures, "fuzzer"))
	var diags model.Diagnostics
	if !errors.As(err, &diags) || !diags.HasErrors() {
		t.Fatalf("Load() error = %v, want error diagnostics", err)
	}
	want := []string{
		"fuzzer/bad/v1alpha1/fuzzer/fuzzer.go:6:6: func Funcs() []interface{}: the generated round-trip test of bad.fuzzer.example.com passes " +
			"Funcs as apimachinery's fuzzer.FuzzerFuncs: write func Funcs(codecs serializer.CodecFactory) []interface{}",
		"fuzzer/nofuncs/v1alpha1/fuzzer/fuzzer.go:2:9: warning: package github.com/apigen-dev/apigen/generators/testdata/load/fuzzer/nofuncs/v1alpha1/fuzzer declares no Funcs: " +
			"the generated round-trip test of nofuncs.fuzzer.example.com fills objects with apimachinery's metafuzzer alone",
	}
	if len(diags) != len(want) {
		t.Errorf("Load() error =\n%v\nwant %d diagnostics", err, len(want))
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Load() error =\n%v\nwant substring %q", err, w)
		}
	}
	if api != nil {
		for _, g := range api.Groups {
			if g.Fuzzer != nil {
				t.Errorf("group %s: Fuzzer = %+v, want nil", g.Name, g.Fuzzer)
			}
		}
	}
}

// TestLoadRESTStorage: a +apigen:storage=rest kind whose install package lacks
// new<Kind>REST is an error at the kind naming the function to write; one with a status
// subresource is an error at it.
func TestLoadRESTStorage(t *testing.T) {
	_, err := loadFixture(t, filepath.Join(fixtures, "badrest"))
	var diags model.Diagnostics
	if !errors.As(err, &diags) || !diags.HasErrors() {
		t.Fatalf("Load() error = %v, want error diagnostics", err)
	}
	for _, want := range []string{
		"badrest/apis/metrics/v1/types.go:10:6: +apigen:storage=rest on Usage: the generated NewAPIGroupInfo calls newUsageREST; " +
			"write, in a hand-written file of ",
		"func newUsageREST(scheme *runtime.Scheme, group *registry.APIGroupInfo) (rest.Getter, error)",
		"badrest/apis/metrics/v1/types.go:31:6: +apigen:storage=rest on Meter: the user's REST serves the resource only, not a status subresource",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Load() error =\n%v\nwant substring %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "newMeterREST") {
		t.Errorf("Load() error =\n%v\nreports the declared newMeterREST", err)
	}
}

// TestLoadUserStorage: a kind marked +apigen:storage=interface whose install package declares
// no new<Kind>Storage is an error at the kind naming the function to write with its
// signature; one declaring it with another signature is an error at the function; a
// create-only kind, never stored, may not carry the marker.
func TestLoadUserStorage(t *testing.T) {
	_, err := loadFixture(t, filepath.Join(fixtures, "userstorage"))
	var diags model.Diagnostics
	if !errors.As(err, &diags) || !diags.HasErrors() {
		t.Fatalf("Load() error = %v, want error diagnostics", err)
	}
	want := []string{
		"userstorage/apis/wardle/v1alpha1/types.go:10:6: +apigen:storage=interface on Flunder: the install package (",
		"declares no newFlunderStorage: write, in a hand-written file there, " +
			"func newFlunderStorage(config registry.UserStorageConfig) (storage.Interface, error) returning the storage Flunder objects are kept in",
		"userstorage/apis/wardle/install/storage.go:7:6: func newFischerStorage() (storage.Interface, error): the generated store of Fischer calls " +
			"func newFischerStorage(config registry.UserStorageConfig) (storage.Interface, error): write that signature",
		"userstorage/apis/wardle/v1alpha1/types.go:53:6: +apigen:storage=interface on Review: a create-only kind (+genclient:onlyVerbs=create) is never stored; remove the marker",
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Load() error =\n%v\nwant substring %q", err, w)
		}
	}
	if len(diags) != 3 {
		t.Errorf("Load() error =\n%v\nwant 3 diagnostics", err)
	}
}
