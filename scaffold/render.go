package scaffold

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
	"text/template"

	"github.com/apigen-dev/apigen/templates"
)

// parsed holds every template of templates.FS, named by its file name ("types.go.tmpl").
var parsed = template.Must(template.New("").ParseFS(templates.FS, "init/*.tmpl", "init/deploy/*.tmpl", "api/*.tmpl"))

// render executes the template named name (its file name, e.g. "types.go.tmpl") with data.
// Go output is passed through go/format so it is gofmt-clean; a template that renders invalid
// Go is an error naming the template.
func render(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := parsed.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	if strings.HasSuffix(name, ".go.tmpl") {
		src, err := format.Source(buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("template %s renders invalid Go: %w", name, err)
		}
		return src, nil
	}
	return buf.Bytes(), nil
}
