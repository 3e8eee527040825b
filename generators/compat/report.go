package compat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Record is one change as `apigen verify --against --output json` writes it.
type Record struct {
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	// File is relative to the working directory (or absolute outside it), Line 1-based;
	// AtRef marks the declaration of something removed, as it was at the ref.
	File    string `json:"file"`
	Line    int    `json:"line"`
	AtRef   bool   `json:"atRef,omitempty"`
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind,omitempty"`
	Path    string `json:"path,omitempty"`
	Reason  string `json:"reason"`
	// Allowed is set on a breaking change accepted by AllowedBy (the marker or the flag).
	Allowed   bool   `json:"allowed,omitempty"`
	AllowedBy string `json:"allowedBy,omitempty"`
	// Fails is set on a breaking change that is not allowed: the check exits 1.
	Fails bool `json:"fails,omitempty"`
}

// Records returns the changes as records, files named by file (the CLI makes them relative
// to the working directory).
func (r *Result) Records(file func(string) string) []Record {
	out := make([]Record, 0, len(r.Changes))
	for _, c := range r.Changes {
		out = append(out, Record{Name: c.Name, Severity: c.Severity, File: file(c.Pos.File), Line: c.Pos.Line, AtRef: c.AtRef,
			Group: c.Group, Version: c.Version, Kind: c.Kind, Path: c.Path, Reason: c.Reason,
			Allowed: c.Allowed, AllowedBy: c.AllowedBy, Fails: c.Fails()})
	}
	return out
}

// Summary is one line counting the changes: "3 breaking (1 allowed), 1 needs migration, 2 additive".
func (r *Result) Summary() string {
	var breaking, allowed, migrate, additive int
	for _, c := range r.Changes {
		switch c.Severity {
		case Breaking:
			breaking++
			if c.Allowed {
				allowed++
			}
		case NeedsMigration:
			migrate++
		default:
			additive++
		}
	}
	return fmt.Sprintf("%d breaking (%d allowed), %d needs migration, %d additive", breaking, allowed, migrate, additive)
}

// GitHub writes GitHub Actions workflow commands annotating each change at its file and
// line (paths relative to the repository top, as file gives them): ::error for a failing
// change, ::warning for an allowed one and a needed migration, ::notice for an additive one.
func (r *Result) GitHub(w io.Writer, file func(string) string) error {
	for _, c := range r.Changes {
		level := "notice"
		switch {
		case c.Fails():
			level = "error"
		case c.Severity != Additive:
			level = "warning"
		}
		title := fmt.Sprintf("apigen: %s %s", c.Severity, c.Name)
		msg := c.Reason + " (" + c.Where() + ")"
		if c.Allowed {
			msg += "; allowed by " + c.AllowedBy
		}
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n", level,
			ghProperty(file(c.Pos.File)), c.Pos.Line, ghProperty(title), ghData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message, as @actions/core's escapeData.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property, as @actions/core's escapeProperty.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// gitlabIssue is one entry of a GitLab code quality report (the Code Climate subset GitLab
// reads: description, check_name, fingerprint, severity, location.path, location.lines.begin).
type gitlabIssue struct {
	Description string `json:"description"`
	CheckName   string `json:"check_name"`
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Location    struct {
		Path  string `json:"path"`
		Lines struct {
			Begin int `json:"begin"`
		} `json:"lines"`
	} `json:"location"`
}

// GitLab returns a GitLab code quality report (artifacts:reports:codequality) of the changes
// that are not additive, paths relative to the repository top as file gives them: a failing
// change is "major", an allowed one or a needed migration "info".
func (r *Result) GitLab(file func(string) string) ([]byte, error) {
	issues := []gitlabIssue{}
	for _, c := range r.Changes {
		if c.Severity == Additive {
			continue
		}
		var is gitlabIssue
		is.Description = fmt.Sprintf("%s: %s (%s)", c.Severity, c.Reason, c.Where())
		if c.Allowed {
			is.Description += "; allowed by " + c.AllowedBy
		}
		is.CheckName = "apigen-" + c.Name
		is.Severity = "info"
		if c.Fails() {
			is.Severity = "major"
		}
		is.Location.Path = file(c.Pos.File)
		is.Location.Lines.Begin = c.Pos.Line
		sum := sha256.Sum256([]byte(c.Name + "\x00" + c.Where() + "\x00" + c.Reason))
		is.Fingerprint = hex.EncodeToString(sum[:16])
		issues = append(issues, is)
	}
	return json.MarshalIndent(issues, "", "  ")
}
