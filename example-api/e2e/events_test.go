package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
)

// TestEvents serves Events as kube-apiserver does, on one server: client-go's tools/record
// recorder (core/v1) and tools/events recorder (events.k8s.io/v1) record Events on a
// Database (the first recorded twice: its count PATCHed to 2), and each is read back through both APIs with kube's field mapping (message is
// note, involvedObject regarding, source deprecatedSource); `kubectl get events -A` prints
// kube's columns, `kubectl describe database` lists them in its Events section (field
// selectors on involvedObject's name, namespace, kind and uid) and `kubectl events --for`
// finds them. An Event kube's events.k8s.io/v1 validation refuses is accepted through
// core/v1, as kube accepts old clients' Events.
func TestEvents(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kube := kubernetes.NewForConfigOrDie(unthrottledConfig(srv.config))
	db, err := versioned.NewForConfigOrDie(srv.config).DbV1().Databases("default").Create(ctx,
		&dbv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "orders"}, Spec: dbv1.DatabaseSpec{Engine: dbv1.EnginePostgres}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := dbv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}

	// tools/record: POST /api/v1/namespaces/default/events.
	legacy := record.NewBroadcaster()
	defer legacy.Shutdown()
	legacy.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	recorder := legacy.NewRecorder(scheme, corev1.EventSource{Component: "e2e-record"})
	recorder.Eventf(db, corev1.EventTypeNormal, "Recorded", "recorded through %s", "core/v1")
	// tools/events: POST /apis/events.k8s.io/v1/namespaces/default/events.
	modern := events.NewBroadcaster(&events.EventSinkImpl{Interface: kube.EventsV1()})
	modern.StartRecordingToSink(ctx.Done())
	defer modern.Shutdown()
	modern.NewRecorder(scheme, "example.com/e2e-events").Eventf(db, nil, corev1.EventTypeWarning, "Checked", "Check", "checked through %s", "events.k8s.io/v1")

	byReason := func(reason string, count int32) (corev1.Event, eventsv1.Event) {
		var core corev1.Event
		waitUntil(t, 20*time.Second, "the "+reason+" Event", func() bool {
			list, err := kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "reason=" + reason + ",involvedObject.name=orders"})
			if err != nil {
				t.Fatalf("list core/v1 events: %v", err)
			}
			if len(list.Items) == 1 {
				core = list.Items[0]
			}
			return len(list.Items) == 1 && (count == 0 || core.Count == count)
		})
		modern, err := kube.EventsV1().Events("default").Get(ctx, core.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get %s through events.k8s.io/v1: %v", core.Name, err)
		}
		return core, *modern
	}
	core, ev := byReason("Recorded", 1)
	// The same Event again: the recorder's correlator PATCHes its count (strategic merge).
	recorder.Eventf(db, corev1.EventTypeNormal, "Recorded", "recorded through %s", "core/v1")
	core, ev = byReason("Recorded", 2)
	if core.Message != "recorded through core/v1" || ev.Note != core.Message || ev.Regarding.UID != db.UID ||
		ev.DeprecatedSource.Component != "e2e-record" || ev.DeprecatedCount != 2 || ev.ResourceVersion != core.ResourceVersion {
		t.Errorf("the recorded Event: core/v1 %+v, events.k8s.io/v1 %+v; want the same object, note = message", core, ev)
	}
	core, ev = byReason("Checked", 0)
	if ev.Note != "checked through events.k8s.io/v1" || core.Message != ev.Note || core.InvolvedObject.UID != db.UID ||
		core.ReportingController != "example.com/e2e-events" || core.Action != "Check" || core.Type != corev1.EventTypeWarning {
		t.Errorf("the events.k8s.io Event: core/v1 %+v, events.k8s.io/v1 %+v; want the same object, message = note", core, ev)
	}
	if list, err := kube.EventsV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=orders,reportingController=example.com/e2e-events"}); err != nil || len(list.Items) != 1 {
		t.Errorf("events.k8s.io/v1 list by regarding.name and reportingController: %v, %d items; want 1", err, len(list.Items))
	}

	out := srv.mustKubectl(t, "get", "events", "-A")
	for _, want := range []string{"NAMESPACE   LAST SEEN   TYPE      REASON     OBJECT            MESSAGE", "Recorded   database/orders   recorded through core/v1", "Checked    database/orders   checked through events.k8s.io/v1"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get events -A lacks %q", want)
		}
	}
	out = srv.mustKubectl(t, "describe", "database", "orders")
	if i := strings.Index(out, "Events:"); i < 0 || !strings.Contains(out[i:], "Normal   Recorded") || !strings.Contains(out[i:], "e2e-record") ||
		!strings.Contains(out[i:], "recorded through core/v1") || !strings.Contains(out[i:], "checked through events.k8s.io/v1") {
		t.Errorf("kubectl describe database orders has no Events section listing both Events")
	}
	out = srv.mustKubectl(t, "events", "--for", "database/orders")
	if !strings.Contains(out, "recorded through core/v1") || !strings.Contains(out, "checked through events.k8s.io/v1") {
		t.Errorf("kubectl events --for database/orders misses an Event")
	}

	// kube's validation by request version: strict through events.k8s.io/v1 only.
	bad := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "old-style"}, Regarding: corev1.ObjectReference{Kind: "Database", Name: "orders", Namespace: "default"},
		Note: "no eventTime", Type: "Sideways"}
	_, err = kube.EventsV1().Events("default").Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "eventTime: Required value") || !strings.Contains(err.Error(), "has invalid value: Sideways") {
		t.Errorf("events.k8s.io/v1 create without eventTime, type Sideways: %v; want 422 eventTime Required, type invalid", err)
	}
	old := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "old-style"}, InvolvedObject: corev1.ObjectReference{Kind: "Database", Name: "orders", Namespace: "default"},
		Message: "no eventTime", Type: "Sideways"}
	if _, err := kube.CoreV1().Events("default").Create(ctx, old, metav1.CreateOptions{}); err != nil {
		t.Errorf("core/v1 create of an old client's Event: %v", err)
	}
	// A PUT creates a missing Event, as kube's event strategy allows.
	put := old.DeepCopy()
	put.Name = "put"
	if _, err := kube.CoreV1().Events("default").Update(ctx, put, metav1.UpdateOptions{}); err != nil {
		t.Errorf("core/v1 PUT of a missing Event: %v; want it created", err)
	}
	old.Name, old.InvolvedObject.Namespace = "elsewhere", "other"
	if _, err := kube.CoreV1().Events("default").Create(ctx, old, metav1.CreateOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), "involvedObject.namespace: Invalid value: \"other\": does not match event.namespace") {
		t.Errorf("core/v1 create of an Event about another namespace's object: %v; want 422 does not match event.namespace", err)
	}
}

// TestEventTTL checks --event-ttl: an Event written through either API is gone from both
// once its TTL has passed (etcd's lease expires), while a Database stays.
func TestEventTTL(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--event-ttl=2s")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kube := kubernetes.NewForConfigOrDie(unthrottledConfig(srv.config))
	ref := corev1.ObjectReference{Kind: "Database", Name: "orders", Namespace: "default"}
	if _, err := kube.CoreV1().Events("default").Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "short"},
		InvolvedObject: ref, Reason: "Brief", Message: "gone in 2s"}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.EventsV1().Events("default").Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "short-too"},
		EventTime: metav1.NowMicro(), Regarding: ref, Reason: "Brief", Action: "Wait", Type: corev1.EventTypeNormal,
		ReportingController: "example.com/e2e", ReportingInstance: "e2e-1"}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitUntil(t, 20*time.Second, "the Events to expire", func() bool {
		core, err := kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		modern, err := kube.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(core.Items) == 0 && len(modern.Items) == 0
	})
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("the Events were gone after %v, before their 2s TTL", waited)
	}
}
