package load

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/markerset"
	"github.com/apigen-dev/apigen/generators/model"
)

// metav1Path is apimachinery's meta/v1; extraMetaTypes are added whenever it is reached.
const metav1Path = "k8s.io/apimachinery/pkg/apis/meta/v1"

var extraMetaTypes = []string{"Status", "DeleteOptions", "WatchEvent", "Patch"}

// builder turns type-checked packages into the model; it collects diagnostics as it goes.
type builder struct {
	fset  *token.FileSet
	idx   *declIndex
	pos   func(model.Position) model.Position
	diags model.Diagnostics
	// types holds every model type built so far, by TypeName.String().
	types map[string]*model.Type
	// local is the set of import paths of API packages: their types are Local.
	local map[string]bool
	// reached holds every types.Package a built type belongs to, by path.
	reached map[string]*types.Package
	// optionalByDefault holds the API packages whose package comment says
	// +kubebuilder:validation:Optional: their fields are optional unless marked required.
	optionalByDefault map[string]bool
}

func newBuilder(fset *token.FileSet) *builder {
	return &builder{
		fset:    fset,
		idx:     newDeclIndex(fset),
		pos:     relativizer(),
		types:   map[string]*model.Type{},
		local:   map[string]bool{},
		reached: map[string]*types.Package{},

		optionalByDefault: map[string]bool{},
	}
}

func (b *builder) errorf(pos model.Position, format string, args ...any) {
	b.diags = append(b.diags, model.Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// tokenPosition resolves p, expanding the "$GOROOT" prefix export data uses for standard
// library files.
func (b *builder) tokenPosition(p token.Pos) token.Position {
	tp := b.fset.Position(p)
	if rest, ok := strings.CutPrefix(tp.Filename, "$GOROOT"); ok {
		tp.Filename = filepath.Join(build.Default.GOROOT, filepath.FromSlash(rest))
	}
	return tp
}

func (b *builder) position(p token.Pos) model.Position {
	tp := b.tokenPosition(p)
	return b.pos(model.Position{File: tp.Filename, Line: tp.Line, Col: tp.Column})
}

// parseMarkers parses marker lines and records their diagnostics; only local declarations
// report marker errors (a dependency's markers are its authors' business).
func (b *builder) parseMarkers(local bool, lines []markers.Line) model.Markers {
	m, diags := markerset.Registry().Parse(lines)
	if local {
		b.diags = append(b.diags, diags...)
	}
	return m
}

// named returns the model type for a named type, building it (and everything it reaches)
// on first use. Type parameters and instantiated generics are not supported.
func (b *builder) named(obj *types.TypeName) *model.Type {
	name := model.TypeName{Name: obj.Name()}
	if obj.Pkg() != nil {
		name.Package = obj.Pkg().Path()
		b.reached[name.Package] = obj.Pkg()
	}
	if t, ok := b.types[name.String()]; ok {
		return t
	}
	local := b.local[name.Package]
	t := &model.Type{Name: name, Local: local, Methods: map[string]bool{}, Pos: b.position(obj.Pos())}
	b.types[name.String()] = t
	if named, ok := obj.Type().(*types.Named); ok {
		for m := range named.Methods() {
			t.Methods[m.Name()] = true
		}
		t.ValueMethods = methodSet(named)
		t.PointerMethods = methodSet(types.NewPointer(named))
		t.Convertible = local && convertible(named)
	}
	if td := b.idx.typeAt(b.tokenPosition(obj.Pos())); td != nil {
		lines := commentLines(b.fset, b.pos, td.detached, td.doc)
		t.Doc = markers.Doc(commentLines(b.fset, b.pos, td.doc))
		t.Markers = b.parseMarkers(local, lines)
		t.DefinedFrom = b.definedFrom(obj, td)
	}
	if st, ok := obj.Type().Underlying().(*types.Struct); ok {
		t.Kind = model.Struct
		t.Fields = b.fields(t, st)
		return t
	}
	t.Underlying = b.ref(obj.Type().Underlying(), t.Pos, local)
	t.Kind = t.Underlying.Kind
	return t
}

// fields builds the exported fields of a struct in declaration order (unexported fields
// are invisible to encoding/json and so to the API).
func (b *builder) fields(owner *model.Type, st *types.Struct) []*model.Field {
	var out []*model.Field
	for i := 0; i < st.NumFields(); i++ {
		v := st.Field(i)
		if !v.Exported() {
			owner.EmbedsUnexported = owner.EmbedsUnexported || v.Embedded()
			owner.HasUnexported = true
			continue
		}
		f := &model.Field{Name: v.Name(), Embedded: v.Embedded(), Pos: b.position(v.Pos())}
		f.JSONName, f.OmitEmpty, f.Inline = jsonTag(v, st.Tag(i))
		f.JSONString, f.OmitZero = jsonTagOptions(st.Tag(i))
		if af := b.idx.fieldAt(b.tokenPosition(v.Pos()), v.Name()); af != nil {
			lines := commentLines(b.fset, b.pos, af.Doc)
			f.Doc = markers.Doc(lines)
			f.Markers = b.parseMarkers(owner.Local, lines)
			if owner.Local {
				b.requiredOmitEmpty(owner, f, lines)
			}
		}
		f.Type = b.ref(v.Type(), f.Pos, owner.Local)
		f.Required = b.required(owner, f)
		emptyDefault(f)
		out = append(out, f)
	}
	return out
}

// required is controller-gen's rule for a field of owner (model.Field.Required): the field's
// own markers, then its package's default. A package outside the load (a dependency such as
// apimachinery's meta/v1) is taken to have the default, required.
func (b *builder) required(owner *model.Type, f *model.Field) bool {
	switch {
	case f.Markers.Optional:
		return false
	case f.Markers.Required:
		return true
	}
	return !b.optionalByDefault[owner.Name.Package] && f.DefaultRequired()
}

// emptyDefault gives the empty composite default of controller-tools' markers
// (+kubebuilder:default={}), which the markers parser reads as [], the JSON form of the
// field's type: {} unless the field is a list, as controller-gen writes it.
func emptyDefault(f *model.Field) {
	if f.Markers.Default == nil || *f.Markers.Default != "[]" {
		return
	}
	ref := f.Type
	if ref.Kind == model.Pointer {
		ref = ref.Elem
	}
	if ref.Kind == model.Named && ref.Named.Underlying != nil {
		ref = ref.Named.Underlying
	}
	if ref.Kind != model.Slice && ref.Kind != model.Array {
		empty := "{}"
		f.Markers.Default = &empty
	}
}

// jsonTag parses a field's json tag as encoding/json does: a missing name is the Go name;
// an embedded field without a name, or ",inline", is inlined; "-" skips the field.
func jsonTag(v *types.Var, tag string) (name string, omitEmpty, inline bool) {
	value := reflect.StructTag(tag).Get("json")
	name, opts, _ := strings.Cut(value, ",")
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "omitempty":
			omitEmpty = true
		case "inline":
			inline = true
		}
	}
	if name == "-" && opts == "" {
		return "-", false, false
	}
	if name == "" && (inline || v.Embedded()) {
		return "", omitEmpty, true
	}
	if name == "" {
		name = v.Name()
	}
	return name, omitEmpty, inline
}

// jsonTagOptions reports the json tag's ",string" and ",omitzero" options.
func jsonTagOptions(tag string) (str, omitZero bool) {
	_, opts, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
	for _, o := range strings.Split(opts, ",") {
		str = str || o == "string"
		omitZero = omitZero || o == "omitzero"
	}
	return str, omitZero
}

// methodSet names the exported methods of t's method set, promoted ones included.
func methodSet(t types.Type) map[string]bool {
	ms := types.NewMethodSet(t)
	out := make(map[string]bool, ms.Len())
	for i := range ms.Len() {
		if m := ms.At(i).Obj(); m.Exported() {
			out[m.Name()] = true
		}
	}
	return out
}

// ref converts a type expression; unsupported shapes in local types are errors at pos.
func (b *builder) ref(t types.Type, pos model.Position, local bool) *model.TypeRef {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		if t.Kind() == types.Invalid {
			if local {
				b.errorf(pos, "%v", errNoType)
			}
			return &model.TypeRef{Kind: model.Basic, Basic: "invalid"}
		}
		return &model.TypeRef{Kind: model.Basic, Basic: t.Name()}
	case *types.Named:
		if t.TypeArgs().Len() > 0 && local {
			b.errorf(pos, "generic type %s is not supported in API types", t)
		}
		if t.Obj().Pkg() == nil { // error
			return &model.TypeRef{Kind: model.Interface}
		}
		return &model.TypeRef{Kind: model.Named, Named: b.named(t.Obj())}
	case *types.Pointer:
		return &model.TypeRef{Kind: model.Pointer, Elem: b.ref(t.Elem(), pos, local)}
	case *types.Slice:
		return &model.TypeRef{Kind: model.Slice, Elem: b.ref(t.Elem(), pos, local)}
	case *types.Array:
		return &model.TypeRef{Kind: model.Array, Len: t.Len(), Elem: b.ref(t.Elem(), pos, local)}
	case *types.Map:
		return &model.TypeRef{Kind: model.Map, Key: b.ref(t.Key(), pos, local), Elem: b.ref(t.Elem(), pos, local)}
	case *types.Interface:
		if local && !t.Empty() {
			b.errorf(pos, "interface type %s is not supported in API types; only interface{} is", t)
		}
		return &model.TypeRef{Kind: model.Interface}
	case *types.Struct:
		if local {
			b.errorf(pos, "anonymous struct types are not supported in API types; declare a named type")
		}
		return &model.TypeRef{Kind: model.Struct}
	}
	if local {
		b.errorf(pos, "type %s is not supported in API types", t)
	}
	return &model.TypeRef{Kind: model.Interface}
}

// addPackageTypes builds every named type declared in an API package, sorted by name.
// Declarations that cannot be API types are left out: aliases (their target is the type),
// generic types, and functions, channels and non-empty interfaces (helper types such as a
// `type ValidateFunc func(...)` that no field may use).
func (b *builder) addPackageTypes(p *model.Package, tp *types.Package) {
	scope := tp.Scope()
	for _, n := range scope.Names() {
		obj, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || obj.IsAlias() || !apiShaped(obj) {
			continue
		}
		p.Types = append(p.Types, b.named(obj))
	}
	sort.Slice(p.Types, func(i, j int) bool { return p.Types[i].Name.Name < p.Types[j].Name.Name })
}

// addMetaTypes adds metav1.Status, DeleteOptions, WatchEvent and Patch when meta/v1 was reached.
func (b *builder) addMetaTypes() {
	meta, ok := b.reached[metav1Path]
	if !ok {
		return
	}
	for _, n := range extraMetaTypes {
		if obj, ok := meta.Scope().Lookup(n).(*types.TypeName); ok {
			b.named(obj)
		}
	}
}

// funcs returns the top-level functions of the non-generated files, warning about markers
// glued to any function or method there.
func (b *builder) funcs(files []*ast.File) map[string]model.Position {
	out := map[string]model.Position{}
	for _, f := range files {
		if ast.IsGenerated(f) {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			b.funcMarkers(fd)
			if fd.Recv == nil {
				out[fd.Name.Name] = b.position(fd.Name.Pos())
			}
		}
	}
	return out
}

// apiShaped reports whether a declared type can be an API type: not generic, and not a
// function, channel or non-empty interface.
func apiShaped(obj *types.TypeName) bool {
	if named, ok := obj.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
		return false
	}
	switch u := obj.Type().Underlying().(type) {
	case *types.Signature, *types.Chan:
		return false
	case *types.Interface:
		return u.Empty()
	}
	return true
}
