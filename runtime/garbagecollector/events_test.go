package garbagecollector

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestLogEvents: the default EventRecorder writes a Warning event at warn level with its
// reason, message and object.
func TestLogEvents(t *testing.T) {
	var out bytes.Buffer
	rec := LogEvents(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	rec.Eventf(&corev1.ObjectReference{APIVersion: "paint.example.com/v1", Kind: "Color", Name: "red", UID: "u1"},
		corev1.EventTypeWarning, ReasonOwnerRefInvalidNamespace, "ownerRef %s does not exist in namespace %q", "[x]", "")
	rec.Eventf(&corev1.ObjectReference{Kind: "Color", Name: "blue"}, corev1.EventTypeNormal, "Other", "not logged at warn level")
	got := out.String()
	for _, want := range []string{"level=WARN", "msg=event", "type=Warning", "reason=OwnerRefInvalidNamespace",
		`message="ownerRef [x] does not exist in namespace \"\""`, `object="paint.example.com/v1/Color /red"`, "uid=u1"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "blue") {
		t.Errorf("a Normal event was logged at warn level:\n%s", got)
	}
}
