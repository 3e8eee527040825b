package scaffold

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestUserStorageTemplate: the stub create api --storage=interface writes in the install
// package is package install declaring new<Kind>Storage with the signature the generated
// store calls (the loader's check: one registry.UserStorageConfig, a storage.Interface and an
// error), returning the in-memory storage until the user writes theirs.
func TestUserStorageTemplate(t *testing.T) {
	t.Parallel()
	name, src, err := userStorageFile("apis/shop/v1/install", kindData{Group: "shop.example.com", Version: "v1", Kind: "Order", Lower: "order", A: "an"})
	if err != nil {
		t.Fatal(err)
	}
	if name != "apis/shop/v1/install/order_storage.go" {
		t.Errorf("path %s", name)
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if f.Name.Name != "install" {
		t.Errorf("package %s, want install", f.Name.Name)
	}
	imports := map[string]bool{}
	for _, imp := range f.Imports {
		imports[strings.Trim(imp.Path.Value, `"`)] = true
	}
	for _, want := range []string{"github.com/apigen-dev/apigen/runtime/registry", "github.com/apigen-dev/apigen/runtime/storage",
		"github.com/apigen-dev/apigen/runtime/storage/memory"} {
		if !imports[want] {
			t.Errorf("the stub does not import %s:\n%s", want, src)
		}
	}
	var fd *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == "newOrderStorage" {
			fd = d
		}
	}
	if fd == nil {
		t.Fatalf("no newOrderStorage:\n%s", src)
	}
	sig := string(src[fd.Type.Pos()-1 : fd.Type.End()-1])
	if want := "func newOrderStorage(config registry.UserStorageConfig) (storage.Interface, error)"; sig != want {
		t.Errorf("signature %q, want %q", sig, want)
	}
	if !strings.Contains(string(src), "return memory.New(config.Codec, config.NewFunc, config.Resource), nil") {
		t.Errorf("the stub does not serve the in-memory storage:\n%s", src)
	}
}

// TestCreateAPIStorageInterface: --storage=interface marks the kind +apigen:storage=interface
// and writes the stub new<Kind>Storage in the version's install package once; a second
// version moves it to the hub's install package.
func TestCreateAPIStorageInterface(t *testing.T) {
	t.Parallel()
	root := initRepo(t)
	ledger := APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Ledger", KindOptions: KindOptions{Namespaced: true, Storage: "interface"}}
	apply(t, root, ledger)
	files := tree(t, root)
	if types := files["apis/shop/v1/ledger_types.go"]; !strings.Contains(types, "// +apigen:storage=interface\n") {
		t.Errorf("ledger_types.go lacks +apigen:storage=interface:\n%s", types)
	}
	if stub := files["apis/shop/v1/install/ledger_storage.go"]; !strings.Contains(stub,
		"func newLedgerStorage(config registry.UserStorageConfig) (storage.Interface, error) {") {
		t.Errorf("ledger_storage.go has no newLedgerStorage:\n%s", stub)
	}
	if again, err := CreateAPI(root, ledger); err != nil || len(again.Changes) != 0 {
		t.Errorf("second CreateAPI --storage=interface: %v, %v; want no changes", err, again.Summary())
	}
	beta := ledger
	beta.Version = "v1beta1"
	apply(t, root, beta)
	files = tree(t, root)
	if _, ok := files["apis/shop/v1/install/ledger_storage.go"]; ok {
		t.Error("the stub is still in the single version's install package")
	}
	if !strings.Contains(files["apis/shop/install/ledger_storage.go"], "func newLedgerStorage(") {
		t.Error("the hub's install package has no newLedgerStorage")
	}
	if !strings.Contains(files["apis/shop/v1beta1/ledger_types.go"], "// +apigen:storage=interface\n") {
		t.Error("the v1beta1 copy of Ledger lacks +apigen:storage=interface")
	}
}
