package markers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// ClientVerbs are the verbs +genclient:onlyVerbs and +genclient:skipVerbs name, in the order
// client-gen emits their methods (client-gen's util.SupportedVerbs).
var ClientVerbs = []string{"create", "update", "updateStatus", "delete", "deleteCollection",
	"get", "list", "watch", "patch", "apply", "applyStatus"}

// ReadonlyVerbs are the verbs +genclient:readonly keeps (client-gen's util.ReadonlyVerbs).
var ReadonlyVerbs = []string{"get", "list", "watch"}

// Which verbs a +genclient:method extension may be made like, and which of them take input and
// result overrides, as client-gen's parseClientExtensions.
var (
	methodVerbs       = []string{"create", "update", "get", "list", "patch", "apply"}
	inputOverrideVerb = []string{"create", "update", "apply"}
	resultOverrides   = []string{"create", "update", "get", "list", "patch", "apply"}
)

// ClientVerbList parses the comma-separated verbs of +genclient:onlyVerbs or skipVerbs into
// dst, rejecting a verb client-gen does not know.
func ClientVerbList(field string, get func(*model.Markers) *[]string) ApplyFunc {
	return func(s *State, raw string) error {
		v, err := unquote(raw)
		if err != nil {
			return err
		}
		var verbs []string
		for _, verb := range strings.Split(v, ",") {
			verb = strings.TrimSpace(verb)
			if !slices.Contains(ClientVerbs, verb) {
				return fmt.Errorf("unknown verb %q (known: %s)", verb, strings.Join(ClientVerbs, ", "))
			}
			verbs = append(verbs, verb)
		}
		if err := s.record(field, strings.Join(verbs, ",")); err != nil {
			return err
		}
		*get(s.m) = verbs
		return nil
	}
}

// ClientMethod parses +genclient:method=Name,verb=v[,subresource=s][,input=T][,result=T] as
// client-gen's parseClientExtensions, with its errors.
func ClientMethod(s *State, raw string) error {
	parts := strings.Split(raw, ",")
	m := model.ClientMethod{Name: strings.TrimSpace(parts[0]), Pos: s.line.Pos}
	if m.Name == "" || strings.Contains(m.Name, "=") {
		return fmt.Errorf("must specify a method name first, as +genclient:method=GetScale,verb=get")
	}
	for _, p := range parts[1:] {
		key, val, ok := strings.Cut(p, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || val == "" {
			return fmt.Errorf("invalid argument %q of method %s (want key=value)", p, m.Name)
		}
		switch key {
		case "verb":
			m.Verb = val
		case "subresource":
			m.Subresource = val
		case "input":
			m.Input = val
		case "result":
			m.Result = val
		default:
			return fmt.Errorf("unknown argument %q of method %s (known: verb, subresource, input, result)", key, m.Name)
		}
	}
	switch {
	case m.Verb == "":
		return fmt.Errorf("the verb must be given, as +genclient:method=%s,verb=get", m.Name)
	case !slices.Contains(methodVerbs, m.Verb):
		return fmt.Errorf("verb %q is not supported by client-gen's extension methods (supported: %s)", m.Verb, strings.Join(methodVerbs, ", "))
	case m.Result != "" && !slices.Contains(resultOverrides, m.Verb):
		return fmt.Errorf("%s: a result type is not supported for %q verbs", m.Name, m.Verb)
	case m.Input != "" && !slices.Contains(inputOverrideVerb, m.Verb):
		return fmt.Errorf("%s: an input type is not supported for %q verbs", m.Name, m.Verb)
	}
	for _, prev := range s.m.ClientMethods {
		if prev.Name == m.Name {
			return fmt.Errorf("method %s is declared twice", m.Name)
		}
	}
	s.m.ClientMethods = append(s.m.ClientMethods, m)
	return nil
}

// DeprecatedVersion is +kubebuilder:deprecatedversion[:warning="..."], as controller-tools'
// DeprecatedVersion marker.
func DeprecatedVersion(s *State, raw string) error {
	var warning *string
	err := applyArgs(raw, map[string]argSetter{"warning": func(raw string) error {
		w, err := unquote(raw)
		warning = &w
		return err
	}})
	if err != nil {
		return err
	}
	if err := s.record("deprecatedVersion", fmt.Sprint(warning != nil)); err != nil {
		return err
	}
	s.m.DeprecatedVersion, s.m.DeprecationText = true, warning
	return nil
}
