package bench

import (
	"encoding/json"
	"testing"
)

func TestObjectTemplateSizeAndShape(t *testing.T) {
	for _, size := range []int{256, 1000, 1024, 4096} {
		tmpl, err := NewObjectTemplate(size)
		if err != nil {
			t.Fatal(err)
		}
		body := tmpl.Render(nil, "bench-object-0000042", "", 7)
		if d := len(body) - size; d < -2 || d > 2 {
			t.Errorf("size %d: rendered %d bytes, want within 2 bytes", size, len(body))
		}
		var obj struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name            string `json:"name"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
			Spec struct {
				Engine     string            `json:"engine"`
				Parameters map[string]string `json:"parameters"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(body, &obj); err != nil {
			t.Fatalf("size %d: rendered invalid JSON: %v\n%s", size, err, body)
		}
		if obj.APIVersion != "db.example.com/v1" || obj.Kind != "Database" || obj.Metadata.Name != "bench-object-0000042" ||
			obj.Metadata.ResourceVersion != "" || obj.Spec.Engine != "postgres" || obj.Spec.Parameters["seq"] != "7" {
			t.Errorf("size %d: rendered %s", size, body)
		}
	}
	if _, err := NewObjectTemplate(100); err == nil {
		t.Error("NewObjectTemplate(100) succeeded, want an error below 256 bytes")
	}
}

func TestObjectTemplateResourceVersion(t *testing.T) {
	tmpl, err := NewObjectTemplate(1024)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeMeta(tmpl.Render(nil, "a", "12345", 1))
	if err != nil {
		t.Fatal(err)
	}
	if m.Metadata.ResourceVersion != "12345" {
		t.Errorf("resourceVersion = %q, want 12345", m.Metadata.ResourceVersion)
	}
}

func TestDecodeListMetaSkipsItems(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"kind":"DatabaseList","apiVersion":"db.example.com/v1","metadata":{"resourceVersion":"9","continue":"abc"},"items":[{"x":1}]}`, "abc"},
		{`{"items":[{"metadata":{"continue":"inner"}}],"metadata":{"continue":"outer"}}`, "outer"},
		{`{"metadata":{"resourceVersion":"9"},"items":[]}`, ""},
	} {
		m, err := decodeListMeta([]byte(tc.body))
		if err != nil {
			t.Errorf("decodeListMeta(%s): %v", tc.body, err)
			continue
		}
		if m.Metadata.Continue != tc.want {
			t.Errorf("decodeListMeta(%s) continue = %q, want %q", tc.body, m.Metadata.Continue, tc.want)
		}
	}
	for _, bad := range []string{`[]`, `{"items":[]}`, `{"metadata":`} {
		if _, err := decodeListMeta([]byte(bad)); err == nil {
			t.Errorf("decodeListMeta(%s) succeeded, want an error", bad)
		}
	}
}
