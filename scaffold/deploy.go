package scaffold

import (
	"os"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// The deploy manifests (config/deploy) run the server in a Kubernetes cluster as an
// aggregated API server. init renders all of them; only apis.yaml depends on the API groups
// (one APIService per served group version, and the ClusterRole over the groups' resources).
//
// Design: apis.yaml is a file apigen maintains, as groups.go is. init writes it with no group
// and create api rewrites it whole, from the groups it wires into groups.go and their served
// versions, so the manifests stay right after every create api without a step of the user's
// (kustomize cannot list Go packages, and generating it with go generate would mix deploy
// files into the generated code). create api leaves it alone in a repository without
// config/deploy/kustomization.yaml (one made before apigen wrote deploy manifests, or whose
// owner removed them). It names the Service that service.yaml declares, so a Service renamed
// or moved to another namespace there stays the APIServices' backend.

// deployDir is where init writes the deploy manifests, relative to the repository root.
const deployDir = "config/deploy"

// deployData is what the templates of init/deploy and api/apis.yaml.tmpl see.
type deployData struct {
	// Server names the Deployment, ServiceAccount, ClusterRole, image and binary:
	// "<name>-apiserver".
	Server string
	// Namespace is the namespace of the server and its etcd: "<name>-system".
	Namespace string
	// Service is the name of the Service the APIServices name; Server unless service.yaml
	// says otherwise.
	Service string
	// Dir is the manifests' directory from the repository root, for comments.
	Dir string
	// Package is the server's main package as go build takes it from the repository root:
	// "./cmd/<name>-apiserver".
	Package string
	// Regenerate says what rewrites apis.yaml.
	Regenerate string
	// Groups are the served API groups, sorted by name.
	Groups []deployGroup
}

// deployGroup is one API group of apis.yaml.
type deployGroup struct {
	Name string
	// Versions are the served ones, in Kubernetes' priority order.
	Versions []string
}

// deployFiles are the templates init renders into deployDir: template name, file name.
var deployFiles = []struct{ tmpl, file string }{
	{"Dockerfile.tmpl", "Dockerfile"},
	{"Dockerfile.dockerignore.tmpl", "Dockerfile.dockerignore"},
	{"kustomization.yaml.tmpl", "kustomization.yaml"},
	{"namespace.yaml.tmpl", "namespace.yaml"},
	{"rbac.yaml.tmpl", "rbac.yaml"},
	{"deployment.yaml.tmpl", "deployment.yaml"},
	{"service.yaml.tmpl", "service.yaml"},
	{"etcd.yaml.tmpl", "etcd.yaml"},
	{"ca-bundle.yaml.tmpl", "ca-bundle.yaml"},
	{"apis.yaml.tmpl", "apis.yaml"},
}

// newDeployData returns the deploy data of the server cmd/<server> of a repository init
// wrote, with no group.
func newDeployData(server string) deployData {
	name := strings.TrimSuffix(server, "-apiserver")
	return deployData{Server: server, Namespace: name + "-system", Service: server, Dir: deployDir,
		Package: "./cmd/" + server, Regenerate: "`apigen create api`"}
}

// renderDeploy renders every file of deployFiles with data: file name -> content.
func renderDeploy(data deployData) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, f := range deployFiles {
		content, err := render(f.tmpl, data)
		if err != nil {
			return nil, err
		}
		files[f.file] = content
	}
	return files, nil
}

// planDeployAPIs plans apis.yaml of r for groups, as they will be once the plan is applied;
// added is the version create api adds a kind to ("" for none), served whatever is on disk.
// It plans nothing when r has no config/deploy/kustomization.yaml.
func planDeployAPIs(p *Plan, r *repo, groups []*group, added *group, addedVersion string) error {
	if _, err := os.Stat(r.abs(deployDir + "/kustomization.yaml")); err != nil {
		return nil
	}
	data := newDeployData(path.Base(r.server))
	data.Service, data.Namespace = serviceOf(r.abs(deployDir+"/service.yaml"), data.Service, data.Namespace)
	for _, g := range groups {
		v := ""
		if g == added {
			v = addedVersion
		}
		versions, err := r.servedVersions(g, v)
		if err != nil {
			return err
		}
		if len(versions) > 0 {
			data.Groups = append(data.Groups, deployGroup{Name: g.name, Versions: versions})
		}
	}
	sort.Slice(data.Groups, func(i, j int) bool { return data.Groups[i].Name < data.Groups[j].Name })
	content, err := render("apis.yaml.tmpl", data)
	if err != nil {
		return err
	}
	p.write(deployDir+"/apis.yaml", content)
	return nil
}

// serviceOf returns the name and namespace of the Service the YAML file at file declares,
// or name and namespace when it declares none (or cannot be read).
func serviceOf(file, name, namespace string) (string, string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return name, namespace
	}
	var svc struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if yaml.Unmarshal(data, &svc) != nil || svc.Kind != "Service" || svc.Metadata.Name == "" {
		return name, namespace
	}
	if svc.Metadata.Namespace != "" {
		namespace = svc.Metadata.Namespace
	}
	return svc.Metadata.Name, namespace
}

// servedVersions returns the versions of g the server serves, in g.versions' order, as
// generators/install decides: a version is served unless every kind it declares is marked
// +kubebuilder:unservedversion (a kind marked +kubebuilder:skipversion is not declared).
// The version added gets a new kind and is served.
func (r *repo) servedVersions(g *group, added string) ([]string, error) {
	var served []string
	for _, v := range g.versions {
		if v == added {
			served = append(served, v)
			continue
		}
		srcs, err := readSources(r.abs(g.dir + "/" + v))
		if err != nil {
			return nil, err
		}
		decls := typeDecls(srcs)
		declared, unserved := 0, 0
		for kind := range kinds(decls) {
			doc := decls[kind].doc
			if strings.Contains(doc, "+kubebuilder:skipversion") {
				continue
			}
			declared++
			if strings.Contains(doc, "+kubebuilder:unservedversion") {
				unserved++
			}
		}
		if declared == 0 || unserved < declared {
			served = append(served, v)
		}
	}
	return served, nil
}
