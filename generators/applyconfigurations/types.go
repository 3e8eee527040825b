package applyconfigurations

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

const metav1Pkg = "k8s.io/apimachinery/pkg/apis/meta/v1"

// member is one field of a type as applyconfiguration-gen sees it.
type member struct {
	f *model.Field
	// name is the JSON name; inline is true for an embedded field without one.
	name   string
	inline bool
	// typ is the field's type in the apply configuration (without the pointer); ac is true when
	// it is (a pointer to) a type with an apply configuration.
	typ jen.Code
	ac  bool
	// embeddedIn is the embedded, non-inline parent member the field was promoted from, nil
	// for a field of the type itself or of an inlined embed.
	embeddedIn *member
	// embedPath is the Go field path from the apply configuration to the field's holder:
	// "" or ".ObjectMetaApplyConfiguration".
	embedPath string
}

// members returns t's fields with a JSON tag, less those applyconfiguration-gen hides
// (ObjectMeta's ManagedFields and SelfLink, ZZZ_ fields).
func (g *gen) members(t *model.Type) []member {
	var out []member
	for _, f := range t.Fields {
		if f.JSONName == "-" || blocklisted(t, f) {
			continue
		}
		m := member{f: f, name: f.JSONName, inline: f.Embedded && f.JSONName == "", typ: g.memberType(f.Type), ac: g.isApplyConfig(f.Type)}
		if m.name == "" {
			m.name = f.Name
		}
		out = append(out, m)
	}
	return out
}

func blocklisted(t *model.Type, f *model.Field) bool {
	if t.Name == (model.TypeName{Package: metav1Pkg, Name: "ObjectMeta"}) && (f.Name == "ManagedFields" || f.Name == "SelfLink") {
		return true
	}
	return strings.HasPrefix(f.Name, "ZZZ_")
}

// tag renders the member's json tag as applyconfiguration-gen does: omitempty forced on named
// members; an inline embed keeps only its own omitempty.
func (m member) tag() string {
	if m.inline {
		if m.f.OmitEmpty {
			return ",omitempty"
		}
		return ""
	}
	return m.name + ",omitempty"
}

// nillable reports whether the field is a slice or map (declared without a pointer).
func (m member) nillable() bool { return m.f.Type.Kind == model.Slice || m.f.Type.Kind == model.Map }

// embeddedType returns the struct an embedded member embeds.
func embeddedType(f *model.Field) *model.Type {
	r := f.Type
	for r.Kind == model.Pointer {
		r = r.Elem
	}
	if r.Kind == model.Named {
		return r.Named
	}
	return nil
}

// typeFile renders <type>.go of one apply configuration.
func (g *gen) typeFile(at acType) *jen.File {
	f := emit.NewFile(g.tree.ApplyPath(at.gv.Segment()), at.gv.Version.Name, g.names)
	t, ac := at.t, at.t.Name.Name+"ApplyConfiguration"
	f.Commentf("%s represents a declarative configuration of the %s type for use", ac, t.Name.Name)
	f.Comment("with apply.")
	if t.Doc != "" {
		f.Comment("")
		for _, line := range strings.Split(t.Doc, "\n") {
			f.Comment(line)
		}
	}
	var fields []jen.Code
	for _, m := range g.members(t) {
		if m.f.Doc != "" {
			fields = append(fields, emit.Doc(m.f.Doc)...)
		}
		tag := map[string]string{"json": m.tag()}
		switch {
		case m.f.Embedded && m.inline:
			fields = append(fields, jen.Add(m.typ).Tag(tag))
		case m.f.Embedded:
			fields = append(fields, jen.Op("*").Add(m.typ).Tag(tag))
		case m.nillable():
			fields = append(fields, jen.Id(m.f.Name).Add(m.typ).Tag(tag))
		default:
			fields = append(fields, jen.Id(m.f.Name).Op("*").Add(m.typ).Tag(tag))
		}
	}
	f.Type().Id(ac).Struct(fields...)
	g.constructor(f, at)
	if at.kind != nil || hasTypeMeta(t) {
		f.Comment("IsApplyConfiguration marks the type as an apply configuration.")
		f.Func().Params(jen.Id("b").Id(ac)).Id("IsApplyConfiguration").Params().Block()
	}
	var generated []string
	g.withFuncs(f, ac, t, nil, &generated)
	g.getters(f, ac, t, nil)
	return f
}

// hasTypeMeta reports whether t embeds metav1.TypeMeta.
func hasTypeMeta(t *model.Type) bool {
	for _, f := range t.Fields {
		if f.Embedded && f.Type.Kind == model.Named && f.Type.Named.Name == (model.TypeName{Package: metav1Pkg, Name: "TypeMeta"}) {
			return true
		}
	}
	return false
}

// constructor declares the type's constructor (and, for a client kind, its Extract functions).
func (g *gen) constructor(f *jen.File, at acType) {
	t, ac := at.t, at.t.Name.Name+"ApplyConfiguration"
	apiVersion := at.gv.APIVersion()
	setKind := []jen.Code{jen.Id("b").Dot("WithKind").Call(jen.Lit(t.Name.Name)), jen.Id("b").Dot("WithAPIVersion").Call(jen.Lit(apiVersion))}
	switch {
	case at.kind != nil:
		params := []jen.Code{jen.Id("name")}
		body := []jen.Code{jen.Id("b").Op(":=").Op("&").Id(ac).Values(), jen.Id("b").Dot("WithName").Call(jen.Id("name"))}
		if at.kind.Namespaced {
			params = append(params, jen.Id("namespace"))
			body = append(body, jen.Id("b").Dot("WithNamespace").Call(jen.Id("namespace")))
		}
		f.Commentf("%s constructs a declarative configuration of the %s type for use with", t.Name.Name, t.Name.Name)
		f.Comment("apply.")
		f.Func().Id(t.Name.Name).Params(jen.List(params...).String()).Op("*").Id(ac).Block(append(append(body, setKind...), jen.Return(jen.Id("b")))...)
		g.extract(f, at)
	case hasTypeMeta(t):
		f.Commentf("%s constructs a declarative configuration of the %s type for use with", ac, t.Name.Name)
		f.Comment("apply.")
		f.Func().Id(t.Name.Name).Params().Op("*").Id(ac).Block(append(append([]jen.Code{jen.Id("b").Op(":=").Op("&").Id(ac).Values()}, setKind...),
			jen.Return(jen.Id("b")))...)
	default:
		f.Commentf("%s constructs a declarative configuration of the %s type for use with", ac, t.Name.Name)
		f.Comment("apply.")
		f.Func().Id(t.Name.Name).Params().Op("*").Id(ac).Block(jen.Return(jen.Op("&").Id(ac).Values()))
	}
}

// target is the expression of the field m in the receiver b: b[.Embed].Field.
func (m member) target() *jen.Statement {
	s := jen.Id("b")
	if m.embedPath != "" {
		s = s.Dot(strings.TrimPrefix(m.embedPath, "."))
	}
	return s.Dot(m.f.Name)
}

// ensure returns the ensure<Embed>Exists call m needs, or nil.
func (m member) ensure() jen.Code {
	if m.embeddedIn == nil {
		return nil
	}
	return jen.Id("b").Dot("ensure" + strings.TrimPrefix(m.embedPath, ".") + "Exists").Call()
}

// withFuncs declares With<Field> for every member of t (recursing into embeds), as
// applyconfiguration-gen's generateWithFuncs.
func (g *gen) withFuncs(f *jen.File, ac string, t *model.Type, embed *member, generated *[]string) {
	for _, m := range g.members(t) {
		if slices.Contains(*generated, m.f.Name) {
			continue
		}
		*generated = append(*generated, m.f.Name)
		g.inherit(&m, embed)
		if m.f.Embedded {
			inner := embeddedType(m.f)
			if inner == nil {
				continue
			}
			g.withFuncs(f, ac, inner, &m, generated)
			if !m.inline {
				name := g.embedField(inner)
				f.Func().Params(jen.Id("b").Op("*").Id(ac)).Id("ensure" + name + "Exists").Params().Block(
					jen.If(jen.Id("b").Dot(name).Op("==").Nil()).Block(jen.Id("b").Dot(name).Op("=").Op("&").Add(m.typ).Values()))
			}
			continue
		}
		g.withFunc(f, ac, m)
	}
}

// inherit sets where m lives when promoted from the embedded member embed: the embed's field
// in the apply configuration (<Type>ApplyConfiguration, or the Go type without one), which
// must be ensured to exist first when the embed is not inlined.
func (g *gen) inherit(m *member, embed *member) {
	if embed == nil {
		return
	}
	m.embedPath = "." + g.embedField(embeddedType(embed.f))
	m.embeddedIn = nil
	if !embed.inline {
		m.embeddedIn = embed
	}
}

// embedField is the name of the field an embedded struct has in an apply configuration.
func (g *gen) embedField(inner *model.Type) string {
	if g.acOf(inner) != nil {
		return inner.Name.Name + "ApplyConfiguration"
	}
	return inner.Name.Name
}

// withFunc declares the With<Field> of one member.
func (g *gen) withFunc(f *jen.File, ac string, m member) {
	recv := jen.Id("b").Op("*").Id(ac)
	pre := []jen.Code{}
	if e := m.ensure(); e != nil {
		pre = append(pre, e)
	}
	name := "With" + m.f.Name
	deref := m.f.Type
	for deref.Kind == model.Pointer {
		deref = deref.Elem
	}
	switch {
	case deref.Kind == model.Slice && deref.Elem.Kind == model.Named && g.acOf(deref.Elem.Named) != nil:
		g.withSlice(f, ac, m, jen.Op("*").Add(g.memberType(deref.Elem)), true)
		return
	case m.f.Type.Kind == model.Slice:
		g.withSlice(f, ac, m, emit.TypeRef(m.f.Type.Elem), false)
		return
	case m.f.Type.Kind == model.Map:
		f.Commentf("%s puts the entries into the %s field in the declarative configuration", name, m.f.Name)
		f.Comment("and returns the receiver, so that objects can be build by chaining \"With\" function invocations.")
		f.Commentf("If called multiple times, the entries provided by each call will be put on the %s field,", m.f.Name)
		f.Commentf("overwriting an existing map entries in %s field with the same key.", m.f.Name)
		f.Func().Params(recv).Id(name).Params(jen.Id("entries").Add(m.typ)).Op("*").Id(ac).Block(append(pre,
			jen.If(m.target().Op("==").Nil().Op("&&").Len(jen.Id("entries")).Op(">").Lit(0)).Block(
				m.target().Op("=").Make(m.typ, jen.Len(jen.Id("entries")))),
			jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Id("entries")).Block(m.target().Index(jen.Id("k")).Op("=").Id("v")),
			jen.Return(jen.Id("b")))...)
		return
	}
	assign := m.target().Op("=").Op("&").Id("value")
	if m.ac || m.nillable() {
		assign = m.target().Op("=").Id("value")
	}
	typ := m.typ
	if m.ac {
		typ = jen.Op("*").Add(m.typ)
	}
	f.Commentf("%s sets the %s field in the declarative configuration to the given value", name, m.f.Name)
	f.Comment("and returns the receiver, so that objects can be built by chaining \"With\" function invocations.")
	f.Commentf("If called multiple times, the %s field is set to the value of the last call.", m.f.Name)
	f.Func().Params(recv).Id(name).Params(jen.Id("value").Add(typ)).Op("*").Id(ac).Block(append(pre, assign, jen.Return(jen.Id("b")))...)
}

// withSlice declares the With<Field> of a slice member, appending values (pointers to apply
// configurations, dereferenced, when ptr is set).
func (g *gen) withSlice(f *jen.File, ac string, m member, arg jen.Code, ptr bool) {
	name := "With" + m.f.Name
	pointerToSlice := m.f.Type.Kind == model.Pointer
	if pointerToSlice {
		f.Func().Params(jen.Id("b").Op("*").Id(ac)).Id("ensure" + m.f.Name + "Exists").Params().Block(
			jen.If(jen.Id("b").Dot(m.f.Name).Op("==").Nil()).Block(jen.Id("b").Dot(m.f.Name).Op("=").Op("&").Add(m.typ).Values()))
	}
	pre := []jen.Code{}
	if e := m.ensure(); e != nil {
		pre = append(pre, e)
	}
	if pointerToSlice {
		pre = append(pre, jen.Id("b").Dot("ensure"+m.f.Name+"Exists").Call())
	}
	target := m.target()
	if pointerToSlice {
		target = jen.Op("*").Add(target)
	}
	value := jen.Id("values").Index(jen.Id("i"))
	var loop []jen.Code
	if ptr {
		loop = append(loop, jen.If(value.Clone().Op("==").Nil()).Block(jen.Panic(jen.Lit("nil value passed to "+name))))
		value = jen.Op("*").Add(value)
	}
	loop = append(loop, target.Clone().Op("=").Append(target.Clone(), value))
	f.Commentf("%s adds the given value to the %s field in the declarative configuration", name, m.f.Name)
	f.Comment("and returns the receiver, so that objects can be build by chaining \"With\" function invocations.")
	f.Commentf("If called multiple times, values provided by each call will be appended to the %s field.", m.f.Name)
	f.Func().Params(jen.Id("b").Op("*").Id(ac)).Id(name).Params(jen.Id("values").Op("...").Add(arg)).Op("*").Id(ac).Block(append(pre,
		jen.For(jen.Id("i").Op(":=").Range().Id("values")).Block(loop...),
		jen.Return(jen.Id("b")))...)
}

// getters declares GetName, GetNamespace, GetKind and GetAPIVersion where t embeds ObjectMeta
// or TypeMeta, as applyconfiguration-gen's generateGetters.
func (g *gen) getters(f *jen.File, ac string, t *model.Type, embed *member) {
	for _, m := range g.members(t) {
		g.inherit(&m, embed)
		if m.f.Embedded {
			if inner := embeddedType(m.f); inner != nil {
				g.getters(f, ac, inner, &m)
			}
			continue
		}
		if !needsGetter(t, m.f) {
			continue
		}
		body := []jen.Code{}
		if e := m.ensure(); e != nil {
			body = append(body, e)
		}
		typ := jen.Op("*").Add(m.typ)
		if m.ac || m.nillable() {
			typ = jen.Add(m.typ)
		}
		f.Commentf("Get%s retrieves the value of the %s field in the declarative configuration.", m.f.Name, m.f.Name)
		f.Func().Params(jen.Id("b").Op("*").Id(ac)).Id("Get" + m.f.Name).Params().Add(typ).Block(append(body, jen.Return(m.target()))...)
	}
}

// needsGetter reports whether applying needs a getter for f of t: ObjectMeta's Name and
// Namespace, TypeMeta's Kind and APIVersion.
func needsGetter(t *model.Type, f *model.Field) bool {
	switch t.Name {
	case model.TypeName{Package: metav1Pkg, Name: "ObjectMeta"}:
		return f.Name == "Name" || f.Name == "Namespace"
	case model.TypeName{Package: metav1Pkg, Name: "TypeMeta"}:
		return f.Name == "Kind" || f.Name == "APIVersion"
	}
	return false
}
