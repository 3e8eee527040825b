package markers_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/gengo/v2/codetags"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/markerset"
)

// codetagTrees are the sources whose +k8s: codetags the differential test reads: the
// compatibility corpus, the loader's and generators' fixtures, the example API and the
// runtime's own APIs.
var codetagTrees = []string{"../testdata", "../validation/testdata", "../openapi/testdata", "../../example-api/apis", "../../runtime/apis"}

// TestCodetagsAgreeWithHandParser reads every function-style +k8s: tag (IsCodetag) of the
// trees above and checks that gengo's codetags and apigen's own marker lookup read the same
// tag name, positional argument and value (a nested tag recursively), so that backing the
// hand-written parser with codetags changes nothing for the tags users write.
func TestCodetagsAgreeWithHandParser(t *testing.T) {
	var tags []string
	for _, root := range codetagTrees {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(path) != ".go" || strings.HasSuffix(path, "_test.go") {
				return err // apigen reads no markers in tests
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				text, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "//")
				if !ok || !markers.IsMarker(text) {
					continue
				}
				if body := strings.TrimSpace(text)[1:]; markers.IsCodetag(body) {
					tags = append(tags, body)
				}
			}
			return sc.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(tags) < 10 {
		t.Fatalf("found %d codetags, want the corpus's (at least 10): %q", len(tags), tags)
	}
	for _, body := range tags {
		tag, err := codetags.Parse(body)
		if err != nil {
			t.Errorf("codetags cannot parse +%s: %v", body, err)
			continue
		}
		if msg := compareTag(body, tag); msg != "" {
			t.Errorf("+%s: %s", body, msg)
		}
	}
	t.Logf("%d codetags compared", len(tags))
}

// compareTag compares the hand parser's reading of body with tag; "" means they agree.
func compareTag(body string, tag codetags.Tag) string {
	name, rest, known := markerset.Registry().LookupBody(body)
	if !known {
		return "unknown to apigen"
	}
	if name != tag.Name {
		return "apigen reads name " + name + ", codetags " + tag.Name
	}
	if arg, ok := tag.PositionalArg(); ok {
		open, close := strings.Index(body, "("), strings.Index(body, ")")
		if got, _ := markers.Unquote(body[open+1 : close]); got != arg.Value {
			return "apigen reads argument " + got + ", codetags " + arg.Value
		}
	}
	switch tag.ValueType {
	case codetags.ValueTypeTag:
		if !strings.HasPrefix(rest, "+") {
			return "apigen reads value " + rest + ", codetags a nested tag"
		}
		return compareTag(rest[1:], *tag.ValueTag)
	case codetags.ValueTypeNone:
		if rest != "" {
			return "apigen reads value " + rest + ", codetags none"
		}
	default:
		if got, _ := markers.Unquote(rest); got != tag.Value {
			return "apigen reads value " + got + ", codetags " + tag.Value
		}
	}
	return ""
}
