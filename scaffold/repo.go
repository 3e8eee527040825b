package scaffold

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// versionRE matches Kubernetes API version names: v1, v1beta1, v2alpha3.
var versionRE = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// repo is an API repository init wrote, found from a directory inside it.
type repo struct {
	root   string // absolute
	module string // go.mod's module path
	server string // "cmd/<name>-apiserver", slash-separated, relative to root
}

// group is one API group's directory on disk: apis/<short> as create api writes it, or
// wherever the repository keeps it (pkg/apis/<short>, the layout of sample-apiserver).
type group struct {
	dir      string   // slash-separated, relative to the repository root: "apis/shop"
	short    string   // the directory name, also the hub's package name
	name     string   // +groupName of its packages
	hub      bool     // <dir>/doc.go declares +groupName
	versions []string // version packages, in Kubernetes' priority order
}

// findRepo walks up from dir to the directory holding go.mod and finds the one server
// directory under cmd/ with a groups.go.
func findRepo(dir string) (*repo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("no go.mod in this directory or above: run apigen init first")
		}
		dir = parent
	}
	r := &repo{root: dir, module: modulePath(filepath.Join(dir, "go.mod"))}
	if r.module == "" {
		return nil, fmt.Errorf("%s declares no module", filepath.Join(dir, "go.mod"))
	}
	servers, _ := filepath.Glob(filepath.Join(dir, "cmd", "*", "groups.go"))
	if len(servers) != 1 {
		return nil, fmt.Errorf("want exactly one cmd/<name>-apiserver/groups.go under %s (as apigen init writes), found %d", dir, len(servers))
	}
	r.server = "cmd/" + filepath.Base(filepath.Dir(servers[0]))
	return r, nil
}

// abs returns the absolute path of the slash-separated rel.
func (r *repo) abs(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

// skipDirs are the directories groups does not look into, besides hidden ones.
var skipDirs = map[string]bool{"vendor": true, "testdata": true, "node_modules": true, "bin": true}

// groups lists the API groups anywhere in the repository, sorted by directory: a directory
// is a group when its doc.go, or the doc.go of one of its version subdirectories (v1,
// v1beta1, ...), declares +groupName.
func (r *repo) groups() ([]*group, error) {
	var groups []*group
	err := filepath.WalkDir(r.root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != r.root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || skipDirs[d.Name()]) {
			return filepath.SkipDir
		}
		if versionRE.MatchString(d.Name()) {
			return nil // a version is read with its group
		}
		rel, err := filepath.Rel(r.root, path)
		if err != nil {
			return err
		}
		g, err := r.readGroup(filepath.ToSlash(rel))
		if g != nil {
			groups = append(groups, g)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].dir < groups[j].dir })
	return groups, nil
}

// readGroup returns the group in dir (slash-separated, relative to the root), or nil when
// dir is none.
func (r *repo) readGroup(dir string) (*group, error) {
	g := &group{dir: dir, short: filepath.Base(filepath.FromSlash(dir))}
	g.name = groupName(r.abs(dir + "/doc.go"))
	g.hub = g.name != ""
	sub, err := os.ReadDir(r.abs(dir))
	if err != nil {
		return nil, err
	}
	for _, v := range sub {
		if !v.IsDir() || !versionRE.MatchString(v.Name()) {
			continue
		}
		name := groupName(r.abs(dir + "/" + v.Name() + "/doc.go"))
		if name == "" {
			continue
		}
		if g.name != "" && name != g.name {
			return nil, fmt.Errorf("%s/%s is group %s, but %s is %s", dir, v.Name(), name, dir, g.name)
		}
		g.name = name
		g.versions = append(g.versions, v.Name())
	}
	if g.name == "" {
		return nil, nil
	}
	sortVersions(g.versions)
	return g, nil
}

// installPath returns the import path of g's install package: <hub>/install, where the hub
// is the group's directory once the group has one (or more than one version), else its only version.
func (r *repo) installPath(g *group) string {
	if g.hub || len(g.versions) != 1 {
		return r.module + "/" + g.dir + "/install"
	}
	return r.module + "/" + g.dir + "/" + g.versions[0] + "/install"
}

// groupName returns the +groupName= value in the Go file at path, or "".
func groupName(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	m := regexp.MustCompile(`(?m)^//\s*\+groupName=(\S+)`).FindSubmatch(data)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// sortVersions sorts versions as Kubernetes prioritizes them: GA before beta before alpha,
// higher numbers first within each (v2, v1, v1beta2, v1beta1, v1alpha1).
func sortVersions(vs []string) {
	key := func(v string) (int, int, int) {
		m := regexp.MustCompile(`^v([0-9]+)(?:(alpha|beta)([0-9]+))?$`).FindStringSubmatch(v)
		if m == nil {
			return 3, 0, 0
		}
		var major, minor int
		fmt.Sscan(m[1], &major)
		if m[3] != "" {
			fmt.Sscan(m[3], &minor)
		}
		stability := map[string]int{"": 0, "beta": 1, "alpha": 2}[m[2]]
		return stability, -major, -minor
	}
	sort.Slice(vs, func(i, j int) bool {
		si, mi, ni := key(vs[i])
		sj, mj, nj := key(vs[j])
		if si != sj {
			return si < sj
		}
		if mi != mj {
			return mi < mj
		}
		return ni < nj
	})
}

// groupShort is the directory and hub package name of group: its first DNS label without
// dashes ("shop" for shop.example.com).
func groupShort(group string) string {
	label, _, _ := strings.Cut(group, ".")
	return strings.ReplaceAll(label, "-", "")
}
