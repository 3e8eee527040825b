package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/openapi"
)

// clientTools are code-generator's client tools, timed against apigen's client generators
// (which run in every apigen generate).
var clientTools = []string{"client-gen", "lister-gen", "informer-gen", "applyconfiguration-gen"}

// clientTrees are the trees with +genclient kinds the client tools run on.
var clientTrees = []string{"codegen", "clients"}

// clientToolRuns returns the four client tools' invocations on the tree called name (its
// version packages with clients, loaded from src), writing below tmp as sample-apiserver's
// hack/update-codegen.sh lays them out; applyconfiguration-gen gets the tree's OpenAPI
// definitions (generators/openapi), as apigen's apply configurations are built from them.
func clientToolRuns(src, tmp, header, name string) ([]toolRun, error) {
	pattern := "./" + corpusDir + "/" + name + "/..."
	api, err := load.Load(src, pattern)
	var diags model.Diagnostics
	if err != nil && (!errors.As(err, &diags) || diags.HasErrors()) {
		return nil, fmt.Errorf("cannot load %s: %w", pattern, err)
	}
	trees := clientlayout.Trees(api)
	if len(trees) != 1 {
		return nil, fmt.Errorf("%s has %d trees of clients, want 1", pattern, len(trees))
	}
	t := trees[0]
	var pkgs []string
	var roots []*model.Type
	for _, gv := range t.GroupVersions {
		pkgs = append(pkgs, gv.Version.Package.Path)
		for _, k := range gv.Kinds {
			roots = append(roots, k.Type)
		}
	}
	schema, err := swaggerFile(tmp, name, roots)
	if err != nil {
		return nil, err
	}
	out, outPkg := filepath.Join(tmp, "clients-"+name), "example.com/benchgen/"+name
	run := func(tool string, args ...string) toolRun {
		return toolRun{label: tool + " " + CodeGeneratorVersion, tree: name, bin: tool, client: true,
			args: append(args, "--go-header-file", header)}
	}
	return []toolRun{
		run("applyconfiguration-gen", append([]string{"--output-dir", filepath.Join(out, "applyconfiguration"),
			"--output-pkg", outPkg + "/applyconfiguration", "--openapi-schema", schema}, pkgs...)...),
		run("client-gen", "--output-dir", filepath.Join(out, "clientset"), "--output-pkg", outPkg+"/clientset",
			"--clientset-name", "versioned", "--apply-configuration-package", outPkg+"/applyconfiguration",
			"--input-base", "", "--input", strings.Join(pkgs, ",")),
		run("lister-gen", append([]string{"--output-dir", filepath.Join(out, "listers"), "--output-pkg", outPkg + "/listers"}, pkgs...)...),
		run("informer-gen", append([]string{"--output-dir", filepath.Join(out, "informers"), "--output-pkg", outPkg + "/informers",
			"--versioned-clientset-package", outPkg + "/clientset/versioned", "--listers-package", outPkg + "/listers"}, pkgs...)...),
	}, nil
}

// swaggerFile writes an OpenAPI v2 document with the definitions of roots and returns its path.
func swaggerFile(dir, name string, roots []*model.Type) (string, error) {
	defs, err := openapi.Definitions(roots)
	if err != nil {
		return "", err
	}
	doc := spec.Swagger{SwaggerProps: spec.SwaggerProps{Swagger: "2.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: name, Version: "v0"}},
		Paths: &spec.Paths{Paths: map[string]spec.PathItem{}}, Definitions: defs}}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "openapi-"+name+".json")
	return path, os.WriteFile(path, b, 0o644)
}
