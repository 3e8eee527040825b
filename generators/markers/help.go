package markers

import (
	"fmt"
	"io"
	"strings"
)

// Usage returns how a definition is written: "+" name and Args, "+<family>..." for a Family
// ("+kubebuilder:validation:Minimum=<number>", "+kubebuilder:rbac...").
func (d Definition) Usage() string {
	if d.Family {
		return "+" + d.Name + "..."
	}
	return "+" + d.Name + d.Args
}

// Warning returns what apigen says about each use of an Unhonored marker ("" when it honours
// the marker): "does nothing in apigen: <reason>".
func (d Definition) Warning() string {
	if d.Unhonored == "" {
		return ""
	}
	return "does nothing in apigen: " + d.Unhonored
}

// WriteHelp writes the help of every definition whose name contains filter ("" for all),
// sorted by name, as `apigen markers` prints it: the usage, then where it goes and its owner
// in brackets, then the help indented on the next line, an unhonoured marker's warning after
// its help.
func (r *Registry) WriteHelp(w io.Writer, filter string) error {
	for _, d := range r.Definitions() {
		if !strings.Contains(d.Name, filter) {
			continue
		}
		help := d.Help
		if warn := d.Warning(); warn != "" {
			help += " Warning: " + warn + "."
		}
		if _, err := fmt.Fprintf(w, "%s  [%s; %s]\n    %s\n", d.Usage(), d.Level, d.Owner, help); err != nil {
			return err
		}
	}
	return nil
}

// Markdown returns every definition as a GitHub Markdown table (marker, where it goes,
// owner, help), sorted by name: the README's generated list of markers.
func (r *Registry) Markdown() string {
	var b strings.Builder
	b.WriteString("| marker | on | owner | what it does |\n| --- | --- | --- | --- |\n")
	for _, d := range r.Definitions() {
		help := d.Help
		if warn := d.Warning(); warn != "" {
			help += " Warning: " + warn + "."
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", markdownCode(d.Usage()), d.Level, d.Owner, markdownText(help))
	}
	return b.String()
}

// markdownCode writes s as a code span of a table cell: pipes escaped, and double backticks
// around text that holds a backtick.
func markdownCode(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// markdownText escapes the characters of s that a table cell would read as Markdown or HTML.
func markdownText(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`).Replace(s)
}
