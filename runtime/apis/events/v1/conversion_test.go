package v1

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
)

// TestConversionRoundTrip checks kube's field mapping between events.k8s.io/v1 and the
// stored core/v1 Event (note is message, regarding involvedObject, deprecated* the core
// fields) and that FromCore undoes ToCore for an Event with every field set.
func TestConversionRoundTrip(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC))
	micro := metav1.NewMicroTime(now.Time.Add(time.Microsecond))
	in := &Event{
		ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns", ResourceVersion: "7", Labels: map[string]string{"a": "b"}},
		EventTime:  micro, Series: &EventSeries{Count: 3, LastObservedTime: micro},
		ReportingController: "example.com/c", ReportingInstance: "c-1", Action: "Act", Reason: "Why",
		Regarding: ObjectReference{Kind: "Database", Namespace: "ns", Name: "orders", UID: "u", APIVersion: "db.example.com/v1", ResourceVersion: "5", FieldPath: "spec"},
		Related:   &ObjectReference{Kind: "Backup", Name: "nightly"},
		Note:      "a note", Type: "Warning",
		DeprecatedSource:         EventSource{Component: "comp", Host: "host"},
		DeprecatedFirstTimestamp: now, DeprecatedLastTimestamp: now, DeprecatedCount: 4,
	}
	core := &corev1.Event{}
	ToCore(in, core)
	want := &corev1.Event{
		ObjectMeta:     in.ObjectMeta,
		InvolvedObject: corev1.ObjectReference{Kind: "Database", Namespace: "ns", Name: "orders", UID: "u", APIVersion: "db.example.com/v1", ResourceVersion: "5", FieldPath: "spec"},
		Reason:         "Why", Message: "a note", Source: corev1.EventSource{Component: "comp", Host: "host"},
		FirstTimestamp: now, LastTimestamp: now, Count: 4, Type: "Warning", EventTime: micro,
		Series: &corev1.EventSeries{Count: 3, LastObservedTime: micro}, Action: "Act",
		Related:             &corev1.ObjectReference{Kind: "Backup", Name: "nightly"},
		ReportingController: "example.com/c", ReportingInstance: "c-1",
	}
	if !reflect.DeepEqual(core, want) {
		t.Errorf("ToCore:\n got %+v\nwant %+v", core, want)
	}
	back := &Event{}
	FromCore(core, back)
	if !reflect.DeepEqual(back, in) {
		t.Errorf("FromCore(ToCore(e)):\n got %+v\nwant %+v", back, in)
	}
	if got := EventFields(in); got["regarding.name"] != "orders" || got["reportingController"] != "example.com/c" || got["type"] != "Warning" {
		t.Errorf("EventFields = %v", got)
	}
}
