package load

import (
	"encoding/json"
	"go/constant"
	"go/types"
	"sort"

	"github.com/apigen-dev/apigen/generators/model"
)

// enums fills EnumValues of every type of p marked +enum or +k8s:enum from the constants of
// that type declared in the package (tp), in declaration order, as openapi-gen and
// validation-gen read them; +k8s:enum also makes them the type's allowed values
// (Validation.Enum) unless +kubebuilder:validation:Enum gave some. A marked type without
// constants, or that is not a string, gets a warning: nothing would be enumerated.
func (b *builder) enums(p *model.Package, tp *types.Package) {
	for _, t := range p.Types {
		if t.Markers.EnumMarker == "" {
			continue
		}
		if t.Kind != model.Basic || t.Underlying.Basic != "string" {
			b.warnf(t.Pos, "+%s on %s does nothing: only a string type enumerates its constants", t.Markers.EnumMarker, t.Name.Name)
			continue
		}
		t.EnumValues = constantsOf(tp, t.Name.Name)
		if len(t.EnumValues) == 0 {
			b.warnf(t.Pos, "+%s on %s does nothing: the package declares no constant of type %s", t.Markers.EnumMarker, t.Name.Name, t.Name.Name)
			continue
		}
		if t.Markers.EnumMarker == "k8s:enum" && len(t.Markers.Validation.Enum) == 0 {
			t.Markers.Validation.Enum = t.EnumValues
		}
	}
}

// constantsOf returns the JSON values of the string constants of type name in tp, in
// declaration order.
func constantsOf(tp *types.Package, name string) []string {
	var consts []*types.Const
	for _, n := range tp.Scope().Names() {
		c, ok := tp.Scope().Lookup(n).(*types.Const)
		if !ok || c.Val().Kind() != constant.String {
			continue
		}
		if named, ok := c.Type().(*types.Named); ok && named.Obj().Name() == name && named.Obj().Pkg() == tp {
			consts = append(consts, c)
		}
	}
	sort.Slice(consts, func(i, j int) bool { return consts[i].Pos() < consts[j].Pos() })
	out := make([]string, 0, len(consts))
	for _, c := range consts {
		j, _ := json.Marshal(constant.StringVal(c.Val()))
		out = append(out, string(j))
	}
	return out
}
