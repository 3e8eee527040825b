package emit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

func TestRenderHeaderAndImportNames(t *testing.T) {
	f := NewFile("example.com/apis/db/v1", "v1", nil)
	f.Var().Id("_").Op("=").Qual("k8s.io/apimachinery/pkg/apis/meta/v1", "ObjectMeta").Values()
	f.Var().Id("_").Qual("k8s.io/apimachinery/pkg/runtime", "Object")
	out, err := Render(f, "")
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	if !strings.HasPrefix(src, Header+"\n\n//go:build "+BuildTag+"\n") {
		t.Errorf("generated file does not start with the header and build tag:\n%s", src)
	}
	for _, want := range []string{`metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"`, `runtime "k8s.io/apimachinery/pkg/runtime"`, "metav1.ObjectMeta{}"} {
		if !strings.Contains(src, want) {
			t.Errorf("generated file lacks %q:\n%s", want, src)
		}
	}
	file, err := parser.ParseFile(token.NewFileSet(), "x.go", out, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if !ast.IsGenerated(file) {
		t.Error("ast.IsGenerated is false for a rendered file")
	}
	again, err := Render(func() *jen.File {
		g := NewFile("example.com/apis/db/v1", "v1", nil)
		g.Var().Id("_").Op("=").Qual("k8s.io/apimachinery/pkg/apis/meta/v1", "ObjectMeta").Values()
		g.Var().Id("_").Qual("k8s.io/apimachinery/pkg/runtime", "Object")
		return g
	}(), "")
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != src {
		t.Error("rendering the same file twice gave different bytes")
	}
}
