package load

import (
	"go/ast"
	"path/filepath"

	"github.com/apigen-dev/apigen/generators/model"
)

// serializerPath is the import path of serializer.CodecFactory, the parameter of a fuzzer
// package's Funcs.
const serializerPath = "k8s.io/apimachinery/pkg/runtime/serializer"

// fuzzerPackage records in g.Fuzzer the group's hand-written fuzzer package (<hub dir>/fuzzer,
// as Kubernetes' pkg/apis/<group>/fuzzer) when it declares Funcs: a variable (Kubernetes'
// `var Funcs = func(codecs runtimeserializer.CodecFactory) []interface{} {...}`, whose type
// the compiler checks in the generated test) or a function
// func Funcs(codecs serializer.CodecFactory) []interface{} (or []any). A function Funcs of
// another signature is an error at it; a package without Funcs is a warning at its first file,
// and the generated round-trip test then fills objects with apimachinery's metafuzzer alone.
func (b *builder) fuzzerPackage(g *model.Group) {
	dir := filepath.Join(g.Hub.Dir, "fuzzer")
	files, err := b.handFiles(dir)
	if err != nil {
		b.errorf(b.pos(model.Position{File: dir}), "cannot read the fuzzer package of group %s: %v", g.Name, err)
		return
	}
	if len(files) == 0 {
		return
	}
	p := &model.Package{Path: g.Hub.Path + "/fuzzer", Dir: dir, Name: files[0].Name.Name,
		Funcs: map[string]model.Position{}, Vars: map[string]model.Position{}}
	declared := false // Funcs, of the right signature or not
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil || d.Name.Name != "Funcs" {
					continue
				}
				declared = true
				if !fuzzerFuncsSignature(d, importNames(f)) {
					b.errorf(b.position(d.Name.Pos()), "%s: the generated round-trip test of %s passes Funcs as apimachinery's "+
						"fuzzer.FuzzerFuncs: write func Funcs(codecs serializer.CodecFactory) []interface{} (serializer is %s), "+
						"as Kubernetes' pkg/apis/<group>/fuzzer", signature(b, d), g.Name, serializerPath)
					continue
				}
				p.Funcs["Funcs"] = b.position(d.Name.Pos())
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for _, n := range vs.Names {
						if n.Name == "Funcs" {
							p.Vars["Funcs"] = b.position(n.Pos())
						}
					}
				}
			}
		}
	}
	if declared && len(p.Funcs)+len(p.Vars) == 0 {
		return
	}
	if len(p.Funcs)+len(p.Vars) == 0 {
		b.warnf(b.position(files[0].Name.Pos()), "package %s declares no Funcs: the generated round-trip test of %s fills objects "+
			"with apimachinery's metafuzzer alone; declare var Funcs = func(codecs serializer.CodecFactory) []interface{} {...} "+
			"(serializer is %s), as Kubernetes' pkg/apis/<group>/fuzzer", p.Path, g.Name, serializerPath)
		return
	}
	g.Fuzzer = p
}

// fuzzerFuncsSignature reports whether fd is func(serializer.CodecFactory) []interface{} (or
// []any), apimachinery's fuzzer.FuzzerFuncs.
func fuzzerFuncsSignature(fd *ast.FuncDecl, imports map[string]string) bool {
	params := flatParams(fd.Type.Params)
	if fd.Type.TypeParams != nil || len(params) != 1 || !isQualified(params[0], imports, serializerPath, "CodecFactory") {
		return false
	}
	r := fd.Type.Results
	if r == nil || len(r.List) != 1 || len(r.List[0].Names) > 1 {
		return false
	}
	slice, ok := r.List[0].Type.(*ast.ArrayType)
	if !ok || slice.Len != nil {
		return false
	}
	switch elem := slice.Elt.(type) {
	case *ast.Ident:
		return elem.Name == "any"
	case *ast.InterfaceType:
		return elem.Methods == nil || len(elem.Methods.List) == 0
	}
	return false
}
