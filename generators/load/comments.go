package load

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// declIndex finds the syntax of type and field declarations by file and line, for both the
// source-loaded API packages and dependency files parsed on demand (whose objects come from
// export data and carry positions but no syntax).
type declIndex struct {
	fset  *token.FileSet
	files map[string]*fileDecls // by absolute file name
}

// fileDecls indexes one file's declarations.
type fileDecls struct {
	types  map[int]*typeDecl       // by the line of the type's name
	fields map[fieldKey]*ast.Field // by line and name of the field (or embedded type)
	ends   map[int]*ast.CommentGroup
	// imports are the file's import declarations, for resolving a qualified type name
	// (definedFrom).
	imports []*ast.ImportSpec
}

type fieldKey struct {
	line int
	name string
}

// typeDecl is a type spec with its doc comment and the detached comment block above it.
type typeDecl struct {
	spec     *ast.TypeSpec
	doc      *ast.CommentGroup
	detached *ast.CommentGroup
	// file is the index of the file declaring the type.
	file *fileDecls
}

func newDeclIndex(fset *token.FileSet) *declIndex {
	return &declIndex{fset: fset, files: map[string]*fileDecls{}}
}

// add indexes f (parsed with comments into idx.fset).
func (idx *declIndex) add(f *ast.File) {
	name := idx.fset.Position(f.FileStart).Filename
	if _, ok := idx.files[name]; ok {
		return
	}
	fd := &fileDecls{types: map[int]*typeDecl{}, fields: map[fieldKey]*ast.Field{}, ends: map[int]*ast.CommentGroup{}, imports: f.Imports}
	idx.files[name] = fd
	for _, cg := range f.Comments {
		fd.ends[idx.line(cg.End())] = cg
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			td := &typeDecl{spec: ts, doc: ts.Doc, file: fd}
			if td.doc == nil && gd.Lparen == 0 {
				td.doc = gd.Doc
			}
			above := idx.line(ts.Pos())
			if td.doc != nil {
				above = idx.line(td.doc.Pos())
			} else if gd.Lparen == 0 {
				above = idx.line(gd.Pos())
			}
			td.detached = fd.ends[above-2]
			fd.types[idx.line(ts.Name.Pos())] = td
			idx.addFields(fd, ts.Type)
		}
	}
}

// addFields indexes the fields of a struct type expression.
func (idx *declIndex) addFields(fd *fileDecls, expr ast.Expr) {
	st, ok := expr.(*ast.StructType)
	if !ok {
		return
	}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			fd.fields[fieldKey{idx.line(f.Type.Pos()), embeddedName(f.Type)}] = f
		}
		for _, n := range f.Names {
			fd.fields[fieldKey{idx.line(n.Pos()), n.Name}] = f
		}
	}
}

// embeddedName is the field name of an embedded field: the type name without package or pointer.
func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	}
	return ""
}

func (idx *declIndex) line(p token.Pos) int { return idx.fset.Position(p).Line }

// file returns the index of the named file, parsing it on first use; nil if it cannot be read.
func (idx *declIndex) file(name string) *fileDecls {
	if fd, ok := idx.files[name]; ok {
		return fd
	}
	if name == "" || !filepath.IsAbs(name) {
		return nil
	}
	f, err := parser.ParseFile(idx.fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		idx.files[name] = nil
		return nil
	}
	idx.add(f)
	return idx.files[name]
}

// typeAt returns the declaration of the type whose name is at pos, or nil.
func (idx *declIndex) typeAt(pos token.Position) *typeDecl {
	if fd := idx.file(pos.Filename); fd != nil {
		return fd.types[pos.Line]
	}
	return nil
}

// fieldAt returns the declaration of the field called name at pos, or nil.
func (idx *declIndex) fieldAt(pos token.Position, name string) *ast.Field {
	if fd := idx.file(pos.Filename); fd != nil {
		return fd.fields[fieldKey{pos.Line, name}]
	}
	return nil
}

// commentLines returns the lines of comment groups, each with its position, for the
// markers parser; block comments give one line per source line.
func commentLines(fset *token.FileSet, rel func(model.Position) model.Position, groups ...*ast.CommentGroup) []markers.Line {
	var out []markers.Line
	for _, cg := range groups {
		if cg == nil {
			continue
		}
		for _, c := range cg.List {
			p := fset.Position(c.Slash)
			pos := rel(model.Position{File: p.Filename, Line: p.Line, Col: p.Column})
			if text, ok := strings.CutPrefix(c.Text, "//"); ok {
				out = append(out, markers.Line{Text: text, Pos: pos})
				continue
			}
			body := strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
			for i, l := range strings.Split(body, "\n") {
				lp := pos
				lp.Line += i
				out = append(out, markers.Line{Text: strings.TrimPrefix(strings.TrimSpace(l), "*"), Pos: lp})
			}
		}
	}
	return out
}

// packageComments returns the comment groups that can carry package markers in f: the
// package doc comment and every comment before the package clause, and in doc.go every
// comment of the file, as gengo reads them.
func packageComments(fset *token.FileSet, f *ast.File) []*ast.CommentGroup {
	isDoc := filepath.Base(fset.Position(f.FileStart).Filename) == "doc.go"
	var groups []*ast.CommentGroup
	for _, cg := range f.Comments {
		if isDoc || cg.End() <= f.Package {
			groups = append(groups, cg)
		}
	}
	return groups
}
