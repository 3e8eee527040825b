package validation

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/runtime/validation/cel"
)

// ruleVar is one CEL rule of the package, a variable compiled at its first use (cel.Defer).
type ruleVar struct {
	name  string
	spec  cel.Spec
	typ   cel.Type
	owner string
	// usesOldSelf is whether the compiled rule refers to oldSelf (a transition rule).
	usesOldSelf bool
}

// celTypeNames are the exported names of the cel.Type constants.
var celTypeNames = map[cel.Type]string{
	cel.Dyn: "Dyn", cel.String: "String", cel.Int: "Int", cel.Double: "Double",
	cel.Bool: "Bool", cel.List: "List", cel.Object: "Object",
}

// addRule compiles r for a subject of type ref at generate time, with the runtime's own
// compile function, and declares its variable. A rule that does not compile is a diagnostic
// at the marker; the variable is declared anyway, so generation goes on to report all.
func (g *pkgGen) addRule(r *model.ValidationRule, ref *model.TypeRef, owner string) ruleVar {
	spec := cel.Spec{
		Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression,
		Reason: r.Reason, FieldPath: r.FieldPath, OptionalOldSelf: r.OptionalOldSelf,
	}
	rv := ruleVar{name: g.varName("rule" + identifier(owner)), spec: spec, typ: celType(ref), owner: owner}
	if compiled, err := cel.Compile(spec, rv.typ); err != nil {
		g.diag(r.Pos, "+kubebuilder:validation:XValidation on %s: %v", owner, err)
	} else {
		rv.usesOldSelf = compiled.UsesOldSelf()
	}
	g.rules = append(g.rules, rv)
	return rv
}

// ruleCall renders `rule.Validate(ctx, op, fldPath, cel.Present(self, omitEmpty), cel.Present(old, omitEmpty))`.
func ruleCall(r ruleVar, self, old jen.Code, omitEmpty bool) jen.Code {
	return jen.Id(r.name).Dot("Validate").Call(jen.Id("ctx"), jen.Id("op"), jen.Id("fldPath"),
		jen.Qual(celPkg, "Present").Call(self, jen.Lit(omitEmpty)), jen.Qual(celPkg, "Present").Call(old, jen.Lit(omitEmpty)))
}

// rulesDecl emits the rule variables: each compiles at the first object it checks
// (cel.Defer, told whether the rule is a transition rule), as the generator has already
// compiled it once.
func (g *pkgGen) rulesDecl(f *jen.File) {
	vars := make([]jen.Code, len(g.rules))
	for i, r := range g.rules {
		vars[i] = jen.Id(r.name).Op("=").Qual(celPkg, "Defer").Call(specLit(r.spec), jen.Qual(celPkg, celTypeNames[r.typ]), jen.Lit(r.usesOldSelf)).
			Commentf("XValidation of %s", r.owner)
	}
	f.Comment("The package's CEL validation rules, each compiled at its first use (the generator compiled them all).")
	f.Var().Defs(vars...)
}

// specLit renders a cel.Spec literal with its non-zero fields.
func specLit(s cel.Spec) jen.Code {
	var fields []jen.Code
	add := func(name, v string) {
		if v != "" {
			fields = append(fields, jen.Id(name).Op(":").Lit(v))
		}
	}
	add("Rule", s.Rule)
	add("Message", s.Message)
	add("MessageExpression", s.MessageExpression)
	if s.Reason != cel.ReasonInvalid {
		add("Reason", s.Reason) // Invalid is the default
	}
	add("FieldPath", s.FieldPath)
	if s.OptionalOldSelf {
		fields = append(fields, jen.Id("OptionalOldSelf").Op(":").True())
	}
	return jen.Qual(celPkg, "Spec").Values(fields...)
}
