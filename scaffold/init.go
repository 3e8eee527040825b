package scaffold

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// InitOptions are the inputs of `apigen init`.
type InitOptions struct {
	// Module is the new repository's module path, e.g. "example.com/shop".
	Module string
	// Dir is where the repository is written; "" means the module path's last element
	// under the working directory.
	Dir string
	// Name names the server: cmd/<Name>-apiserver. "" means the module path's last element.
	Name string
	// Replace is an apigen source checkout the go.mod replaces apigen with; "" means none
	// (the go.mod then requires the version of apigen in this binary's build info).
	Replace string
}

// repoData is what the init templates see.
type repoData struct {
	Module, Name, ApigenVersion, Replace string
	// Namespace is the namespace config/deploy runs the server in.
	Namespace string
}

var (
	modulePathRE = regexp.MustCompile(`^[a-z0-9][-a-z0-9_.~]*(/[-a-zA-Z0-9_.~]+)*$`)
	nameRE       = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// Init plans a new repository as the package doc lays it out: go.mod, Makefile, README.md,
// .gitignore, the CI workflow, apis/doc.go, cmd/<name>-apiserver/{main,main_test,groups}.go
// with no group yet, and the deploy manifests in config/deploy. Errors: an invalid module path or name, no apigen version to require
// (a development build outside a checkout without Replace), or a *ClashError.
//
// In a kubebuilder project (Dir, "." by default when Module is empty, holds a PROJECT file of a
// go.kubebuilder.io layout and a go.mod) it adds apigen beside the project instead, keeping
// every file (see initKubebuilder); Module, when given, must be go.mod's, and Name defaults to
// the projectName.
func Init(opts InitOptions) (*Plan, error) {
	if opts.Module == "" {
		return adoptKubebuilder(opts)
	}
	if !modulePathRE.MatchString(opts.Module) || strings.Contains(opts.Module, "..") {
		return nil, fmt.Errorf("invalid module path %q: want a path such as example.com/shop", opts.Module)
	}
	base := path.Base(opts.Module)
	if opts.Name == "" {
		opts.Name = serverName(base)
	}
	if !nameRE.MatchString(opts.Name) {
		return nil, fmt.Errorf("invalid server name %q: want lower-case letters, digits and dashes, starting with a letter (--name)", opts.Name)
	}
	if opts.Dir == "" {
		opts.Dir = base
	}
	root, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	data, err := newRepoData(opts.Module, opts)
	if err != nil {
		return nil, err
	}
	deploy := newDeployData(opts.Name + "-apiserver")
	p := newPlan(root)
	server := "cmd/" + opts.Name + "-apiserver/"
	files := []struct{ tmpl, path string }{
		{"go.mod.tmpl", "go.mod"},
		{"Makefile.tmpl", "Makefile"},
		{"README.md.tmpl", "README.md"},
		{"gitignore.tmpl", ".gitignore"},
		{"ci.yaml.tmpl", ".github/workflows/ci.yaml"},
		{"apis_doc.go.tmpl", "apis/doc.go"},
		{"main.go.tmpl", server + "main.go"},
		{"main_test.go.tmpl", server + "main_test.go"},
	}
	for _, f := range files {
		content, err := render(f.tmpl, data)
		if err != nil {
			return nil, err
		}
		p.create(f.path, content)
	}
	wiring, err := render("groups.go.tmpl", wiringData{})
	if err != nil {
		return nil, err
	}
	p.create(server+"groups.go", wiring)
	manifests, err := renderDeploy(deploy)
	if err != nil {
		return nil, err
	}
	for file, content := range manifests {
		p.create(deployDir+"/"+file, content)
	}
	return p, p.err()
}

// nonNameRE matches the runs of characters a server name replaces with a dash.
var nonNameRE = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// serverName returns the default server name derived from s (a module path's last element or
// a kubebuilder projectName): lower case, each run of other characters than letters and
// digits a dash, none at either end ("My_Shop" -> "my-shop").
func serverName(s string) string {
	return strings.ToLower(strings.Trim(nonNameRE.ReplaceAllString(s, "-"), "-"))
}

// newRepoData returns what the init templates see for module and opts.Name, with the apigen
// version to require and opts.Replace made absolute (checked to be an apigen checkout).
func newRepoData(module string, opts InitOptions) (repoData, error) {
	replace := opts.Replace
	if replace != "" {
		var err error
		if replace, err = filepath.Abs(replace); err != nil {
			return repoData{}, err
		}
		if modulePath(filepath.Join(replace, "go.mod")) != ApigenModule {
			return repoData{}, fmt.Errorf("%s is not an apigen checkout: its go.mod does not declare module %s", replace, ApigenModule)
		}
	}
	data := repoData{Module: module, Name: opts.Name, Replace: replace, ApigenVersion: ApigenVersion(replace),
		Namespace: newDeployData(opts.Name + "-apiserver").Namespace}
	if data.ApigenVersion == "" {
		return repoData{}, fmt.Errorf("this apigen is a development build outside its source checkout: cannot tell which apigen version to require")
	}
	return data, nil
}

// adoptKubebuilder plans init in the kubebuilder project at opts.Dir (default ".").
func adoptKubebuilder(opts InitOptions) (*Plan, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p, err := readKubebuilderProject(root)
	if err != nil {
		return nil, err
	}
	module := modulePath(filepath.Join(root, "go.mod"))
	if p == nil || module == "" {
		return nil, fmt.Errorf("%s is not a kubebuilder project (no PROJECT file of a go.kubebuilder.io layout beside a go.mod): give the new repository's module path, as apigen init example.com/shop", root)
	}
	if opts.Module != "" && opts.Module != module {
		return nil, fmt.Errorf("%s is the kubebuilder project of module %s, not %s", root, module, opts.Module)
	}
	if opts.Name == "" {
		opts.Name = kubebuilderName(p, module)
	}
	if !nameRE.MatchString(opts.Name) {
		return nil, fmt.Errorf("invalid server name %q: want lower-case letters, digits and dashes, starting with a letter (--name)", opts.Name)
	}
	data, err := newRepoData(module, opts)
	if err != nil {
		return nil, err
	}
	return initKubebuilder(root, p, data)
}

// Tidy runs `go mod tidy` in dir with GOFLAGS=-mod=mod and the environment's GOPROXY, so
// that go.mod lists, and go.sum checksums, every module the repository builds with. When
// replace is an apigen checkout, its go.sum seeds dir's go.sum first: the new repository's
// modules are a subset of apigen's, so a warm module cache is then enough and no checksum
// database is consulted. If tidy fails (no network), it is retried once with GOPROXY=off,
// which succeeds when the module cache holds every module. With beforeGenerate (init in a
// kubebuilder project, whose groups.go imports install packages apigen generate writes later)
// tidy runs with -e: the requirements of everything else are added all the same. Errors carry
// go's output.
func Tidy(ctx context.Context, dir, replace string, beforeGenerate bool) error {
	if replace != "" {
		if sum, err := os.ReadFile(filepath.Join(replace, "go.sum")); err == nil {
			// The checkout's checksums join the repository's own (a kubebuilder project
			// has a go.sum already); tidy then drops those it does not need.
			own, _ := os.ReadFile(filepath.Join(dir, "go.sum"))
			if err := writeFile(filepath.Join(dir, "go.sum"), mergeSums(own, sum)); err != nil {
				return err
			}
		}
	}
	args := []string{"mod", "tidy"}
	if beforeGenerate {
		args = append(args, "-e")
	}
	err := goCommand(ctx, dir, nil, args...)
	if err != nil && os.Getenv("GOPROXY") != "off" {
		err2 := goCommand(ctx, dir, []string{"GOPROXY=off"}, args...)
		if err2 == nil {
			return nil
		}
		err = fmt.Errorf("%w\nretried offline (GOPROXY=off): %v", err, err2)
	}
	return err
}

// mergeSums returns the lines of a followed by those of b that a lacks.
func mergeSums(a, b []byte) []byte {
	seen := map[string]bool{}
	var out bytes.Buffer
	for _, data := range [][]byte{a, b} {
		for line := range strings.Lines(string(data)) {
			line = strings.TrimRight(line, "\n")
			if line != "" && !seen[line] {
				seen[line] = true
				out.WriteString(line + "\n")
			}
		}
	}
	return out.Bytes()
}

// goCommand runs the go command with args in dir, with GOFLAGS=-mod=mod added to the
// environment (after the caller's GOFLAGS, so it wins) and env appended.
func goCommand(ctx context.Context, dir string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "--mod=") {
			flags = append(flags, f)
		}
	}
	goflags := strings.Join(append(flags, "-mod=mod"), " ")
	cmd.Env = append(append(os.Environ(), "GOFLAGS="+goflags), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}
