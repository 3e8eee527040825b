package v1

import (
	"k8s.io/apimachinery/pkg/fields"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
)

// ToCore fills out, the stored core/v1 form, from in, as Kubernetes'
// Convert_v1_Event_To_core_Event: note is message, regarding involvedObject,
// deprecatedSource source, deprecatedFirstTimestamp, deprecatedLastTimestamp and
// deprecatedCount are firstTimestamp, lastTimestamp and count, reportingController is
// reportingComponent; the rest keeps its name. in is not changed; out shares in's pointers.
func ToCore(in *Event, out *corev1.Event) {
	*out = corev1.Event{
		TypeMeta:            out.TypeMeta,
		ObjectMeta:          in.ObjectMeta,
		InvolvedObject:      corev1.ObjectReference(in.Regarding),
		Reason:              in.Reason,
		Message:             in.Note,
		Source:              corev1.EventSource(in.DeprecatedSource),
		FirstTimestamp:      in.DeprecatedFirstTimestamp,
		LastTimestamp:       in.DeprecatedLastTimestamp,
		Count:               in.DeprecatedCount,
		Type:                in.Type,
		EventTime:           in.EventTime,
		Action:              in.Action,
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
	}
	if in.Series != nil {
		out.Series = &corev1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	if in.Related != nil {
		related := corev1.ObjectReference(*in.Related)
		out.Related = &related
	}
}

// FromCore fills out from in, the stored core/v1 form, as Kubernetes'
// Convert_core_Event_To_v1_Event (ToCore's inverse). in is not changed; out shares in's
// pointers.
func FromCore(in *corev1.Event, out *Event) {
	*out = Event{
		TypeMeta:                 out.TypeMeta,
		ObjectMeta:               in.ObjectMeta,
		EventTime:                in.EventTime,
		ReportingController:      in.ReportingController,
		ReportingInstance:        in.ReportingInstance,
		Action:                   in.Action,
		Reason:                   in.Reason,
		Regarding:                ObjectReference(in.InvolvedObject),
		Note:                     in.Message,
		Type:                     in.Type,
		DeprecatedSource:         EventSource(in.Source),
		DeprecatedFirstTimestamp: in.FirstTimestamp,
		DeprecatedLastTimestamp:  in.LastTimestamp,
		DeprecatedCount:          in.Count,
	}
	if in.Series != nil {
		out.Series = &EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	if in.Related != nil {
		related := ObjectReference(*in.Related)
		out.Related = &related
	}
}

// EventFields returns the fields of event a field selector through events.k8s.io/v1 may
// name beyond metadata.name and metadata.namespace, as Kubernetes' events/v1 field label
// conversion maps them onto the core/v1 Event's: regarding's kind, namespace, name, uid,
// apiVersion, resourceVersion and fieldPath, reason, reportingController and type.
func EventFields(event *Event) fields.Set {
	return fields.Set{
		"regarding.kind":            event.Regarding.Kind,
		"regarding.namespace":       event.Regarding.Namespace,
		"regarding.name":            event.Regarding.Name,
		"regarding.uid":             string(event.Regarding.UID),
		"regarding.apiVersion":      event.Regarding.APIVersion,
		"regarding.resourceVersion": event.Regarding.ResourceVersion,
		"regarding.fieldPath":       event.Regarding.FieldPath,
		"reason":                    event.Reason,
		"reportingController":       event.ReportingController,
		"type":                      event.Type,
	}
}
