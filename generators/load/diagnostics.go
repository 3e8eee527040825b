package load

import (
	"go/ast"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/markerset"
	"github.com/apigen-dev/apigen/generators/model"
)

// warnf records a warning: printed with the run's diagnostics, it does not fail the run.
func (b *builder) warnf(pos model.Position, format string, args ...any) {
	b.errorf(pos, format, args...)
	b.diags[len(b.diags)-1].Warning = true
}

// funcMarkers warns about every known marker in the doc comment of function fd: gengo and
// controller-tools read markers only from packages, types and fields, so a marker glued to a
// function (often one meant for the type below it, or a +kubebuilder:... placed on a hook) is
// ignored; apigen says so instead of staying silent.
func (b *builder) funcMarkers(fd *ast.FuncDecl) {
	for _, l := range commentLines(b.fset, b.pos, fd.Doc) {
		if name := markerset.Registry().GluedToFunc(l.Text); name != "" {
			b.warnf(l.Pos, "marker +%s is on func %s and is ignored: markers apply to packages, types and fields; "+
				"move it to the type's or field's comment (package markers go in doc.go)", name, funcName(fd))
		}
	}
}

// funcName renders a function's name as written: "SetDefaults_Database" or "(*Database).Hub".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	recv := fd.Recv.List[0].Type
	star := ""
	if s, ok := recv.(*ast.StarExpr); ok {
		recv, star = s.X, "*"
	}
	return "(" + star + embeddedName(recv) + ")." + fd.Name.Name
}

// requiredOmitEmpty warns about a field made required by +kubebuilder:validation:Required or
// +k8s:required whose json tag has omitempty and that has no gengo +required: apigen and
// controller-gen publish it as required, but kube-openapi's openapi-gen (which reads only
// +required and +optional, else infers optional from omitempty) publishes it as optional, so
// the same types give two different schemas. Adding +required (or dropping omitempty) makes
// every tool agree.
func (b *builder) requiredOmitEmpty(owner *model.Type, f *model.Field, lines []markers.Line) {
	if !f.Markers.Required || f.Markers.Optional || !f.OmitEmpty || markers.Has(lines, "required") {
		return
	}
	b.warnf(f.Pos, "field %s.%s is required but its json tag has omitempty and it has no +required: "+
		"openapi-gen would publish it as optional; add +required (or drop omitempty)", owner.Name.Name, f.Name)
}
