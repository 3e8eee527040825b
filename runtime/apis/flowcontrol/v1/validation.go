package v1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateFlowSchema is the hand-written validation of a FlowSchema, a subset of
// kube-apiserver's flowcontrol validation with its messages: a priority level name,
// matchingPrecedence in 1..10000, a known distinguisher method, each subject's member set
// for its kind, and rules naming verbs.
func ValidateFlowSchema(obj *FlowSchema) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if obj.Spec.PriorityLevelConfiguration.Name == "" {
		errs = append(errs, field.Required(spec.Child("priorityLevelConfiguration", "name"), "must reference a priority level"))
	}
	if p := obj.Spec.MatchingPrecedence; p <= 0 || p > FlowSchemaMaxMatchingPrecedence {
		errs = append(errs, field.Invalid(spec.Child("matchingPrecedence"), p, "must be a positive value no more than 10000"))
	}
	if d := obj.Spec.DistinguisherMethod; d != nil && d.Type != FlowDistinguisherMethodByUserType && d.Type != FlowDistinguisherMethodByNamespaceType {
		errs = append(errs, field.NotSupported(spec.Child("distinguisherMethod", "type"), d.Type,
			[]string{string(FlowDistinguisherMethodByNamespaceType), string(FlowDistinguisherMethodByUserType)}))
	}
	for i, rule := range obj.Spec.Rules {
		rp := spec.Child("rules").Index(i)
		if len(rule.Subjects) == 0 {
			errs = append(errs, field.Required(rp.Child("subjects"), "subjects must contain at least one value"))
		}
		for j, s := range rule.Subjects {
			errs = append(errs, validateSubject(&s, rp.Child("subjects").Index(j))...)
		}
		if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
			errs = append(errs, field.Required(rp, "at least one of resourceRules and nonResourceRules has to be non-empty"))
		}
		for j, r := range rule.ResourceRules {
			if len(r.Verbs) == 0 {
				errs = append(errs, field.Required(rp.Child("resourceRules").Index(j).Child("verbs"), "verbs must contain at least one value"))
			}
		}
		for j, r := range rule.NonResourceRules {
			if len(r.Verbs) == 0 {
				errs = append(errs, field.Required(rp.Child("nonResourceRules").Index(j).Child("verbs"), "verbs must contain at least one value"))
			}
		}
	}
	return errs
}

// ValidateFlowSchemaUpdate validates an update as a create.
func ValidateFlowSchemaUpdate(obj, _ *FlowSchema) field.ErrorList { return ValidateFlowSchema(obj) }

// validateSubject checks that the member of the subject's kind is set, as kube's.
func validateSubject(s *Subject, p *field.Path) field.ErrorList {
	switch s.Kind {
	case SubjectKindUser:
		if s.User == nil {
			return field.ErrorList{field.Required(p.Child("user"), "user is required when subject kind is 'User'")}
		}
	case SubjectKindGroup:
		if s.Group == nil {
			return field.ErrorList{field.Required(p.Child("group"), "group is required when subject kind is 'Group'")}
		}
	case SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			return field.ErrorList{field.Required(p.Child("serviceAccount"), "serviceAccount is required when subject kind is 'ServiceAccount'")}
		}
	default:
		return field.ErrorList{field.NotSupported(p.Child("kind"), s.Kind,
			[]string{string(SubjectKindServiceAccount), string(SubjectKindGroup), string(SubjectKindUser)})}
	}
	return nil
}

// ValidatePriorityLevelConfiguration is the hand-written validation of a priority level, a
// subset of kube-apiserver's with its messages: type Limited with spec.limited (and not
// spec.exempt) or Exempt; a Limited level's limitResponse Reject or Queue with positive
// queues, handSize no more than queues, and a positive queueLengthLimit.
func ValidatePriorityLevelConfiguration(obj *PriorityLevelConfiguration) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	switch obj.Spec.Type {
	case PriorityLevelEnablementLimited:
		if obj.Spec.Limited == nil {
			return append(errs, field.Required(spec.Child("limited"), "must not be empty when type is Limited"))
		}
		if obj.Spec.Exempt != nil {
			errs = append(errs, field.Forbidden(spec.Child("exempt"), "must be nil if the type is Limited"))
		}
		lim := obj.Spec.Limited
		lp := spec.Child("limited")
		if s := lim.NominalConcurrencyShares; s != nil && *s < 0 {
			errs = append(errs, field.Invalid(lp.Child("nominalConcurrencyShares"), *s, "must be a non-negative integer"))
		}
		lr := lim.LimitResponse
		switch lr.Type {
		case LimitResponseTypeReject:
			if lr.Queuing != nil {
				errs = append(errs, field.Forbidden(lp.Child("limitResponse", "queuing"), "must be nil if limited.limitResponse.type is not Limited"))
			}
		case LimitResponseTypeQueue:
			q := lr.Queuing
			qp := lp.Child("limitResponse", "queuing")
			if q == nil {
				return append(errs, field.Required(qp, "must not be empty if limited.limitResponse.type is Limited"))
			}
			if q.Queues <= 0 {
				errs = append(errs, field.Invalid(qp.Child("queues"), q.Queues, "must be positive"))
			}
			if q.QueueLengthLimit <= 0 {
				errs = append(errs, field.Invalid(qp.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
			}
			if q.HandSize <= 0 {
				errs = append(errs, field.Invalid(qp.Child("handSize"), q.HandSize, "must be positive"))
			} else if q.HandSize > q.Queues {
				errs = append(errs, field.Invalid(qp.Child("handSize"), q.HandSize, "should not be greater than queues"))
			}
		default:
			errs = append(errs, field.NotSupported(lp.Child("limitResponse", "type"), lr.Type,
				[]string{string(LimitResponseTypeQueue), string(LimitResponseTypeReject)}))
		}
	case PriorityLevelEnablementExempt:
		if obj.Spec.Limited != nil {
			errs = append(errs, field.Forbidden(spec.Child("limited"), "must be nil if the type is not Limited"))
		}
	default:
		errs = append(errs, field.NotSupported(spec.Child("type"), obj.Spec.Type,
			[]string{string(PriorityLevelEnablementExempt), string(PriorityLevelEnablementLimited)}))
	}
	return errs
}

// ValidatePriorityLevelConfigurationUpdate validates an update as a create.
func ValidatePriorityLevelConfigurationUpdate(obj, _ *PriorityLevelConfiguration) field.ErrorList {
	return ValidatePriorityLevelConfiguration(obj)
}
