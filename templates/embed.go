package templates

import "embed"

// FS holds every template, named by the file it renders plus ".tmpl":
//
//   - init/: the files of a new repository (go.mod, Makefile, README.md, gitignore,
//     ci.yaml, apis_doc.go, main.go, main_test.go), rendered with scaffold's repo data, and
//     in init/deploy its deploy manifests (config/deploy: Dockerfile, kustomization.yaml and
//     the resources it lists), rendered with scaffold's deploy data;
//   - api/: one kind and its package (version_doc.go, hub_doc.go, types.go, sample.yaml,
//     and storage_interface.go, the install package's new<Kind>Storage of a kind marked
//     +apigen:storage=interface) and the server wiring (groups.go) and APIServices
//     (apis.yaml), rendered with scaffold's kind, wiring and deploy data.
//
//go:embed init api
var FS embed.FS
