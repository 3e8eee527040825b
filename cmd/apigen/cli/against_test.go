package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const againstDoc = `// Package v1 is the first version of shop.example.com.
//
// +groupName=shop.example.com
package v1
`

const againstBefore = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is a widget.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              WidgetSpec ` + "`json:\"spec\"`" + `
}

// WidgetSpec is the desired state.
type WidgetSpec struct {
	Old string ` + "`json:\"old,omitempty\"`" + `
	// +kubebuilder:validation:Maximum=10
	Size int32 ` + "`json:\"size,omitempty\"`" + `
}

// WidgetList is a list of widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items           []Widget ` + "`json:\"items\"`" + `
}
`

// TestVerifyAgainst runs apigen verify --against HEAD in a scratch git repository whose
// working tree removes a field (breaking), lowers a maximum with +apigen:allow-breaking next
// to it (allowed) and adds an optional field (additive): exit 1 with the removed field at its
// line at the ref, GitHub annotations, then exit 0 with --allow field-removed, the JSON
// document and a GitLab report; and the usage errors of the flags. The generators are
// replaced by none: the generated files' check is verify's own, tested elsewhere.
func TestVerifyAgainst(t *testing.T) {
	start := time.Now()
	t.Setenv("GITHUB_ACTIONS", "")
	useGenerators(t)
	dir := writeModule(t, map[string]string{"apis/shop/v1/doc.go": againstDoc, "apis/shop/v1/types.go": againstBefore})
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=apigen test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	after := strings.Replace(againstBefore, "\tOld string `json:\"old,omitempty\"`\n", "\t// New is optional.\n\tNew string `json:\"new,omitempty\"`\n", 1)
	after = strings.Replace(after, "Maximum=10\n", "Maximum=5\n\t// +apigen:allow-breaking=maximum-lowered\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "apis/shop/v1/types.go"), []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
	const file = "apis/shop/v1/types.go"
	removed := file + ":15:2 (at the ref): breaking: field .spec.old is removed"
	allowed := file + ":19:2: breaking (allowed by +apigen:allow-breaking=maximum-lowered): maximum of .spec.size changes from 10 to 5"
	added := file + ":16:2: additive: new optional field .spec.new"

	code, stdout, stderr := run(t, "verify", "--against", "HEAD", "--annotations", "github", "./...")
	if code != exitFailure {
		t.Errorf("verify --against HEAD: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{removed, allowed, added, "2 breaking (1 allowed), 0 needs migration, 1 additive",
		"::error file=" + file + ",line=15,title=apigen%3A breaking field-removed::field .spec.old is removed",
		"::warning file=" + file + ",line=19,", "::notice file=" + file + ",line=16,"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("verify --against HEAD: stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "1 breaking change(s) not allowed") || !strings.Contains(stderr, "+apigen:allow-breaking=<name>") {
		t.Errorf("verify --against HEAD: stderr:\n%s", stderr)
	}

	code, stdout, stderr = run(t, "verify", "--against", "HEAD", "--allow", "field-removed", "--output", "json", "--annotations", "gitlab", "--annotations-file", "cq.json", "./...")
	if code != exitOK {
		t.Errorf("verify --against HEAD --allow field-removed: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	var doc struct {
		Against string `json:"against"`
		Failed  int    `json:"failed"`
		Changes []struct {
			Name, Severity, File, Reason, AllowedBy string
			Line                                    int
			AtRef, Allowed, Fails                   bool
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("--output json: %v\n%s", err, stdout)
	}
	if doc.Against != "HEAD" || doc.Failed != 0 || len(doc.Changes) != 3 {
		t.Fatalf("--output json: %+v", doc)
	}
	c := doc.Changes[0]
	if c.Name != "field-removed" || c.Severity != "breaking" || c.File != file || c.Line != 15 || !c.AtRef || !c.Allowed || c.AllowedBy != "--allow=field-removed" || c.Fails {
		t.Errorf("--output json: first change %+v", c)
	}
	report, err := os.ReadFile(filepath.Join(dir, "cq.json"))
	if err != nil {
		t.Fatal(err)
	}
	var issues []struct {
		CheckName string `json:"check_name"`
		Severity  string `json:"severity"`
		Location  struct {
			Path  string              `json:"path"`
			Lines struct{ Begin int } `json:"lines"`
		} `json:"location"`
	}
	if err := json.Unmarshal(report, &issues); err != nil || len(issues) != 2 || issues[0].CheckName != "apigen-field-removed" ||
		issues[0].Location.Path != file || issues[0].Location.Lines.Begin != 15 || issues[0].Severity != "info" {
		t.Errorf("GitLab report (%v):\n%s", err, report)
	}

	for _, args := range [][]string{
		{"verify", "--against", "HEAD", "--allow", "field-gone", "./..."},
		{"verify", "--output", "json", "./..."},
		{"verify", "--against", "HEAD", "--annotations", "jenkins", "./..."},
	} {
		if code, _, stderr := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr)
		}
	}
	if code, _, stderr := run(t, "verify", "--against", "no-such-ref", "./..."); code != exitFailure || !strings.Contains(stderr, `git cannot resolve "no-such-ref"`) {
		t.Errorf("verify --against no-such-ref: exit %d\n%s", code, stderr)
	}
	t.Logf("took %v", time.Since(start))
}
