package templates

import "embed"

// FS holds every template, named by the file it renders plus ".tmpl":
//
//   - init/: the files of a new repository (go.mod, Makefile, README.md, gitignore,
//     ci.yaml, apis_doc.go, main.go, main_test.go), rendered with scaffold's repo data;
//   - api/: one kind and its package (version_doc.go, hub_doc.go, types.go, sample.yaml)
//     and the server wiring (groups.go), rendered with scaffold's kind and wiring data.
//
//go:embed init api
var FS embed.FS
