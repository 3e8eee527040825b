package install

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
)

// checkGolden compares files with the golden files under testdata/<name>/.
func checkGolden(t *testing.T, name string, files map[string][]byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), files, golden.ByFileName)
}

func TestGenerateGolden(t *testing.T) {
	files, err := New().Generate(testAPI())
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "example", files)
}

func TestGenerateDeterministic(t *testing.T) {
	first, err := New().Generate(testAPI())
	if err != nil {
		t.Fatal(err)
	}
	second, err := New().Generate(testAPI())
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 {
		t.Fatalf("want 2 files, got %d", len(first))
	}
	for path, content := range first {
		if !bytes.Equal(content, second[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}

// TestHubIsVersion serves a single-version group whose version is its hub: objects are the
// version's types and the version is not added twice to the scheme.
func TestHubIsVersion(t *testing.T) {
	api := testAPI()
	g := api.Groups[0]
	g.Hub, g.HubIsVersion, g.Versions = g.Versions[0].Package, true, g.Versions[:1]
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "hubisversion", files)
}

// TestVersionsWithoutHub serves a two-version group without an internal package: each kind
// is held in its hub version's types, its storage version unless a root type has Hub (here
// DatabaseClass, marked stored in v1alpha1, is v1alpha1's and its hook v1alpha1's; Database
// is v1's), and stored in its own storage version.
func TestVersionsWithoutHub(t *testing.T) {
	api := testAPI()
	g := api.Groups[0]
	g.Hub, g.HubIsVersion = g.Versions[0].Package, true
	alpha := g.Versions[1]
	alpha.Kind("DatabaseClass").Storage = true
	alpha.Package.Funcs["ValidateDatabaseClass"] = model.Position{}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "versions", files)
	strategy := string(files["/src/"+hubPath+"/install/zz_generated.strategy.go"])
	for _, want := range []string{"v1alpha1.ValidateDatabaseClass(obj.(*v1alpha1.DatabaseClass))", "obj.(*v1.Database)"} {
		if !strings.Contains(strategy, want) {
			t.Errorf("strategy file lacks %q", want)
		}
	}
}

// TestCreateOnly serves a create-only kind (+genclient:onlyVerbs=create) beside the others:
// a registry.CreateOnlyStore without storage or list type, validated by a
// registry.CreateStrategy that calls the hub's ValidateReview hook.
func TestCreateOnly(t *testing.T) {
	api := testAPI()
	g := api.Groups[0]
	review := &model.Type{Name: model.TypeName{Package: hubPath, Name: "Review"}, Kind: model.Struct, Local: true,
		Fields: []*model.Field{embedded(typeMeta), embedded(objectMeta)}}
	g.Hub.Types = append(g.Hub.Types, review)
	g.Hub.Funcs["ValidateReview"] = model.Position{}
	v1 := g.Versions[0]
	v1Review := *review
	v1Review.Name.Package = v1.Package.Path
	v1.Package.Types = append(v1.Package.Types, &v1Review)
	v1.Kinds = append(v1.Kinds, &model.Kind{Name: "Review", Type: &v1Review, Plural: "reviews", Singular: "review", CreateOnly: true,
		Pos: model.Position{File: "v1/types.go", Line: 40}})
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "createonly", files)
}

// TestMissingHubType reports a kind the hub package has no type for, at the kind.
func TestMissingHubType(t *testing.T) {
	api := testAPI()
	hub := api.Groups[0].Hub
	hub.Types = hub.Types[4:] // drop Backup, BackupSpec, BackupStatus, BackupList
	_, err := New().Generate(api)
	var diags model.Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("want model.Diagnostics, got %v", err)
	}
	want := "v1/types.go:10: cannot serve kind Backup of group db.example.com: the hub package db " +
		"(example.com/shop/apis/db) must declare struct types Backup and BackupList"
	if diags.Error() != want {
		t.Errorf("got %q, want %q", diags.Error(), want)
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{"Database": "database", "DatabaseClass": "databaseClass", "APIService": "apiService", "DB": "db", "X": "x"} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCoreGroup generates the install code of the core group (""), served at /api/v1 as
// Kubernetes' namespaces are: resources are named without a trailing "." in errors and docs.
func TestCoreGroup(t *testing.T) {
	api := testAPI()
	g := api.Groups[0]
	g.Name = ""
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	for path, content := range files {
		text := string(content)
		for _, bad := range []string{"databases.:", "databases./", "the  group", `"databases."`} {
			if bytes.Contains(content, []byte(bad)) {
				t.Errorf("%s contains %q", path, bad)
			}
		}
		if filepath.Base(path) == "zz_generated.install.go" {
			for _, want := range []string{"the core group's", "cannot create the storage of databases: %w", `Group: ""`} {
				if !bytes.Contains(content, []byte(want)) {
					t.Errorf("%s lacks %q:\n%s", path, want, text)
				}
			}
		}
	}
}

// TestVersionMarkersAndVerbs generates the install code of a group whose v1alpha1 Database is
// deprecated (+kubebuilder:deprecatedversion), whose v1alpha1 DatabaseClass is not served
// (+kubebuilder:unservedversion) and whose v1 Backup has +genclient:readonly and v1 Database
// +genclient:skipVerbs=deleteCollection,applyStatus: the golden file carries the
// DeprecationWarnings and Verbs of registry.APIGroupInfo and no v1alpha1 databaseclasses.
func TestVersionMarkersAndVerbs(t *testing.T) {
	api := testAPI()
	g := api.Groups[0]
	v1, alpha := g.Versions[0], g.Versions[1]
	alpha.Kinds[0].DeprecationWarning = "db.example.com/v1alpha1 Database is deprecated; use db.example.com/v1 Database"
	alpha.Kinds[1].Unserved = true
	v1.Kinds[0].Client = &model.Client{Verbs: []string{"get", "list", "watch"}, HasStatus: true, Limited: true, PluralName: "Backups"}
	v1.Kinds[1].Client = &model.Client{Verbs: []string{"create", "update", "updateStatus", "delete", "get", "list", "watch", "patch", "apply"},
		HasStatus: true, Limited: true, PluralName: "Databases",
		Methods: []model.ClientMethod{{Name: "GetScale", Verb: "get", Subresource: "scale"}}}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "lifecycle", files)
}

// TestUnservedVersion leaves a version whose every kind is unserved out of the served
// versions, as a CRD version with served: false.
func TestUnservedVersion(t *testing.T) {
	api := testAPI()
	for _, k := range api.Groups[0].Versions[1].Kinds {
		k.Unserved = true
	}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range files {
		if filepath.Base(path) == installFile && bytes.Contains(b, []byte(`"v1alpha1":`)) {
			t.Errorf("%s serves v1alpha1, whose kinds are all unserved:\n%s", path, b)
		}
	}
}

// TestCodeGeneratorLayout generates the install package of a group laid out as
// k8s.io/sample-apiserver's: the hand-written install.go declares Install, so the generated
// file declares none and NewAPIGroupInfo calls the user's, then checks every served version
// is registered (and registers autoscaling/v1 for /scale, which the hand-written Install does
// not); the strategies call the group's validation package after the hub's hooks: Database's
// create and update hooks (the update hook with the request's context), Backup's create hook on update too (it has no update hook);
// DatabaseClass, which has no hook, runs the declarative validation only.
func TestCodeGeneratorLayout(t *testing.T) {
	api := testAPI()
	g := api.Groups[0]
	g.HandInstall = &model.Package{Path: g.InstallPath, Dir: g.InstallDir, Name: "install",
		Funcs: map[string]model.Position{"Install": {File: "install.go", Line: 12}}}
	g.Validation = &model.Package{Path: hubPath + "/validation", Dir: "/src/" + hubPath + "/validation", Name: "validation",
		Funcs: map[string]model.Position{"ValidateDatabase": {}, "ValidateDatabaseUpdate": {}, "ValidateBackup": {}}}
	g.ValidationTakesContext = map[string]bool{"ValidateDatabaseUpdate": true}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "codegenlayout", files)
	install := string(files[filepath.Join(g.InstallDir, installFile)])
	if strings.Contains(install, "func Install(") || !strings.Contains(install, "\tInstall(scheme)\n") {
		t.Errorf("%s declares Install or does not call the hand-written one:\n%s", installFile, install)
	}
	strategy := string(files[filepath.Join(g.InstallDir, strategyFile)])
	for _, want := range []string{
		"return append(errs, dbvalidation.ValidateDatabaseUpdate(ctx, obj.(*db.Database), old.(*db.Database))...)",
		"errs = append(errs, db.ValidateBackupUpdate(obj.(*db.Backup), old.(*db.Backup))...)\n\treturn append(errs, dbvalidation.ValidateBackup(obj.(*db.Backup))...)",
	} {
		if !strings.Contains(strategy, want) {
			t.Errorf("%s lacks %q:\n%s", strategyFile, want, strategy)
		}
	}
}

// TestUserREST serves DatabaseClass from the user's REST (+apigen:storage=rest) in both
// versions: no strategy, its store a registry.UserREST around the hand-written
// newDatabaseClassREST, served with info.Serve after the etcd-backed resources, with the
// verbs it implements (limited by its +genclient verbs).
func TestUserREST(t *testing.T) {
	api := testAPI()
	for _, v := range api.Groups[0].Versions {
		k := v.Kind("DatabaseClass")
		k.UserStorage = "rest"
		k.Client = &model.Client{Limited: true, Verbs: []string{"get", "list", "watch"}}
	}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "userrest", files)
	install := string(files["/src/"+hubPath+"/install/zz_generated.install.go"])
	for _, want := range []string{
		"newDatabaseClassREST(scheme, group)",
		`info.Serve("v1", "databaseclasses", databaseClassStore, databaseClassStore.Verbs())`,
		`info.Serve("v1alpha1", "databaseclasses", databaseClassStore, databaseClassStore.Verbs())`,
		`AllowedVerbs:              []string{"get", "list", "watch"}`,
	} {
		if !strings.Contains(install, want) {
			t.Errorf("install file lacks %q", want)
		}
	}
	if strategy := string(files["/src/"+hubPath+"/install/zz_generated.strategy.go"]); strings.Contains(strategy, "databaseClassStrategy") {
		t.Error("the strategy file has a strategy for a kind whose REST the user writes")
	}
}

// TestUserStorageInterface: a kind marked +apigen:storage=interface gets its storage from
// registry.NewUserStorage with the install package's new<Kind>Storage, not from the
// server's StorageFactory; the other kinds keep theirs.
func TestUserStorageInterface(t *testing.T) {
	api := testAPI()
	for _, v := range api.Groups[0].Versions {
		if k := v.Kind("Backup"); k != nil {
			k.UserStorage = "interface"
		}
	}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	var src string
	for path, content := range files {
		if strings.HasSuffix(path, "zz_generated.install.go") {
			src = string(content)
		}
	}
	for _, want := range []string{
		"s, err := registry.NewUserStorage(storage, scheme, registry.UserStorageConfig{\n" +
			"\t\tResource:       schema.GroupResource{Group: \"db.example.com\", Resource: \"backups\"},\n" +
			"\t\tStorageVersion: v1.SchemeGroupVersion,",
		"\t}, newBackupStorage)\n",
		`storage.NewStorage(schema.GroupResource{Group: "db.example.com", Resource: "databases"}`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("zz_generated.install.go lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, `storage.NewStorage(schema.GroupResource{Group: "db.example.com", Resource: "backups"}`) {
		t.Errorf("backups are still stored through the server's StorageFactory:\n%s", src)
	}
}
