package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// k8sFormats maps Kubernetes' own string formats to apimachinery's validate functions: those
// a CRD schema does not support (kube-apiserver strips them from a CRD and checks nothing), so
// validation-gen's checks are the reference. k8s-short-name and k8s-long-name, which CRD
// schemas support, are checked as a CRD checks them (validation.Format).
var k8sFormats = map[string]string{
	"k8s-long-name-caseless":     "LongNameCaseless",
	"k8s-label-key":              "LabelKey",
	"k8s-prefixed-label-key":     "PrefixedLabelKey",
	"k8s-label-value":            "LabelValue",
	"k8s-path-segment-name":      "PathSegmentName",
	"k8s-uuid":                   "UUID",
	"k8s-extended-resource-name": "ExtendedResourceName",
}

// diag records a diagnostic at pos.
func (g *pkgGen) diag(pos model.Position, format string, args ...any) {
	g.diags = append(g.diags, model.Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// scalarChecks emits the constraints of v on a value of type ref held as obj *T: bounds and
// multiples on numbers; lengths, pattern and format on strings; enums on both. owner
// ("DatabaseSpec.Replicas") names the variables it declares.
func (g *pkgGen) scalarChecks(v *model.Validation, ref *model.TypeRef, owner string, pos model.Position) []jen.Code {
	var out []jen.Code
	add := func(c jen.Code) { out = append(out, appendErrs(c)) }
	if isNumber(ref) {
		if v.Minimum != nil {
			add(bound("Minimum", *v.Minimum, v.ExclusiveMinimum))
		}
		if v.Maximum != nil {
			add(bound("Maximum", *v.Maximum, v.ExclusiveMaximum))
		}
		if v.MultipleOf != nil {
			if *v.MultipleOf <= 0 {
				g.diag(pos, "+kubebuilder:validation:MultipleOf on %s must be positive, not %g", owner, *v.MultipleOf)
			}
			add(jen.Qual(validationPkg, "MultipleOf").Call(ctxArgs(jen.Lit(*v.MultipleOf))...))
		}
	}
	if isString(ref) {
		// kube-openapi's string validator: maxLength, minLength, then pattern, the first
		// failure ending the checks (validation.FirstFailure).
		var checks []jen.Code
		if v.MaxLength != nil {
			checks = append(checks, jen.Qual(validationPkg, "MaxLength").Call(ctxArgs(jen.Lit(int(*v.MaxLength)))...))
		}
		if v.MinLength != nil {
			checks = append(checks, jen.Qual(validationPkg, "MinLength").Call(ctxArgs(jen.Lit(int(*v.MinLength)))...))
		}
		if v.Pattern != "" {
			if re := g.patternVar(v.Pattern, owner, pos); re != "" {
				checks = append(checks, jen.Qual(validationPkg, "Pattern").Call(ctxArgs(jen.Id(re))...))
			}
		}
		switch len(checks) {
		case 0:
		case 1:
			add(checks[0])
		default:
			add(jen.Qual(validationPkg, "FirstFailure").CallFunc(func(g *jen.Group) {
				for _, c := range checks {
					g.Line().Add(c)
				}
				g.Line()
			}))
		}
		if fn, ok := k8sFormats[v.Format]; ok {
			add(jen.Qual(validatePkg, fn).Call(ctxArgs()...))
		} else if v.Format != "" {
			add(jen.Qual(validationPkg, "Format").Call(ctxArgs(jen.Lit(v.Format))...))
		}
	}
	if len(v.Enum) > 0 {
		if c := g.enumCheck(v.Enum, ref, owner, pos); c != nil {
			add(c)
		}
	}
	return out
}

// bound renders a Minimum or Maximum check, with a CRD schema's semantics and wording
// (validation.Minimum, validation.Maximum).
func bound(name string, b float64, exclusive bool) jen.Code {
	return jen.Qual(validationPkg, name).Call(ctxArgs(jen.Lit(b), jen.Lit(exclusive))...)
}

// patternVar declares the package-level regexp of a pattern and returns its name, or records
// a diagnostic and returns "" when the pattern does not compile.
func (g *pkgGen) patternVar(pattern, owner string, pos model.Position) string {
	if _, err := regexp.Compile(pattern); err != nil {
		g.diag(pos, "+kubebuilder:validation:Pattern of %s is not a valid regular expression: %v", owner, err)
		return ""
	}
	name := g.varName("pattern" + identifier(owner))
	g.decls = append(g.decls, jen.Commentf("%s is the +kubebuilder:validation:Pattern of %s.", name, owner).Line().
		Var().Id(name).Op("=").Qual(regexpPkg, "MustCompile").Call(jen.Lit(pattern)))
	return name
}

// enumCheck declares the allowed values of an enum and returns the check, or records a
// diagnostic when a value does not fit the type.
func (g *pkgGen) enumCheck(values []string, ref *model.TypeRef, owner string, pos model.Position) jen.Code {
	lits := make([]jen.Code, 0, len(values))
	for _, raw := range values {
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			g.diag(pos, "+kubebuilder:validation:Enum value %s of %s is not valid JSON: %v", raw, owner, err)
			return nil
		}
		switch v := v.(type) {
		case string:
			if !isString(ref) {
				g.diag(pos, "+kubebuilder:validation:Enum value %s of %s is a string, but the field is not", raw, owner)
				return nil
			}
			lits = append(lits, jen.Lit(v))
		case float64:
			if !isNumber(ref) || (isInteger(ref) && v != math.Trunc(v)) {
				g.diag(pos, "+kubebuilder:validation:Enum value %s of %s does not fit %s", raw, owner, ref)
				return nil
			}
			lits = append(lits, jen.Lit(v))
			if isInteger(ref) {
				lits[len(lits)-1] = jen.Lit(int(v))
			}
		default:
			return nil // booleans and objects: left to OpenAPI validation
		}
	}
	// The allowed values in the marker's order, which the error lists as a CRD's does.
	name := g.varName("enum" + identifier(owner))
	g.decls = append(g.decls, jen.Commentf("%s holds the values +kubebuilder:validation:Enum allows for %s, in order.", name, owner).Line().
		Var().Id(name).Op("=").Index().Add(emit.TypeRef(ref)).Values(lits...))
	return jen.Qual(validationPkg, "Enum").Call(ctxArgs(jen.Id(name).Op("..."))...)
}

// identifier turns "DatabaseSpec.Engine" into "DatabaseSpecEngine".
func identifier(owner string) string { return strings.ReplaceAll(owner, ".", "") }
