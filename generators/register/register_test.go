package register

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
)

const base = "github.com/apigen-dev/apigen/generators/register/testdata/db"

func pkg(t *testing.T, sub, name string, types ...string) *model.Package {
	dir, err := filepath.Abs(filepath.Join("testdata", "db", sub))
	if err != nil {
		t.Fatal(err)
	}
	p := &model.Package{Path: filepath.ToSlash(filepath.Join(base, sub)), Dir: dir, Name: name}
	for _, n := range types {
		p.Types = append(p.Types, &model.Type{Name: model.TypeName{Package: p.Path, Name: n}, Kind: model.Struct, Local: true})
	}
	return p
}

func kind(p *model.Package, name string) *model.Kind {
	return &model.Kind{Name: name, Type: p.Type(name), List: p.Type(name + "List")}
}

// dbAPI is a group with a hub (which also declares a type no version serves), a stable and an
// alpha version, and a second group whose only version writes addKnownTypes by hand.
func dbAPI(t *testing.T) *model.API {
	hub := pkg(t, "", "db", "Backup", "BackupList", "Database", "DatabaseList", "DatabaseSpec", "Internal")
	v1 := pkg(t, "v1", "v1", "Backup", "BackupList", "Database", "DatabaseList", "DatabaseSpec")
	alpha := pkg(t, "v1alpha1", "v1alpha1", "Database", "DatabaseList", "DatabaseSpec")
	manual := pkg(t, "manual", "manual", "Thing", "ThingList")
	manual.Funcs = map[string]model.Position{"addKnownTypes": {File: "manual/register.go", Line: 20}}
	vv1 := &model.Version{Name: "v1", Package: v1, Kinds: []*model.Kind{kind(v1, "Backup"), kind(v1, "Database")}}
	vAlpha := &model.Version{Name: "v1alpha1", Package: alpha, Kinds: []*model.Kind{kind(alpha, "Database")}}
	vManual := &model.Version{Name: "v1", Package: manual, Kinds: []*model.Kind{kind(manual, "Thing")}}
	return &model.API{
		Groups: []*model.Group{
			{Name: "db.example.com", Hub: hub, Versions: []*model.Version{vv1, vAlpha}, StorageVersion: vv1},
			{Name: "manual.example.com", Hub: manual, HubIsVersion: true, Versions: []*model.Version{vManual}, StorageVersion: vManual},
		},
		Packages: []*model.Package{hub, manual, v1, alpha},
	}
}

func TestGenerateGolden(t *testing.T) {
	files, err := New().Generate(dbAPI(t))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	var got []string
	for path := range files {
		got = append(got, path)
	}
	sort.Strings(got)
	var want []string
	for _, sub := range []string{"", "v1", "v1alpha1"} {
		p, _ := filepath.Abs(filepath.Join("testdata", "db", sub, FileName))
		want = append(want, p)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("generated files mismatch (-want +got):\n%s", diff)
	}
	golden.CheckCommitted(t, files, "go test ./generators/register -update")
}

// TestGoldenBehaves compiles the golden files with testdata/db's hand-written types and runs
// testdata/db/v1's test, which registers the hub and both versions with a runtime.Scheme.
func TestGoldenBehaves(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on testdata/db/...")
	}
	cmd := exec.Command("go", "test", "-count=1", "./testdata/db/...")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test ./testdata/db/...: %v\n%s", err, out)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	first, err := New().Generate(dbAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	second, err := New().Generate(dbAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != len(second) {
		t.Fatalf("two runs returned %d and %d files", len(first), len(second))
	}
	for path, b := range first {
		if !bytes.Equal(b, second[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}
