package structural

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkCompleteness checks that every property and items a junctor (allOf, anyOf, oneOf, not) of the root m
// speaks about is also specified in the structural schema s, as upstream's validateStructuralCompleteness:
// Required at the missing structural node, "because it is defined in <junctor path>".
func (p *parser) checkCompleteness(s *Structural, m map[string]any, path *field.Path) {
	p.junctorCompleteness(m, s, path, path)
}

// junctorCompleteness checks the junctors of the value validation v against s.
func (p *parser) junctorCompleteness(v map[string]any, s *Structural, sPath, vPath *field.Path) {
	if not, ok := v["not"].(map[string]any); ok {
		p.nestedCompleteness(not, s, sPath, vPath.Child("not"))
	}
	for _, j := range junctors {
		list, _ := v[j].([]any)
		for i, x := range list {
			if nested, ok := x.(map[string]any); ok {
				p.nestedCompleteness(nested, s, sPath, vPath.Child(j).Index(i))
			}
		}
	}
}

// nestedCompleteness checks one nested value validation v against s.
func (p *parser) nestedCompleteness(v map[string]any, s *Structural, sPath, vPath *field.Path) {
	if s == nil {
		p.errs = append(p.errs, field.Required(sPath, "because it is defined in "+vPath.String()))
		return
	}
	p.junctorCompleteness(v, s, sPath, vPath)
	if items, ok := v["items"].(map[string]any); ok {
		p.nestedCompleteness(items, s.items, sPath.Child("items"), vPath.Child("items"))
	}
	props, _ := v["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		sub, _ := props[k].(map[string]any)
		prop, ok := s.properties[k]
		if !ok {
			p.errs = append(p.errs, field.Required(sPath.Child("properties").Key(k),
				"because it is defined in "+vPath.Child("properties").Key(k).String()))
			continue
		}
		if sub != nil {
			p.nestedCompleteness(sub, prop, sPath.Child("properties").Key(k), vPath.Child("properties").Key(k))
		}
	}
}
