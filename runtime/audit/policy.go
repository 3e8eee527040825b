package audit

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/request"
)

// LoadPolicy reads an audit.k8s.io/v1 Policy from a YAML or JSON file (--audit-policy-file).
// Errors: the file cannot be read; an unknown field (strict decoding); a wrong apiVersion or
// kind; a rule without a known level; an unknown stage.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read audit policy: %w", err)
	}
	var p Policy
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return nil, fmt.Errorf("audit policy %s: %w", path, err)
	}
	if p.APIVersion != "audit.k8s.io/v1" || p.Kind != "Policy" {
		return nil, fmt.Errorf("audit policy %s: apiVersion %q, kind %q: write apiVersion: audit.k8s.io/v1, kind: Policy", path, p.APIVersion, p.Kind)
	}
	stages := p.OmitStages
	for i, r := range p.Rules {
		if _, ok := rank[r.Level]; !ok {
			return nil, fmt.Errorf("audit policy %s: rules[%d].level %q: write None, Metadata, Request or RequestResponse", path, i, r.Level)
		}
		stages = slices.Concat(stages, r.OmitStages)
	}
	for _, s := range stages {
		switch s {
		case StageRequestReceived, StageResponseStarted, StageResponseComplete, StagePanic:
		default:
			return nil, fmt.Errorf("audit policy %s: unknown stage %q: write RequestReceived, ResponseStarted, ResponseComplete or Panic", path, s)
		}
	}
	return &p, nil
}

// LevelFor returns the level of the first rule matching the request of user described by
// info, and the stages not to record; None when no rule matches.
func (p *Policy) LevelFor(u *auth.User, info *request.RequestInfo) (Level, []Stage) {
	for _, r := range p.Rules {
		if r.matches(u, info) {
			return r.Level, slices.Concat(p.OmitStages, r.OmitStages)
		}
	}
	return LevelNone, nil
}

func (r *PolicyRule) matches(u *auth.User, info *request.RequestInfo) bool {
	if len(r.Users) > 0 && (u == nil || !slices.Contains(r.Users, u.Name)) {
		return false
	}
	if len(r.UserGroups) > 0 && (u == nil || !slices.ContainsFunc(r.UserGroups, u.InGroup)) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, info.Verb) {
		return false
	}
	if !info.IsResourceRequest {
		// A rule about resources or namespaces does not match a non-resource request.
		if len(r.Resources) > 0 || len(r.Namespaces) > 0 {
			return false
		}
		return len(r.NonResourceURLs) == 0 || slices.ContainsFunc(r.NonResourceURLs, func(pattern string) bool {
			return pattern == info.Path || (strings.HasSuffix(pattern, "*") && strings.HasPrefix(info.Path, strings.TrimSuffix(pattern, "*")))
		})
	}
	if len(r.NonResourceURLs) > 0 {
		return false
	}
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, info.Namespace) {
		return false
	}
	return len(r.Resources) == 0 || slices.ContainsFunc(r.Resources, func(gr GroupResources) bool { return gr.matches(info) })
}

func (gr *GroupResources) matches(info *request.RequestInfo) bool {
	if gr.Group != info.APIGroup {
		return false
	}
	if len(gr.Resources) > 0 {
		combined := info.Resource
		if info.Subresource != "" {
			combined += "/" + info.Subresource
		}
		if !slices.ContainsFunc(gr.Resources, func(r string) bool {
			return r == combined || r == info.Resource && info.Subresource == "" || r == "*/"+info.Subresource && info.Subresource != "" || r == "*"
		}) {
			return false
		}
	}
	return len(gr.ResourceNames) == 0 || slices.Contains(gr.ResourceNames, info.Name)
}
