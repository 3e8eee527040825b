package scaffold

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/yaml"
)

// kubebuilderDeployDir is where init writes the API server's deploy manifests in a
// kubebuilder project, beside kubebuilder's own config/default, config/manager, ...
const kubebuilderDeployDir = "config/apiserver"

// kubebuilderProject is what apigen reads of a kubebuilder project's PROJECT file (kubebuilder's
// config/v3 schema, which layout go.kubebuilder.io/v4 writes).
type kubebuilderProject struct {
	Layout      []string `json:"layout"`
	ProjectName string   `json:"projectName"`
	Repo        string   `json:"repo"`
	Resources   []struct {
		// API is set for a resource whose types the project declares (`kubebuilder create
		// api --resource`); a controller of another project's kind has none.
		API *struct {
			Namespaced bool `json:"namespaced"`
		} `json:"api"`
		Domain  string `json:"domain"`
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
		Path    string `json:"path"`
	} `json:"resources"`
}

// readKubebuilderProject reads dir/PROJECT; nil, nil when there is none or its layout is not
// kubebuilder's Go layout.
func readKubebuilderProject(dir string) (*kubebuilderProject, error) {
	data, err := os.ReadFile(filepath.Join(dir, "PROJECT"))
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var p kubebuilderProject
	if err := yaml.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "PROJECT"), err)
	}
	if !slices.ContainsFunc(p.Layout, func(l string) bool { return strings.HasPrefix(l, "go.kubebuilder.io/") }) {
		return nil, nil
	}
	return &p, nil
}

// kubebuilderGroup is one API group of a kubebuilder project.
type kubebuilderGroup struct {
	name, short string
	// versions are in Kubernetes' priority order; paths are their packages' import paths.
	versions []string
	paths    map[string]string
}

// kubebuilderGroups returns the API groups p declares whose types live in module (not those of
// other projects' kinds a controller watches), with their versions and import paths.
func kubebuilderGroups(p *kubebuilderProject, module string) []*kubebuilderGroup {
	byName := map[string]*kubebuilderGroup{}
	for _, r := range p.Resources {
		if r.API == nil || (r.Path != module && !strings.HasPrefix(r.Path, module+"/")) {
			continue
		}
		name := r.Group
		if r.Domain != "" {
			name = strings.Trim(r.Group+"."+r.Domain, ".")
		}
		g := byName[name]
		if g == nil {
			g = &kubebuilderGroup{name: name, short: groupShort(name), paths: map[string]string{}}
			byName[name] = g
		}
		if _, ok := g.paths[r.Version]; !ok {
			g.paths[r.Version] = r.Path
			g.versions = append(g.versions, r.Version)
		}
	}
	var groups []*kubebuilderGroup
	for _, g := range byName {
		sort.Slice(g.versions, func(i, j int) bool {
			return version.CompareKubeAwareVersionStrings(g.versions[i], g.versions[j]) > 0
		})
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].name < groups[j].name })
	return groups
}

// initKubebuilder plans apigen's additions to the kubebuilder project at root, keeping every
// file it has: cmd/<name>-apiserver (main.go, main_test.go, generate.go with the go:generate
// line over api/, groups.go listing each group's install package, below its most preferred
// version as apigen generates it), the deploy manifests in config/apiserver, a workflow in
// .github/workflows/apiserver.yaml, and, appended, apiserver-* targets to the Makefile,
// /apiserver-data/ to .gitignore, and apigen as a tool and requirement to go.mod. Running it
// again rewrites groups.go and apis.yaml from PROJECT and changes nothing else.
func initKubebuilder(root string, p *kubebuilderProject, data repoData) (*Plan, error) {
	plan := newPlan(root)
	server := "cmd/" + data.Name + "-apiserver/"
	groups := kubebuilderGroups(p, data.Module)
	if len(groups) == 0 {
		return nil, fmt.Errorf("%s/PROJECT declares no API whose types live in module %s: add one with kubebuilder create api first", root, data.Module)
	}
	for _, f := range []struct{ tmpl, path string }{
		{"main.go.tmpl", server + "main.go"},
		{"main_test.go.tmpl", server + "main_test.go"},
		{"kubebuilder_generate.go.tmpl", server + "generate.go"},
		{"kubebuilder_ci.yaml.tmpl", ".github/workflows/apiserver.yaml"},
	} {
		content, err := render(f.tmpl, data)
		if err != nil {
			return nil, err
		}
		plan.create(f.path, content)
	}
	var wiring wiringData
	deploy := newDeployData(data.Name + "-apiserver")
	deploy.Dir, deploy.Regenerate = kubebuilderDeployDir, "`apigen init` (run it again after kubebuilder create api)"
	for _, g := range groups {
		wiring.Groups = append(wiring.Groups, wiredGroup{Alias: g.short + "install", InstallPath: g.paths[g.versions[0]] + "/install"})
		deploy.Groups = append(deploy.Groups, deployGroup{Name: g.name, Versions: g.versions})
	}
	content, err := render("groups.go.tmpl", wiring)
	if err != nil {
		return nil, err
	}
	plan.write(server+"groups.go", content)
	manifests, err := renderDeploy(deploy)
	if err != nil {
		return nil, err
	}
	for file, content := range manifests {
		if file == "apis.yaml" {
			plan.write(kubebuilderDeployDir+"/"+file, content)
		} else {
			plan.create(kubebuilderDeployDir+"/"+file, content)
		}
	}
	makefile, err := render("kubebuilder_Makefile.tmpl", data)
	if err != nil {
		return nil, err
	}
	if err := appendOnce(plan, "Makefile", "apiserver-generate:", makefile); err != nil {
		return nil, err
	}
	if err := appendOnce(plan, ".gitignore", "/apiserver-data/", []byte("\n# apigen: the API server's data directory (embedded etcd, kubeconfig)\n/apiserver-data/\n")); err != nil {
		return nil, err
	}
	gomod := "\ntool " + ApigenModule + "/cmd/apigen\n\nrequire " + ApigenModule + " " + data.ApigenVersion + "\n"
	if data.Replace != "" {
		gomod += "\n// apigen was run from a source checkout: build against it, offline.\nreplace " + ApigenModule + " => " + data.Replace + "\n"
	}
	if err := appendOnce(plan, "go.mod", "tool "+ApigenModule+"/cmd/apigen", []byte(gomod)); err != nil {
		return nil, err
	}
	return plan, plan.err()
}

// appendOnce plans rel (a file of the user's) to end with addition, unless it already holds
// marker: the user's content is kept as it is, byte for byte, before the addition.
func appendOnce(p *Plan, rel, marker string, addition []byte) error {
	old, err := os.ReadFile(p.abs(rel))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if strings.Contains(string(old), marker) {
		return nil
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	p.write(rel, append(old, addition...))
	return nil
}

// kubebuilderName returns the default server name of a kubebuilder project: serverName of its
// projectName, else of the module path's last element.
func kubebuilderName(p *kubebuilderProject, module string) string {
	if p.ProjectName != "" {
		return serverName(p.ProjectName)
	}
	return serverName(path.Base(module))
}
