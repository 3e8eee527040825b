package load

import (
	"bytes"
	"errors"
	"go/ast"
	"go/build"
	"go/format"
	"go/parser"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths the hand-written signatures are checked against.
const (
	runtimePath = "k8s.io/apimachinery/pkg/runtime"
	fieldPath   = "k8s.io/apimachinery/pkg/util/validation/field"
)

// handFiles parses the hand-written Go files of dir that a build of its package compiles:
// not tests, not zz_generated.* (apigen's own), and matching the build constraints of the
// default build context. It returns nil, nil when dir does not exist.
func (b *builder) handFiles(dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || filepath.Ext(name) != ".go" || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated.") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(b.fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if !ast.IsGenerated(f) {
			files = append(files, f)
		}
	}
	return files, nil
}

// handInstall records the hand-written files of g's install directory in g.HandInstall, as
// Kubernetes' and sample-apiserver's install/install.go: apigen generates beside them. A
// hand-written Install is adopted (the generated NewAPIGroupInfo calls it) when it has the
// signature of Kubernetes' install packages, func Install(scheme *runtime.Scheme); another
// Install, or a package clause other than install, is an error at the file naming what to
// write. Clashes of other names with the generated files are reported by generators.Run.
func (b *builder) handInstall(g *model.Group) {
	files, err := b.handFiles(g.InstallDir)
	if err != nil {
		b.errorf(b.pos(model.Position{File: g.InstallDir}), "cannot read the install directory of group %s: %v", g.Name, err)
		return
	}
	if len(files) == 0 {
		return
	}
	for _, f := range files {
		if f.Name.Name != "install" {
			b.errorf(b.position(f.Name.Pos()), "package %s in the install directory of group %s: apigen generates package install there "+
				"(zz_generated.install.go declares NewAPIGroupInfo); write package install", f.Name.Name, g.Name)
			return
		}
	}
	g.HandInstall = &model.Package{Path: g.InstallPath, Dir: g.InstallDir, Name: "install",
		Funcs: b.funcs(files), Vars: b.vars(files), TypeNames: b.typeNames(files)}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != "Install" {
				continue
			}
			imports := importNames(f)
			if fd.Type.TypeParams == nil && fd.Type.Results == nil && paramsAre(fd.Type.Params, imports, runtimePath, "Scheme", 1) {
				continue
			}
			rt := imports[runtimePath]
			if rt == "" {
				rt = "runtime"
			}
			b.errorf(b.position(fd.Name.Pos()), "%s: the generated NewAPIGroupInfo calls the install package's Install, "+
				"as Kubernetes' install packages declare it: write func Install(scheme *%s.Scheme) (%s), or rename this function",
				signature(b, fd), rt, runtimePath)
		}
	}
}

// validationPackage records in g.Validation the functions of the group's validation package
// (<hub dir>/validation, as Kubernetes' and sample-apiserver's pkg/apis/<group>/validation)
// that the generated strategies call: Validate<Kind>(obj *<hub>.<Kind>) field.ErrorList and
// Validate<Kind>Update(obj, old *<hub>.<Kind>) field.ErrorList, each possibly with a leading
// ctx context.Context (g.ValidationTakesContext), as apiextensions-apiserver's
// ValidateCustomResourceDefinition(ctx, obj). A function named for a kind
// of the group (Validate<Kind>, Validate<Kind>Update, Validate<Kind>Create) with another
// signature is a warning at it saying what to write: it is not called. Groups without an
// internal package have no such package (the functions take internal types).
func (b *builder) validationPackage(g *model.Group) {
	if g.HubIsVersion {
		return
	}
	dir := filepath.Join(g.Hub.Dir, "validation")
	files, err := b.handFiles(dir)
	if err != nil {
		b.errorf(b.pos(model.Position{File: dir}), "cannot read the validation package of group %s: %v", g.Name, err)
		return
	}
	if len(files) == 0 {
		return
	}
	kinds := map[string]bool{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if g.Hub.Type(k.Name) != nil {
				kinds[k.Name] = true
			}
		}
	}
	p := &model.Package{Path: g.Hub.Path + "/validation", Dir: dir, Name: files[0].Name.Name, Funcs: map[string]model.Position{}}
	for _, f := range files {
		imports := importNames(f)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil {
				continue
			}
			kind, suffix := hookKind(fd.Name.Name, kinds)
			if kind == "" {
				continue
			}
			n := 1
			if suffix == "Update" {
				n = 2
			}
			params := flatParams(fd.Type.Params)
			withCtx := len(params) > 0 && isQualified(params[0], imports, "context", "Context")
			if withCtx {
				params = params[1:]
			}
			if suffix != "Create" && fd.Type.TypeParams == nil && typesAre(params, imports, g.Hub.Path, kind, n) && resultIs(fd.Type.Results, imports, fieldPath, "ErrorList") {
				p.Funcs[fd.Name.Name] = b.position(fd.Name.Pos())
				if withCtx {
					if g.ValidationTakesContext == nil {
						g.ValidationTakesContext = map[string]bool{}
					}
					g.ValidationTakesContext[fd.Name.Name] = true
				}
				continue
			}
			hub, field := imports[g.Hub.Path], imports[fieldPath]
			if hub == "" {
				hub = g.Hub.Name
			}
			if field == "" {
				field = "field"
			}
			create := "func Validate" + kind + "(obj *" + hub + "." + kind + ") " + field + ".ErrorList"
			update := "func Validate" + kind + "Update(obj, old *" + hub + "." + kind + ") " + field + ".ErrorList"
			want := create + " (on create, and on update when there is no Validate" + kind + "Update)"
			if suffix == "Update" {
				want = update + " (on update)"
			}
			fix := "write that signature, with a leading ctx context.Context if you need the request's " +
				"(a function taking options can be called from one that has it)"
			if suffix == "Create" {
				fix = "name it so, with that signature"
			}
			b.warnf(b.position(fd.Name.Pos()), "%s is not called: the generated strategy of %s calls %s from package %s; %s",
				signature(b, fd), kind, want, p.Name, fix)
		}
	}
	if len(p.Funcs) > 0 {
		g.Validation = p
	}
}

// hookKind returns the kind of kinds a validation function called name is for, and the suffix
// after Validate<Kind> ("", "Update" or "Create"), or "" when it is none.
func hookKind(name string, kinds map[string]bool) (kind, suffix string) {
	rest, ok := strings.CutPrefix(name, "Validate")
	if !ok {
		return "", ""
	}
	if kinds[rest] {
		return rest, ""
	}
	for _, s := range []string{"Update", "Create"} {
		if k, ok := strings.CutSuffix(rest, s); ok && kinds[k] {
			return k, s
		}
	}
	return "", ""
}

// importNames maps the import paths of f to the names it refers to them by (the last path
// element when unnamed, as Kubernetes' packages are named).
func importNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[p] = name
	}
	return out
}

// flatParams returns the type of each parameter of params, one per name
// (`(a, b *T)` is two).
func flatParams(params *ast.FieldList) []ast.Expr {
	var out []ast.Expr
	for _, fld := range params.List {
		for range max(len(fld.Names), 1) {
			out = append(out, fld.Type)
		}
	}
	return out
}

// paramsAre reports whether params are exactly n parameters, each *<pkg>.<name> with pkg
// imported from pkgPath.
func paramsAre(params *ast.FieldList, imports map[string]string, pkgPath, name string, n int) bool {
	return typesAre(flatParams(params), imports, pkgPath, name, n)
}

// typesAre reports whether types are exactly n, each *<pkg>.<name> with pkg imported from
// pkgPath.
func typesAre(types []ast.Expr, imports map[string]string, pkgPath, name string, n int) bool {
	if len(types) != n {
		return false
	}
	for _, t := range types {
		star, ok := t.(*ast.StarExpr)
		if !ok || !isQualified(star.X, imports, pkgPath, name) {
			return false
		}
	}
	return true
}

// resultIs reports whether results are exactly one <pkg>.<name>, pkg imported from pkgPath.
func resultIs(results *ast.FieldList, imports map[string]string, pkgPath, name string) bool {
	return results != nil && len(results.List) == 1 && len(results.List[0].Names) <= 1 &&
		isQualified(results.List[0].Type, imports, pkgPath, name)
}

// isQualified reports whether e is <pkg>.<name> with pkg the name imports give pkgPath.
func isQualified(e ast.Expr, imports map[string]string, pkgPath, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	local, imported := imports[pkgPath]
	return ok && imported && x.Name == local && sel.Sel.Name == name
}

// signature renders fd's signature as written: "func ValidateStore(s shop.Store) field.ErrorList".
func signature(b *builder, fd *ast.FuncDecl) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, b.fset, fd.Type); err != nil {
		return "func " + fd.Name.Name
	}
	return "func " + fd.Name.Name + strings.TrimPrefix(buf.String(), "func")
}
