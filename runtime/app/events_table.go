package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
)

// eventColumns are kube-apiserver's Event columns (pkg/printers/internalversion): kubectl
// shows LAST SEEN, TYPE, REASON, OBJECT and MESSAGE, and with -o wide SUBOBJECT, SOURCE,
// FIRST SEEN, COUNT and NAME (priority 1).
var eventColumns = []metav1.TableColumnDefinition{
	{Name: "Last Seen", Type: "string", Description: "The time at which the most recent occurrence of this event was recorded."},
	{Name: "Type", Type: "string", Description: "Type of this event (Normal, Warning), new types could be added in the future"},
	{Name: "Reason", Type: "string", Description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."},
	{Name: "Object", Type: "string", Description: "The object that this event is about."},
	{Name: "Subobject", Type: "string", Priority: 1, Description: "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]."},
	{Name: "Source", Type: "string", Priority: 1, Description: "The component reporting this event. Should be a short machine understandable string."},
	{Name: "Message", Type: "string", Description: "A human-readable description of the status of this operation."},
	{Name: "First Seen", Type: "string", Priority: 1, Description: "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"},
	{Name: "Count", Type: "string", Priority: 1, Description: "The number of times this event has occurred."},
	{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: "Name must be unique within a namespace."},
}

// eventTable renders Events (core/v1 or events.k8s.io/v1, through core) as kube-apiserver's
// printEvent does.
type eventTable struct {
	core func(runtime.Object) *corev1.Event
}

// ConvertToTable implements rest.TableConvertor for one Event or a list of them.
func (t eventTable) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = eventColumns
	}
	if !meta.IsListType(obj) {
		if m, err := meta.Accessor(obj); err == nil {
			table.ResourceVersion = m.GetResourceVersion()
		}
		table.Rows = []metav1.TableRow{t.row(obj)}
		return table, nil
	}
	if l, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = l.GetResourceVersion()
		table.Continue = l.GetContinue()
		table.RemainingItemCount = l.GetRemainingItemCount()
	}
	err := meta.EachListItem(obj, func(item runtime.Object) error {
		table.Rows = append(table.Rows, t.row(item))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot convert the list to a table: %w", err)
	}
	return table, nil
}

// row is kube's printEvent, wide (the server sends every column).
func (t eventTable) row(obj runtime.Object) metav1.TableRow {
	e := t.core(obj)
	first := since(e.FirstTimestamp.Time)
	if e.FirstTimestamp.IsZero() {
		first = since(e.EventTime.Time)
	}
	last := since(e.LastTimestamp.Time)
	if e.LastTimestamp.IsZero() {
		last = first
	}
	count := e.Count
	if e.Series != nil {
		last, count = since(e.Series.LastObservedTime.Time), e.Series.Count
	} else if count == 0 {
		count = 1 // a singleton event of the events.k8s.io API has no count
	}
	target := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		target += "/" + e.InvolvedObject.Name
	}
	source := firstNonEmpty(e.Source.Component, e.ReportingController)
	if instance := firstNonEmpty(e.Source.Host, e.ReportingInstance); instance != "" {
		source += ", " + instance
	}
	return metav1.TableRow{Object: runtime.RawExtension{Object: obj}, Cells: []any{
		last, e.Type, e.Reason, target, e.InvolvedObject.FieldPath, source,
		strings.TrimSpace(e.Message), first, int64(count), e.Name,
	}}
}

// since is kube's translateTimestampSince: "<unknown>" for the zero time, else the human
// duration since t ("5m").
func since(t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t))
}

// firstNonEmpty returns a unless it is empty, else b.
func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
