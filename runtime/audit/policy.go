package audit

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/runtime/request"
)

// LoadPolicy reads an audit.k8s.io/v1 Policy from a YAML or JSON file (--audit-policy-file),
// as kube-apiserver's policy.LoadPolicyFromFile: decoded strictly, or, when the file has
// fields the Policy does not know, leniently with a warning to log (may be nil), then
// validated as kube's validation.ValidatePolicy. Errors: the file cannot be read or decoded;
// apiVersion and kind are not audit.k8s.io/v1 Policy; a field error (a level that is not
// None, Metadata, Request or RequestResponse; an unknown stage; a non-resource URL not
// starting with "/" or with "*" before its end; a group that is not a DNS subdomain;
// resourceNames without resources; a rule with both resources and non-resource URLs); no
// rules.
func LoadPolicy(path string, log *slog.Logger) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read audit policy: %w", err)
	}
	p, err := parsePolicy(data, log)
	if err != nil {
		return nil, fmt.Errorf("audit policy %s: %w", path, err)
	}
	return p, nil
}

// parsePolicy is LoadPolicy's work on the file's bytes.
func parsePolicy(data []byte, log *slog.Logger) (*Policy, error) {
	var p Policy
	if strictErr := yaml.UnmarshalStrict(data, &p); strictErr != nil {
		p = Policy{}
		if err := yaml.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("failed decoding: %w", err)
		}
		if log != nil {
			log.Warn("audit policy contains errors, falling back to lenient decoding", "err", strictErr)
		}
	}
	if p.APIVersion != "audit.k8s.io/v1" || p.Kind != "Policy" {
		return nil, fmt.Errorf("apiVersion %q, kind %q: write apiVersion: audit.k8s.io/v1, kind: Policy", p.APIVersion, p.Kind)
	}
	if errs := validatePolicy(&p); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if len(p.Rules) == 0 {
		return nil, errors.New("loaded illegal policy with 0 rules")
	}
	return &p, nil
}

var (
	validLevels = []string{string(LevelNone), string(LevelMetadata), string(LevelRequest), string(LevelRequestResponse)}
	validStages = []string{string(StageRequestReceived), string(StageResponseStarted), string(StageResponseComplete), string(StagePanic)}
)

// validatePolicy checks p as k8s.io/apiserver's audit validation.ValidatePolicy.
func validatePolicy(p *Policy) field.ErrorList {
	errs := validateStages(p.OmitStages, field.NewPath("omitStages"))
	for i, r := range p.Rules {
		path := field.NewPath("rules").Index(i)
		switch {
		case r.Level == "":
			errs = append(errs, field.Required(path.Child("level"), ""))
		case !slices.Contains(validLevels, string(r.Level)):
			errs = append(errs, field.NotSupported(path.Child("level"), r.Level, validLevels))
		}
		for j, url := range r.NonResourceURLs {
			if url == "*" {
				continue
			}
			if !strings.HasPrefix(url, "/") {
				errs = append(errs, field.Invalid(path.Child("nonResourceURLs").Index(j), url, "non-resource URL rules must begin with a '/' character"))
			}
			if url != "" && strings.ContainsRune(url[:len(url)-1], '*') {
				errs = append(errs, field.Invalid(path.Child("nonResourceURLs").Index(j), url, "non-resource URL wildcards '*' must be the final character of the rule"))
			}
		}
		for _, gr := range r.Resources {
			if gr.Group != "" && gr.Group != "*" {
				if msgs := validation.NameIsDNSSubdomain(gr.Group, false); len(msgs) != 0 {
					errs = append(errs, field.Invalid(path.Child("resources").Child("group"), gr.Group, strings.Join(msgs, ",")))
				}
			}
			if len(gr.ResourceNames) > 0 && len(gr.Resources) == 0 {
				errs = append(errs, field.Invalid(path.Child("resources").Child("resourceNames"), gr.ResourceNames, "using resourceNames requires at least one resource"))
			}
		}
		errs = append(errs, validateStages(r.OmitStages, path.Child("omitStages"))...)
		if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
			errs = append(errs, field.Invalid(path.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
	}
	return errs
}

func validateStages(stages []Stage, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range stages {
		if !slices.Contains(validStages, string(s)) {
			errs = append(errs, field.Invalid(path.Index(i), string(s), "allowed stages are "+strings.Join(validStages, ",")))
		}
	}
	return errs
}

// RequestConfig is what the policy says about one request, as k8s.io/apiserver's
// RequestAuditConfig.
type RequestConfig struct {
	Level             Level
	OmitStages        []Stage
	OmitManagedFields bool
}

// For returns the audit configuration of the request of user u described by info, as
// k8s.io/apiserver's policyRuleEvaluator: the first matching rule's level, the policy's and
// the rule's omitted stages, and the rule's omitManagedFields (else the policy's); level None
// when no rule matches.
func (p *Policy) For(u *request.User, info *request.RequestInfo) RequestConfig {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.matches(u, info) {
			omit := p.OmitManagedFields
			if r.OmitManagedFields != nil {
				omit = *r.OmitManagedFields
			}
			return RequestConfig{Level: r.Level, OmitStages: slices.Concat(p.OmitStages, r.OmitStages), OmitManagedFields: omit}
		}
	}
	return RequestConfig{Level: LevelNone, OmitStages: p.OmitStages, OmitManagedFields: p.OmitManagedFields}
}

// LevelFor returns For's level and stages not to record.
func (p *Policy) LevelFor(u *request.User, info *request.RequestInfo) (Level, []Stage) {
	c := p.For(u, info)
	return c.Level, c.OmitStages
}

// matches reports whether r applies, as k8s.io/apiserver's ruleMatches: users, groups and
// verbs when listed; then resources and namespaces (resource requests only), else
// non-resource URLs (non-resource requests only).
func (r *PolicyRule) matches(u *request.User, info *request.RequestInfo) bool {
	if len(r.Users) > 0 && (u == nil || !slices.Contains(r.Users, u.Name)) {
		return false
	}
	if len(r.UserGroups) > 0 && (u == nil || !slices.ContainsFunc(r.UserGroups, u.InGroup)) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, info.Verb) {
		return false
	}
	if len(r.Namespaces) > 0 || len(r.Resources) > 0 {
		if !info.IsResourceRequest || len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, info.Namespace) {
			return false
		}
		return len(r.Resources) == 0 || slices.ContainsFunc(r.Resources, func(gr GroupResources) bool { return gr.matches(info) })
	}
	if len(r.NonResourceURLs) > 0 {
		return !info.IsResourceRequest && slices.ContainsFunc(r.NonResourceURLs, func(spec string) bool {
			return spec == "*" || spec == info.Path || strings.HasSuffix(spec, "*") && strings.HasPrefix(info.Path, strings.TrimRight(spec, "*"))
		})
	}
	return true
}

// matches reports whether gr names info's resource, as k8s.io/apiserver's
// ruleMatchesResource: "*" any resource and subresource, "*/status" any resource's status,
// "databases/*" any subresource of databases.
func (gr *GroupResources) matches(info *request.RequestInfo) bool {
	if gr.Group != info.APIGroup && gr.Group != "*" {
		return false
	}
	if len(gr.Resources) == 0 {
		return true
	}
	if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, info.Name) {
		return false
	}
	combined := info.Resource
	if info.Subresource != "" {
		combined += "/" + info.Subresource
	}
	return slices.ContainsFunc(gr.Resources, func(res string) bool {
		return res == combined || res == "*" ||
			info.Subresource != "" && strings.HasPrefix(res, "*/") && info.Subresource == strings.TrimPrefix(res, "*/") ||
			strings.HasSuffix(res, "/*") && info.Resource == strings.TrimSuffix(res, "/*")
	})
}
