package markers

import "strings"

// warnf records a warning at the current marker.
func (s *State) warnf(format string, args ...any) {
	s.errorf(format, args...)
	s.diags[len(s.diags)-1].Warning = true
}

// warnUnhonored warns about marker name when apigen cannot honour it, and reports whether it
// did.
func (s *State) warnUnhonored(name, body string) bool {
	d := s.reg.defs[name]
	if d == nil || d.Unhonored == "" {
		return false
	}
	reason := d.Unhonored
	s.warnf("+%s does nothing in apigen: %s", strings.TrimSpace(body), reason)
	return true
}

// UnlessFalse returns the ApplyFunc of a code-generator switch that apigen always acts as
// if on (+k8s:deepcopy-gen=package, +k8s:openapi-gen=true, +kubebuilder:object:generate=true):
// turning it off is a warning, since apigen generates the code anyway.
func UnlessFalse(what string) ApplyFunc {
	return func(s *State, raw string) error {
		if v, _ := unquote(raw); v == "false" {
			s.warnf("+%s does nothing in apigen: it generates %s for every type anyway", strings.TrimSpace(strings.TrimSpace(s.line.Text)[1:]), what)
		}
		return nil
	}
}
