package markerset_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/markerset"
)

// readmePath is the repository's README, whose "## Markers" section ends with the list of
// markers generated from the registrations.
const readmePath = "../../README.md"

const (
	beginMarker = "<!-- markers:begin -->\n"
	endMarker   = "<!-- markers:end -->"
)

// TestREADMEMarkers fails when the README's generated list of markers (between
// <!-- markers:begin --> and <!-- markers:end -->) is not what the registrations give
// (rewrite it with -update, as golden.CheckCommitted does), or when the README names a
// marker (`+name...` in backticks) that no generator registers.
func TestREADMEMarkers(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	begin, end := strings.Index(readme, beginMarker), strings.Index(readme, endMarker)
	if begin < 0 || end < begin {
		t.Fatalf("%s has no %q ... %q block", readmePath, strings.TrimSpace(beginMarker), endMarker)
	}
	want := readme[:begin+len(beginMarker)] + markerset.Registry().Markdown() + readme[end:]
	abs, err := filepath.Abs(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckCommitted(t, map[string][]byte{abs: []byte(want)}, "go test ./generators/markerset -run TestREADMEMarkers -update")
	readme = want
	end = strings.Index(readme, endMarker)
	prose := readme[:begin] + readme[end:]
	for _, body := range documentedMarkers(prose) {
		if strings.HasSuffix(body, ":") && namespaceRegistered(body) {
			continue // a namespace, as in "the function-style `+k8s:` tags"
		}
		if _, ok := markerset.Registry().Find(body); !ok {
			t.Errorf("%s documents +%s, which no generator registers (generators/*/*markers)", readmePath, body)
		}
	}
}

// namespaceRegistered reports whether some registered marker's name starts with ns.
func namespaceRegistered(ns string) bool {
	for _, d := range markerset.Registry().Definitions() {
		if strings.HasPrefix(d.Name, ns) {
			return true
		}
	}
	return false
}

// markerSpan matches a marker in a Markdown code span: `+kubebuilder:default:=Allow`.
var markerSpan = regexp.MustCompile("`\\+([A-Za-z][^`]*)`")

// documentedMarkers returns the text after "+" of every marker the Markdown names in a code
// span.
func documentedMarkers(markdown string) []string {
	var out []string
	for _, m := range markerSpan.FindAllStringSubmatch(markdown, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDocumentedMarkersFound checks the README scan itself: a made-up marker is reported.
func TestDocumentedMarkersFound(t *testing.T) {
	t.Parallel()
	got := documentedMarkers("use `+kubebuilder:validation:Minimum=0` or `+made:up`, not `x+y`")
	if len(got) != 2 || got[1] != "made:up" {
		t.Fatalf("documentedMarkers = %q", got)
	}
	if _, ok := markerset.Registry().Find(got[1]); ok {
		t.Errorf("+made:up is registered")
	}
}

// TestRegistrations checks every registration's help and the owner rule: markers several
// generators read are registered by the one that does what they are named for.
func TestRegistrations(t *testing.T) {
	t.Parallel()
	defs := markerset.Registry().Definitions()
	if len(defs) < 150 {
		t.Fatalf("%d markers registered, want every one apigen read before registration (162)", len(defs))
	}
	owners := map[string]string{
		"kubebuilder:validation:": "validation",
		"k8s:validation:":         "validation",
		"genclient":               "clientset",
		"kubebuilder:subresource": "crd",
		"kubebuilder:default":     "defaulting",
		"kubebuilder:object:":     "deepcopy",
		"k8s:deepcopy-gen":        "deepcopy",
		"k8s:conversion-":         "conversion",
		"listType":                "openapi",
	}
	for _, d := range defs {
		if !strings.HasSuffix(d.Help, ".") || strings.Contains(d.Help, "\n") {
			t.Errorf("+%s (%s): the help must be one line of sentences ending in a full stop: %q", d.Name, d.Owner, d.Help)
		}
		if d.Unhonored != "" && !strings.Contains(d.Help, "warning") {
			t.Errorf("+%s (%s) is accepted with a warning, which its help must say: %q", d.Name, d.Owner, d.Help)
		}
		for prefix, owner := range owners {
			if strings.HasPrefix(d.Name, prefix) && d.Owner != owner {
				t.Errorf("+%s is registered by %s; markers %s* belong to %s", d.Name, d.Owner, prefix, owner)
			}
		}
		if d.Apply != nil && d.Unhonored != "" {
			t.Errorf("+%s (%s) is unhonoured yet has a grammar, which Parse never calls", d.Name, d.Owner)
		}
	}
	for _, name := range []string{"kubebuilder:validation:Minimum", "k8s:minimum", "k8s:validation:minimum", "kubebuilder:validation:items:Minimum"} {
		d, ok := markerset.Registry().Find(name + "=0")
		if !ok || d.Name != name || d.Level != markers.FieldLevel|markers.TypeLevel {
			t.Errorf("Find(%s=0) = %+v, %v", name, d, ok)
		}
	}
}
