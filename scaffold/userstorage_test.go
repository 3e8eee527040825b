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
