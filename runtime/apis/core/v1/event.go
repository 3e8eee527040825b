package v1

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The length limits of an Event's fields, as Kubernetes' core validation.
const (
	ReportingInstanceLengthLimit = 128
	ActionLengthLimit            = 128
	ReasonLengthLimit            = 128
	NoteLengthLimit              = 1024
)

// ValidateNewEvent is kube's validation of a new Event (pkg/apis/core/validation
// ValidateEventCreate; named apart from the ValidateEvent and ValidateEventUpdate hooks the
// generated strategy would call without the version; runtime/app calls it), by the version of the API the request came through: every Event
// passes the legacy checks (its namespace agrees with involvedObject's; with an eventTime,
// reportingController, reportingInstance, action and reason are required and bounded and
// the message is at most NoteLengthLimit characters); one created through core/v1 is held
// to nothing more, for compatibility with old clients; one created through
// events.k8s.io/v1 also needs an eventTime, a type of Normal or Warning, a valid series,
// and no firstTimestamp, lastTimestamp, count or source. The metadata is validated by the
// registry before. Errors are kube's field errors, paths in core/v1's field names.
func ValidateNewEvent(event *Event, requestVersion schema.GroupVersion) field.ErrorList {
	errs := legacyValidateEvent(event)
	if requestVersion == SchemeGroupVersion {
		return errs // core/v1: no further validation, for backwards compatibility
	}
	errs = append(errs, validateV1EventSeries(event)...)
	if event.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if event.Type != EventTypeNormal && event.Type != EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", event.Type)))
	}
	if !event.FirstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !event.LastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if event.Count != 0 {
		errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if event.Source.Component != "" || event.Source.Host != "" {
		errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return errs
}

// ValidateEventChange is kube's validation of an Event update (ValidateEventUpdate): the
// new Event passes the legacy checks; through events.k8s.io/v1, a changed series must be
// valid and every field but series (and metadata) is immutable ("field is immutable").
func ValidateEventChange(newEvent, oldEvent *Event, requestVersion schema.GroupVersion) field.ErrorList {
	errs := legacyValidateEvent(newEvent)
	if requestVersion == SchemeGroupVersion {
		return errs
	}
	if !reflect.DeepEqual(newEvent.Series, oldEvent.Series) {
		errs = append(errs, validateV1EventSeries(newEvent)...)
	}
	immutable := func(path string, new, old any) {
		if !reflect.DeepEqual(new, old) {
			errs = append(errs, field.Invalid(field.NewPath(path), new, "field is immutable"))
		}
	}
	immutable("involvedObject", newEvent.InvolvedObject, oldEvent.InvolvedObject)
	immutable("reason", newEvent.Reason, oldEvent.Reason)
	immutable("message", newEvent.Message, oldEvent.Message)
	immutable("source", newEvent.Source, oldEvent.Source)
	immutable("firstTimestamp", newEvent.FirstTimestamp, oldEvent.FirstTimestamp)
	immutable("lastTimestamp", newEvent.LastTimestamp, oldEvent.LastTimestamp)
	immutable("count", newEvent.Count, oldEvent.Count)
	immutable("type", newEvent.Type, oldEvent.Type)
	immutable("eventTime", newEvent.EventTime, oldEvent.EventTime)
	immutable("action", newEvent.Action, oldEvent.Action)
	immutable("related", newEvent.Related, oldEvent.Related)
	immutable("reportingController", newEvent.ReportingController, oldEvent.ReportingController)
	immutable("reportingInstance", newEvent.ReportingInstance, oldEvent.ReportingInstance)
	return errs
}

// validateV1EventSeries checks a series: a count of at least 2 and a lastObservedTime.
func validateV1EventSeries(event *Event) field.ErrorList {
	var errs field.ErrorList
	if event.Series != nil {
		if event.Series.Count < 2 {
			errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
		}
		if event.Series.LastObservedTime.IsZero() {
			errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
		}
	}
	return errs
}

// legacyValidateEvent is kube's legacyValidateEvent: the checks every Event passes.
func legacyValidateEvent(event *Event) field.ErrorList {
	var errs field.ErrorList
	nsPath := field.NewPath("involvedObject", "namespace")
	if event.EventTime.IsZero() {
		// An old client's Event: its namespace and involvedObject's agree ("default" or
		// none for a cluster-scoped object).
		if event.InvolvedObject.Namespace == "" {
			if event.Namespace != metav1.NamespaceNone && event.Namespace != metav1.NamespaceDefault {
				errs = append(errs, field.Invalid(nsPath, event.InvolvedObject.Namespace, "does not match event.namespace"))
			}
		} else if event.Namespace != event.InvolvedObject.Namespace {
			errs = append(errs, field.Invalid(nsPath, event.InvolvedObject.Namespace, "does not match event.namespace"))
		}
	} else {
		if event.InvolvedObject.Namespace == "" && event.Namespace != metav1.NamespaceDefault && event.Namespace != metav1.NamespaceSystem {
			errs = append(errs, field.Invalid(nsPath, event.InvolvedObject.Namespace, "does not match event.namespace"))
		}
		errs = append(errs, requiredBounded("reportingController", event.ReportingController, 0)...)
		for _, msg := range validation.IsQualifiedName(event.ReportingController) {
			errs = append(errs, field.Invalid(field.NewPath("reportingController"), event.ReportingController, msg))
		}
		errs = append(errs, requiredBounded("reportingInstance", event.ReportingInstance, ReportingInstanceLengthLimit)...)
		errs = append(errs, requiredBounded("action", event.Action, ActionLengthLimit)...)
		errs = append(errs, requiredBounded("reason", event.Reason, ReasonLengthLimit)...)
		if len(event.Message) > NoteLengthLimit {
			errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", NoteLengthLimit)))
		}
	}
	for _, msg := range validation.IsDNS1123Subdomain(event.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), event.Namespace, msg))
	}
	return errs
}

// requiredBounded reports value at path empty (Required) or longer than limit characters
// (when limit > 0), with kube's wording.
func requiredBounded(path, value string, limit int) field.ErrorList {
	switch {
	case value == "":
		return field.ErrorList{field.Required(field.NewPath(path), "")}
	case limit > 0 && len(value) > limit:
		return field.ErrorList{field.Invalid(field.NewPath(path), "", fmt.Sprintf("can have at most %v characters", limit))}
	}
	return nil
}

// EventFields returns the fields of event a field selector may name beyond metadata.name
// and metadata.namespace, as kube's event registry's ToSelectableFields: involvedObject's
// kind, namespace, name, uid, apiVersion, resourceVersion and fieldPath, reason,
// reportingComponent, source (source.component, else reportingComponent) and type. `kubectl
// describe` and `kubectl events --for` select on involvedObject's fields.
func EventFields(event *Event) fields.Set {
	source := event.Source.Component
	if source == "" {
		source = event.ReportingController
	}
	return fields.Set{
		"involvedObject.kind":            event.InvolvedObject.Kind,
		"involvedObject.namespace":       event.InvolvedObject.Namespace,
		"involvedObject.name":            event.InvolvedObject.Name,
		"involvedObject.uid":             string(event.InvolvedObject.UID),
		"involvedObject.apiVersion":      event.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": event.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       event.InvolvedObject.FieldPath,
		"reason":                         event.Reason,
		"reportingComponent":             event.ReportingController,
		"source":                         source,
		"type":                           event.Type,
	}
}
