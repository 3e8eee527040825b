package crd

import "strings"

// description turns a doc comment of the model (marker lines dropped, trimmed) into a schema
// description as controller-gen writes it (its markers.extractDoc): lines kept as they are
// and joined with newlines, runs of blank lines collapsed into one (as go/ast's
// CommentGroup.Text, which the model's doc does not do), lines starting with TODO dropped and
// everything from a line starting with --- on dropped, except inside a fenced code block
// (``` or ~~~).
func description(doc string) string {
	if doc == "" {
		return ""
	}
	var out []string
	inCode, blank := false, false
	for _, line := range strings.Split(doc, "\n") {
		if line == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inCode = !inCode
		}
		if !inCode {
			if strings.HasPrefix(line, "TODO") {
				continue
			}
			if strings.HasPrefix(line, "---") {
				break
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
