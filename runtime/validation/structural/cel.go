package structural

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/validation/cel"
)

// rule is one compiled x-kubernetes-validations rule.
type rule struct {
	*cel.Rule
}

// celType is the shape self is declared with for rules on s.
func (s *Structural) celType() cel.Type {
	if s.intOrString || (s.preserveUnknownFields && s.typ == "") {
		return cel.Dyn
	}
	switch s.typ {
	case "string":
		return cel.String
	case "integer":
		return cel.Int
	case "number":
		return cel.Double
	case "boolean":
		return cel.Bool
	case "array":
		return cel.List
	case "object":
		return cel.Object
	}
	return cel.Dyn
}

// compileRules compiles the x-kubernetes-validations of the node m, reporting every rule that does not compile at
// its rule (or messageExpression, reason, fieldPath) as upstream: "compilation failed: <cel-go's message>".
func (p *parser) compileRules(s *Structural, m map[string]any, path *field.Path) []*rule {
	raw, ok := m["x-kubernetes-validations"]
	if !ok || raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		p.errs = append(p.errs, field.Invalid(path.Child("x-kubernetes-validations"), raw, "must be a list of rules"))
		return nil
	}
	var rules []*rule
	for i, x := range list {
		rp := path.Child("x-kubernetes-validations").Index(i)
		rm, ok := x.(map[string]any)
		if !ok {
			p.errs = append(p.errs, field.Invalid(rp, x, "must be an object"))
			continue
		}
		spec := cel.Spec{
			Rule:              p.str(rm, "rule", rp),
			Message:           p.str(rm, "message", rp),
			MessageExpression: p.str(rm, "messageExpression", rp),
			Reason:            p.str(rm, "reason", rp),
			FieldPath:         p.str(rm, "fieldPath", rp),
			OptionalOldSelf:   p.boolean(rm, "optionalOldSelf", rp),
		}
		if strings.TrimSpace(spec.Rule) == "" {
			p.errs = append(p.errs, field.Required(rp.Child("rule"), "rule is not specified"))
			continue
		}
		r, err := cel.Compile(spec, s.celType())
		if err != nil {
			p.errs = append(p.errs, compileError(rp, spec, err))
			continue
		}
		rules = append(rules, &rule{r})
	}
	return rules
}

// compileError places a compile error at the part of the rule it concerns.
func compileError(rp *field.Path, spec cel.Spec, err error) *field.Error {
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "messageExpression: "):
		return field.Invalid(rp.Child("messageExpression"), spec.MessageExpression,
			"messageExpression compilation failed: "+strings.TrimPrefix(msg, "messageExpression: "))
	case strings.HasPrefix(msg, "reason "):
		return field.NotSupported(rp.Child("reason"), spec.Reason,
			[]string{cel.ReasonInvalid, cel.ReasonForbidden, cel.ReasonRequired, cel.ReasonDuplicate})
	case strings.HasPrefix(msg, "fieldPath "):
		return field.Invalid(rp.Child("fieldPath"), spec.FieldPath, msg)
	}
	return field.Invalid(rp.Child("rule"), spec.Rule, "compilation failed: "+msg)
}

// validateRules evaluates the rules of s and of every node below it on x at path, with old the value at the same
// place in the stored object (nil when there is none); update tells whether the request is an update. x and old
// must be typed by s (see typed).
func (s *Structural) validateRules(ctx context.Context, path *field.Path, x, old any, update bool) field.ErrorList {
	if s == nil || x == nil {
		return nil
	}
	var errs field.ErrorList
	op := operation.Operation{Type: operation.Create}
	if update {
		op.Type = operation.Update
	}
	var oldSelf any
	if old != nil {
		oldSelf = cel.JSON{Value: old, Schema: s.celSchema}
	}
	for _, r := range s.rules {
		errs = append(errs, r.Validate(ctx, op, path, cel.JSON{Value: x, Schema: s.celSchema}, oldSelf)...)
	}
	switch x := x.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		for _, k := range sortedKeys(x) {
			var oldV any
			if oldMap != nil {
				oldV = oldMap[k]
			}
			if sub, ok := s.properties[k]; ok {
				errs = append(errs, sub.validateRules(ctx, path.Child(k), x[k], oldV, update)...)
			} else if s.additional != nil {
				errs = append(errs, s.additional.validateRules(ctx, path.Key(k), x[k], oldV, update)...)
			}
		}
	case []any:
		if s.items == nil {
			return errs
		}
		oldByKey := s.correlatedItems(old)
		for i, item := range x {
			errs = append(errs, s.items.validateRules(ctx, path.Index(i), item, oldByKey(item), update)...)
		}
	}
	return errs
}

// correlatedItems returns, for a list-type map, a function finding the old item with the same keys as an item;
// other lists have no correlation, as upstream, and the function returns nil.
func (s *Structural) correlatedItems(old any) func(item any) any {
	oldList, _ := old.([]any)
	if s.listType != "map" || len(oldList) == 0 {
		return func(any) any { return nil }
	}
	byKey := map[string]any{}
	for _, o := range oldList {
		if k, ok := s.mapKey(o); ok {
			byKey[k] = o
		}
	}
	return func(item any) any {
		k, ok := s.mapKey(item)
		if !ok {
			return nil
		}
		return byKey[k]
	}
}

// typed returns a copy of x with its numbers typed by the schema s, as upstream's CEL values are: float64 under
// "number", int64 for integral numbers elsewhere (as apimachinery's JSON decoding gives them).
func typed(x any, s *Structural) any {
	switch v := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			var sub *Structural
			if s != nil {
				if sub = s.properties[k]; sub == nil {
					sub = s.additional
				}
			}
			out[k] = typed(e, sub)
		}
		return out
	case []any:
		var items *Structural
		if s != nil {
			items = s.items
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = typed(e, items)
		}
		return out
	case int64:
		if s != nil && s.typ == "number" {
			return float64(v)
		}
	case float64:
		if (s == nil || s.typ != "number") && v == float64(int64(v)) {
			return int64(v)
		}
	}
	return x
}
