package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/compat"
	"github.com/apigen-dev/apigen/generators/compat/compatmarkers"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/output"
)

// againstOptions are verify's flags of the compatibility check against a git ref.
type againstOptions struct {
	// against is the git ref to compare with ("" for no check); allow the breaking changes
	// accepted everywhere, by name.
	against string
	allow   []string
	// output is "text" or "json"; annotations "", "github", "gitlab" or "none" ("" means
	// github under GitHub Actions, none elsewhere), annotationsFile the GitLab report's path.
	output          string
	annotations     string
	annotationsFile string
	// base is the API at the ref, loading (verify sets it).
	base baseline
}

// addFlags registers o's flags on cmd.
func (o *againstOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.against, "against", "", "also compare the API with the one at this git ref (origin/main, a tag, HEAD~1) and exit 1 on a breaking change")
	f.StringSliceVar(&o.allow, "allow", nil, "with --against, accept these breaking changes everywhere, by name (field-removed,...; see apigen verify --help)")
	f.StringVarP(&o.output, "output", "o", "text", "with --against, print the result as text or json")
	f.StringVar(&o.annotations, "annotations", "", "with --against, also write CI annotations: github (workflow commands on stdout; the default under GitHub Actions), gitlab (a code quality report, --annotations-file) or none")
	f.StringVar(&o.annotationsFile, "annotations-file", "gl-code-quality-report.json", "the GitLab code quality report --annotations gitlab writes")
}

// validate reports a usage error in o's flags.
func (o *againstOptions) validate(cmd *cobra.Command) error {
	if o.against == "" {
		for _, name := range []string{"allow", "output", "annotations"} {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("--%s needs --against <git ref>", name)
			}
		}
		return nil
	}
	if o.output != "text" && o.output != "json" {
		return fmt.Errorf("--output must be text or json, not %q", o.output)
	}
	switch o.annotations {
	case "", "github", "gitlab", "none":
	default:
		return fmt.Errorf("--annotations must be github, gitlab or none, not %q", o.annotations)
	}
	for _, name := range o.allow {
		if err := compatmarkers.CheckName(name); err != nil {
			return fmt.Errorf("--allow: %w", err)
		}
	}
	return nil
}

// annotationFormat is the annotations to write: the flag, else github under GitHub Actions.
func (o *againstOptions) annotationFormat() string {
	if o.annotations == "" && os.Getenv("GITHUB_ACTIONS") == "true" {
		return "github"
	}
	return o.annotations
}

// baseline waits for the API at the ref, loading beside the generators' pass.
type baseline func() (*compat.Baseline, error)

// loadBaseline starts loading the API of patterns at o.against (compat.LoadBaseline) and
// returns the function that waits for it; the caller closes what it returns.
func (o *againstOptions) loadBaseline(patterns []string) baseline {
	var b *compat.Baseline
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		b, err = compat.LoadBaseline("", o.against, patterns)
	}()
	return func() (*compat.Baseline, error) {
		<-done
		return b, err
	}
}

// check runs the compatibility check of now (the API as loaded from the working tree)
// against o.base, which loadBaseline started, and prints it; stale are verify's out-of-date files, which the JSON
// output lists too. It returns whether the check fails (any breaking change not allowed, or
// the API at the ref not loading).
func (o *againstOptions) check(now *model.API, stale []output.FileDiff, stdout, stderr io.Writer) bool {
	b, err := o.base()
	if err != nil {
		fmt.Fprintf(stderr, "apigen verify --against %s: %v\n", o.against, err)
		return true
	}
	res := b.Check(now, o.allow)
	failed := res.Failed()
	fromTop := func(file string) string {
		abs, err := filepath.Abs(file)
		if err != nil {
			return file
		}
		top := res.Top
		if real, err := filepath.EvalSymlinks(top); err == nil {
			top = real
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if rel, err := filepath.Rel(top, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
		return file
	}
	switch o.annotationFormat() {
	case "github":
		if err := res.GitHub(stdout, fromTop); err != nil {
			fmt.Fprintf(stderr, "apigen: %v\n", err)
			return true
		}
	case "gitlab":
		report, err := res.GitLab(fromTop)
		if err == nil {
			err = os.WriteFile(o.annotationsFile, append(report, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "apigen: cannot write the code quality report: %v\n", err)
			return true
		}
	}
	if o.output == "json" {
		type staleFile struct {
			File   string `json:"file"`
			Status string `json:"status"`
		}
		doc := struct {
			Against string          `json:"against"`
			Stale   []staleFile     `json:"stale"`
			Changes []compat.Record `json:"changes"`
			Summary string          `json:"summary"`
			Failed  int             `json:"failed"`
		}{Against: o.against, Stale: []staleFile{}, Changes: res.Records(relPath), Summary: res.Summary(), Failed: failed}
		for _, d := range stale {
			doc.Stale = append(doc.Stale, staleFile{relPath(d.Path), string(d.Status)})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			fmt.Fprintf(stderr, "apigen: %v\n", err)
			return true
		}
	} else {
		for _, c := range res.Changes {
			c.Pos.File = relPath(c.Pos.File)
			fmt.Fprintln(stdout, c.String())
		}
		fmt.Fprintf(stdout, "apigen verify --against %s: %s\n", o.against, res.Summary())
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "apigen verify --against %s: %d breaking change(s) not allowed: make such a change in a new API version, or accept each by name with +apigen:allow-breaking=<name> next to it or --allow <name>\n",
			o.against, failed)
		return true
	}
	return false
}
