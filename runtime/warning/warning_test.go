package warning

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestRecorder(t *testing.T) {
	h := http.Header{}
	ctx := WithRecorder(context.Background(), NewRecorder(h))
	AddWarning(ctx, "first")
	AddWarning(ctx, "first")
	AddWarning(ctx, "")
	AddWarning(ctx, `say "hi"`)
	got := h.Values("Warning")
	if len(got) != 2 || got[0] != `299 - "first"` || got[1] != `299 - "say \"hi\""` {
		t.Errorf("headers = %q", got)
	}
	AddWarning(context.Background(), "no recorder") // must not panic

	// Past 4096 runes every warning is cut to 256.
	h = http.Header{}
	r := NewRecorder(h)
	for i := range 20 {
		r.Add(strings.Repeat(string(rune('a'+i)), 300))
	}
	got = h.Values("Warning")
	if len(got) == 0 || len(got) > 20 {
		t.Fatalf("%d headers", len(got))
	}
	for _, v := range got {
		if len(v) != len(`299 - ""`)+256 {
			t.Errorf("a warning was not truncated to 256 runes: %d bytes", len(v))
		}
	}
}
