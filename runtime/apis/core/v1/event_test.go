package v1

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// eventsV1 is the events.k8s.io/v1 request version of kube's validation.
var eventsV1 = schema.GroupVersion{Group: "events.k8s.io", Version: "v1"}

// TestValidateEvent checks kube's Event validation by request version: the legacy checks
// always, the strict ones (eventTime, type, no deprecated fields, immutability) only through
// events.k8s.io/v1.
func TestValidateEvent(t *testing.T) {
	now := metav1.NewMicroTime(time.Now())
	modern := func() *Event {
		return &Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}, EventTime: now, Type: EventTypeNormal,
			InvolvedObject:      ObjectReference{Kind: "Database", Name: "orders", Namespace: "ns"},
			ReportingController: "example.com/c", ReportingInstance: "c-1", Action: "Act", Reason: "Why"}
	}
	old := &Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}, InvolvedObject: ObjectReference{Namespace: "ns"},
		Type: "Sideways", Count: 2, Source: EventSource{Component: "c"}}
	otherNS := &Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}, InvolvedObject: ObjectReference{Namespace: "other"}}
	noReporter := modern()
	noReporter.ReportingController, noReporter.Action = "", ""
	for _, tc := range []struct {
		name    string
		event   *Event
		version schema.GroupVersion
		want    []string
	}{
		{"modern through events.k8s.io", modern(), eventsV1, nil},
		{"modern through core", modern(), SchemeGroupVersion, nil},
		{"old client through core", old, SchemeGroupVersion, nil},
		{"old client through events.k8s.io", old, eventsV1, []string{"eventTime: Required value", "type: Invalid value: \"\": has invalid value: Sideways", "count: Invalid value: \"\": needs to be unset", "source: Invalid value: \"\": needs to be unset"}},
		{"namespace mismatch", otherNS, SchemeGroupVersion, []string{"involvedObject.namespace: Invalid value: \"other\": does not match event.namespace"}},
		// As kube: an empty reportingController is also not a qualified name (twice).
		{"no reporter", noReporter, SchemeGroupVersion, []string{"reportingController: Required value",
			"reportingController: Invalid value: \"\": name part must be non-empty", "reportingController: Invalid value", "action: Required value"}},
	} {
		errs := ValidateNewEvent(tc.event, tc.version)
		if len(errs) != len(tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, errs, tc.want)
			continue
		}
		for i, want := range tc.want {
			if !strings.Contains(errs[i].Error(), want) {
				t.Errorf("%s: error %d %q, want %q", tc.name, i, errs[i].Error(), want)
			}
		}
	}
	changed := modern()
	changed.Message, changed.Series = "new", &EventSeries{Count: 2, LastObservedTime: now}
	if errs := ValidateEventChange(changed, modern(), SchemeGroupVersion); len(errs) != 0 {
		t.Errorf("core/v1 update: %v, want none", errs)
	}
	if errs := ValidateEventChange(changed, modern(), eventsV1); len(errs) != 1 || !strings.Contains(errs[0].Error(), "message: Invalid value: \"new\": field is immutable") {
		t.Errorf("events.k8s.io/v1 update of message and series: %v, want message immutable only", errs)
	}
}
