package generators

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sync"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/output"
)

// Pass is one load-and-generate pass: what `apigen generate` writes and `apigen verify`
// compares, and what make bench-gen measures.
type Pass struct {
	// API is the model the load built; nil when the packages did not load (see Run).
	API *model.API
	// Files is every generated file, absolute path -> content; Origin names the generator
	// of each.
	Files  map[string][]byte
	Origin map[string]string
	// Diagnostics are the load's and the generators' problems, sorted; when any is an error
	// (Diagnostics.HasErrors), Files must not be written.
	Diagnostics model.Diagnostics
}

// Run loads the packages matching patterns (go list patterns resolved in dir, "" for the
// working directory, see load.Load) once and runs gens on the model concurrently (a
// generator only reads it), merging their files in gens' order. The generators run also when
// the load reported marker errors, so that every error of a run is reported at once; a
// generator's failure and two generators writing one path become diagnostics. Errors: go
// list failing to run at all; every problem of the sources is a diagnostic instead.
func Run(dir string, patterns []string, gens []emit.Generator) (*Pass, error) {
	p := &Pass{Files: map[string][]byte{}, Origin: map[string]string{}}
	api, err := load.Load(dir, patterns...)
	var diags model.Diagnostics
	if err != nil && !errors.As(err, &diags) {
		return nil, err
	}
	if api != nil {
		p.API = api
		diags = append(diags, p.generate(gens)...)
	}
	diags.Sort()
	p.Diagnostics = diags
	return p, nil
}

// generate runs gens on p.API and merges their files into p.
func (p *Pass) generate(gens []emit.Generator) model.Diagnostics {
	type result struct {
		files map[string][]byte
		err   error
	}
	results := make([]result, len(gens))
	var wg sync.WaitGroup
	for i, g := range gens {
		wg.Go(func() {
			files, err := g.Generate(p.API)
			results[i] = result{files, err}
		})
	}
	wg.Wait()
	var diags model.Diagnostics
	for i, g := range gens {
		files, err := results[i].files, results[i].err
		var gd model.Diagnostics
		switch {
		case errors.As(err, &gd):
			diags = append(diags, gd...)
		case err != nil:
			diags = append(diags, model.Diagnostic{Pos: model.Position{File: "apigen"},
				Message: fmt.Sprintf("generator %s: %v", g.Name(), err)})
		}
		for path, content := range files {
			if prev, ok := p.Origin[path]; ok {
				diags = append(diags, model.Diagnostic{Pos: model.Position{File: path},
					Message: fmt.Sprintf("generators %s and %s both write this file", prev, g.Name())})
			}
			p.Files[path], p.Origin[path] = content, g.Name()
		}
	}
	return append(diags, p.clashes()...)
}

// clashes reports every package-level name a generated Go file declares that its package (an
// API package, or a group's install package with hand-written files) also declares by hand (a
// function, variable, constant or type): an error at the hand-written declaration naming the
// generated file, instead of a compile error in code the user did not write. The generators
// leave the names they can do without to the package (register's Kind and Resource, install's
// Install); any other clash is one of these.
func (p *Pass) clashes() model.Diagnostics {
	byDir := map[string]*model.Package{}
	for _, pkg := range p.API.Packages {
		byDir[pkg.Dir] = pkg
	}
	for _, g := range p.API.Groups {
		if g.HandInstall != nil {
			byDir[g.InstallDir] = g.HandInstall // install/install.go, as sample-apiserver's
		}
	}
	var diags model.Diagnostics
	for path, content := range p.Files {
		pkg := byDir[filepath.Dir(path)]
		if pkg == nil || filepath.Ext(path) != ".go" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, content, parser.SkipObjectResolution)
		if err != nil {
			continue // the generator's own bug; the build reports it
		}
		for _, name := range topLevelNames(f) {
			if pos, ok := pkg.DeclaredAt(name); ok {
				diags = append(diags, model.Diagnostic{Pos: pos, Message: fmt.Sprintf(
					"%s is also declared by the generated %s (%s generator); rename this declaration",
					name, filepath.Base(path), p.Origin[path])})
			}
		}
	}
	return diags
}

// topLevelNames returns the package-level names f declares: functions (not methods), types,
// variables and constants.
func topLevelNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "init" {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// Owned returns what apigen owns in this pass's API (output.Owned).
func (p *Pass) Owned() []string { return output.Owned(p.API) }

// Kinds counts the kinds of every served version.
func (p *Pass) Kinds() int {
	n := 0
	for _, g := range p.API.Groups {
		for _, v := range g.Versions {
			n += len(v.Kinds)
		}
	}
	return n
}
