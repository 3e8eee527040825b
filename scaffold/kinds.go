package scaffold

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// KindOptions are the options of `apigen create api` that shape a kind's markers.
type KindOptions struct {
	// Namespaced is false for a cluster-scoped kind (+kubebuilder:resource:scope=Cluster).
	Namespaced bool
	// Status adds the status subresource (+kubebuilder:subresource:status).
	Status bool
	// Scale adds the scale subresource over spec.replicas and status.replicas.
	Scale bool
	// Storage is where the kind's objects are kept (+apigen:storage): "" (etcd) or "rest"
	// (the user's REST, from a stub new<Kind>REST written in the install package).
	Storage string
}

// String describes the options as create api's flags would.
func (o KindOptions) String() string {
	s := fmt.Sprintf("--namespaced=%v --status=%v --scale=%v", o.Namespaced, o.Status, o.Scale)
	if o.Storage != "" {
		s += " --storage=" + o.Storage
	}
	return s
}

// storageMarker matches +apigen:storage=rest or =interface.
var storageMarker = regexp.MustCompile(`\+apigen:storage=(rest|interface)\b`)

// storageOf returns the level of doc's +apigen:storage marker, "" for etcd or none.
func storageOf(doc string) string {
	if m := storageMarker.FindStringSubmatch(doc); m != nil {
		return m[1]
	}
	return ""
}

// optionsOf reads a kind's options from its doc comment's markers.
func optionsOf(doc string) KindOptions {
	return KindOptions{
		Namespaced: !strings.Contains(doc, "scope=Cluster") && !strings.Contains(doc, "+genclient:nonNamespaced"),
		Status:     strings.Contains(doc, "+kubebuilder:subresource:status"),
		Scale:      strings.Contains(doc, "+kubebuilder:subresource:scale"),
		Storage:    storageOf(doc),
	}
}

// source is one parsed hand-written Go file of a package.
type source struct {
	name string
	src  []byte
	file *ast.File
	fset *token.FileSet
}

// readSources parses the hand-written (not zz_generated, not _test) Go files of dir; a
// missing directory has none.
func readSources(dir string) ([]*source, error) {
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	files := map[string][]byte{}
	for _, n := range names {
		base := filepath.Base(n)
		if strings.HasPrefix(base, "zz_generated") || strings.HasSuffix(base, "_test.go") {
			continue
		}
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		files[base] = data
	}
	return parseSources(files)
}

// parseSources parses files (name -> content), sorted by name.
func parseSources(files map[string][]byte) ([]*source, error) {
	var out []*source
	for name, src := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		out = append(out, &source{name: name, src: src, file: f, fset: fset})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// typeDecl is one type declaration of a package, with the source text of its doc comment
// (and a marker block right above it) and declaration.
type typeDecl struct {
	name string
	text string // "// doc\ntype X struct{...}"
	doc  string // the comment text, markers included
	spec *ast.TypeSpec
	src  *source
}

// typeDecls returns every type declared in srcs, by name.
func typeDecls(srcs []*source) map[string]*typeDecl {
	decls := map[string]*typeDecl{}
	for _, s := range srcs {
		for _, d := range s.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				doc, body := gd.Doc, s.slice(gd.Pos(), gd.End())
				if gd.Lparen.IsValid() {
					doc, body = ts.Doc, "type "+s.slice(ts.Pos(), ts.End())
				}
				start := ts.Pos()
				if doc != nil {
					start = doc.Pos()
				}
				if above := s.markerBlockAbove(start); above != nil {
					start = above.Pos()
				}
				comment := s.slice(start, ts.Pos())
				if i := strings.LastIndex(comment, "\ntype"); i >= 0 {
					comment = comment[:i+1]
				} else if strings.HasPrefix(strings.TrimSpace(comment), "type") {
					comment = ""
				}
				decls[ts.Name.Name] = &typeDecl{name: ts.Name.Name, spec: ts, src: s,
					doc: comment, text: strings.TrimRight(comment, "\n") + "\n" + body}
			}
		}
	}
	return decls
}

func (s *source) slice(from, to token.Pos) string {
	return string(s.src[s.fset.Position(from).Offset:s.fset.Position(to).Offset])
}

// markerBlockAbove returns the comment group of markers that ends one blank line above pos,
// as controller-tools reads markers from it.
func (s *source) markerBlockAbove(pos token.Pos) *ast.CommentGroup {
	line := s.fset.Position(pos).Line
	for _, cg := range s.file.Comments {
		if s.fset.Position(cg.End()).Line == line-2 && strings.HasPrefix(strings.TrimSpace(cg.Text()), "+") {
			return cg
		}
	}
	return nil
}

// kinds returns the kinds of decls (a root type with a sibling <Kind>List) and their options.
func kinds(decls map[string]*typeDecl) map[string]KindOptions {
	out := map[string]KindOptions{}
	for name, d := range decls {
		_, hasList := decls[name+"List"]
		root := strings.Contains(d.doc, "+kubebuilder:object:root=true") || strings.Contains(d.doc, "+genclient") ||
			strings.Contains(d.doc, "+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object")
		if hasList && root && !strings.HasSuffix(name, "List") {
			out[name] = optionsOf(d.doc)
		}
	}
	return out
}

// copyKind returns a Go file of package pkg holding kind, its List and every type of srcs
// they reach (Spec, Status, enums, with the constants of those types), in source order, with
// the imports they use. With hub, markers are dropped but for +kubebuilder:object:root and
// +k8s:deepcopy-gen:interfaces, which make a root type (a hub's types carry no API markers);
// else only +kubebuilder:storageversion is dropped (one version of a group is the storage
// version).
func copyKind(srcs []*source, kind, pkg string, hub bool) ([]byte, error) {
	decls := typeDecls(srcs)
	if decls[kind] == nil || decls[kind+"List"] == nil {
		return nil, fmt.Errorf("kind %s or %sList not found", kind, kind)
	}
	keep := reachable(decls, kind, kind+"List")
	var body strings.Builder
	usedPkgs := map[string]bool{}
	for _, s := range srcs {
		for _, d := range s.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			text := declText(s, gd, decls, keep)
			if text == "" {
				continue
			}
			body.WriteString(text + "\n\n")
			ast.Inspect(gd, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok {
						usedPkgs[id.Name] = true
					}
				}
				return true
			})
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "package %s\n\n", pkg)
	if imports := importLines(srcs, usedPkgs); len(imports) > 0 {
		fmt.Fprintf(&out, "import (\n%s\n)\n\n", strings.Join(imports, "\n"))
	}
	out.WriteString(filterMarkers(body.String(), hub))
	return format.Source([]byte(out.String()))
}

// reachable returns the names of roots and of every type of decls their type expressions
// reach, transitively.
func reachable(decls map[string]*typeDecl, roots ...string) map[string]bool {
	keep := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		d := decls[name]
		if d == nil || keep[name] {
			return
		}
		keep[name] = true
		ast.Inspect(d.spec.Type, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				visit(id.Name)
			}
			return true
		})
	}
	for _, r := range roots {
		visit(r)
	}
	return keep
}

// declText returns the source of the kept types of gd (with their comments), or of gd whole
// when it is a constant block of a kept type; "" when gd has nothing to keep.
func declText(s *source, gd *ast.GenDecl, decls map[string]*typeDecl, keep map[string]bool) string {
	var texts []string
	switch gd.Tok {
	case token.TYPE:
		for _, sp := range gd.Specs {
			if ts := sp.(*ast.TypeSpec); keep[ts.Name.Name] {
				texts = append(texts, decls[ts.Name.Name].text)
			}
		}
	case token.CONST:
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok && keep[id.Name] {
				start := gd.Pos()
				if gd.Doc != nil {
					start = gd.Doc.Pos()
				}
				return s.slice(start, gd.End())
			}
		}
	}
	return strings.Join(texts, "\n\n")
}

// importLines returns the import specs ("\tmetav1 \"k8s.io/...\"") of srcs whose package name
// is in used, sorted and deduplicated.
func importLines(srcs []*source, used map[string]bool) []string {
	lines := map[string]bool{}
	for _, s := range srcs {
		for _, im := range s.file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name, line := path.Base(p), im.Path.Value
			if im.Name != nil {
				name, line = im.Name.Name, im.Name.Name+" "+im.Path.Value
			}
			if used[name] {
				lines["\t"+line] = true
			}
		}
	}
	out := make([]string, 0, len(lines))
	for l := range lines {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// filterMarkers drops marker comment lines from src as copyKind describes, and the empty
// "//" lines the drop leaves at the end of a comment.
func filterMarkers(src string, hub bool) string {
	var kept []string
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "// +") || strings.HasPrefix(t, "//+") {
			marker := strings.TrimSpace(strings.TrimPrefix(t, "//"))
			drop := strings.HasPrefix(marker, "+kubebuilder:storageversion")
			if hub {
				drop = !strings.HasPrefix(marker, "+kubebuilder:object:root") && !strings.HasPrefix(marker, "+k8s:deepcopy-gen:interfaces=")
			}
			if drop {
				continue
			}
		}
		kept = append(kept, line)
	}
	var out []string
	for i, line := range kept {
		if strings.TrimSpace(line) == "//" && (i+1 == len(kept) || !strings.HasPrefix(strings.TrimSpace(kept[i+1]), "//")) {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
