package scaffold

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// APIOptions are the inputs of `apigen create api`.
type APIOptions struct {
	// Group is the API group, a DNS subdomain with a dot: "shop.example.com".
	Group string
	// Version is the API version: v1, v1beta1, v2alpha1.
	Version string
	// Kind is the kind, UpperCamelCase: "Order".
	Kind string
	// KindOptions shape the kind's markers: scope, status and scale subresources.
	KindOptions
}

var (
	groupRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`)
	kindRE  = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// kindData is what types.go.tmpl and the doc templates see.
type kindData struct {
	Group, Version, Kind, Lower string
	// A is the kind's indefinite article, "a" or "an".
	A string
	KindOptions
	// HubPath is the hub package's import path once the group has one.
	HubPath string
	// ObjPath is the import path of the types the install package serves (the hub's, else
	// the version's), and Plural the resource: what a --storage=rest stub refers to.
	ObjPath, Plural string
	// Package is the hub's package name.
	Package string
}

// CreateAPI plans adding opts.Kind in opts.Version of opts.Group to the repository that holds
// dir (see the package doc for the files). The group is found wherever the repository keeps
// it (a directory whose doc.go, or whose versions' doc.go, declares +groupName=opts.Group:
// apis/<g>, pkg/apis/<g>, ...); a new group goes to apis/<g>. A kind new to the group is rendered from
// types.go.tmpl; a kind the group already serves in another version is copied from there, so
// versions convert field by field. When the group gets its second version, the hub package
// (the group's directory) is created with a copy of every kind (markers dropped), every version's doc.go
// gets +k8s:conversion-gen=<hub>, and the old install package's generated files are deleted.
// groups.go is rewritten to import every group's install package, and config/deploy/apis.yaml
// to hold an APIService per served version of every group (see deploy.go).
//
// Running it again with the same options plans nothing. Errors: invalid options, a
// repository init did not write, or a *ClashError (the kind exists with other options; a
// file it would create exists with other content).
func CreateAPI(dir string, opts APIOptions) (*Plan, error) {
	if !groupRE.MatchString(opts.Group) {
		return nil, fmt.Errorf("invalid --group %q: want a DNS subdomain with a dot, such as shop.example.com", opts.Group)
	}
	if !versionRE.MatchString(opts.Version) {
		return nil, fmt.Errorf("invalid --version %q: want v1, v1beta1, v2alpha1, ...", opts.Version)
	}
	if !kindRE.MatchString(opts.Kind) || strings.HasSuffix(opts.Kind, "List") {
		return nil, fmt.Errorf("invalid --kind %q: want an UpperCamelCase name not ending in List, such as Order", opts.Kind)
	}
	switch opts.Storage {
	case "", "etcd":
		opts.Storage = ""
	case "rest":
		if opts.Status || opts.Scale {
			return nil, fmt.Errorf("--storage=rest with --status or --scale: the REST you write serves the resource only, not its subresources")
		}
	case "interface":
	default:
		return nil, fmt.Errorf("invalid --storage %q: want etcd, rest or interface", opts.Storage)
	}
	r, err := findRepo(dir)
	if err != nil {
		return nil, err
	}
	groups, err := r.groups()
	if err != nil {
		return nil, err
	}
	short := groupShort(opts.Group)
	var g *group
	for _, cand := range groups {
		if cand.name == opts.Group {
			if g != nil {
				return nil, fmt.Errorf("group %s is in two directories, %s and %s: keep one", opts.Group, g.dir, cand.dir)
			}
			g = cand
		}
	}
	if g == nil {
		g = &group{dir: "apis/" + short, short: short, name: opts.Group}
		for _, cand := range groups {
			if cand.dir == g.dir {
				return nil, fmt.Errorf("%s already holds group %s, not %s", cand.dir, cand.name, opts.Group)
			}
		}
		groups = append(groups, g)
	}
	p := newPlan(r.root)
	c := &creation{r: r, p: p, g: g, opts: opts, gdir: g.dir}
	if err := c.plan(); err != nil {
		return nil, err
	}
	if !slices.Contains(g.versions, opts.Version) {
		g.versions = append(g.versions, opts.Version)
		sortVersions(g.versions)
	}
	if len(g.versions) > 1 {
		g.hub = true
	}
	if err := planWiring(p, r, groups); err != nil {
		return nil, err
	}
	addedVersion := ""
	if c.addedKind {
		addedVersion = opts.Version
	}
	if err := planDeployAPIs(p, r, groups, g, addedVersion); err != nil {
		return nil, err
	}
	return p, p.err()
}

// creation is the state of one CreateAPI.
type creation struct {
	r    *repo
	p    *Plan
	g    *group // as on disk
	opts APIOptions
	gdir string
	// addedKind is set when the kind is new to its version.
	addedKind bool
}

func (c *creation) plan() error {
	o := c.opts
	data := kindData{Group: o.Group, Version: o.Version, Kind: o.Kind, Lower: strings.ToLower(o.Kind), A: "a",
		KindOptions: o.KindOptions, Package: c.g.short}
	if strings.ContainsRune("AEIOU", rune(o.Kind[0])) {
		data.A = "an"
	}
	versions := slices.Clone(c.g.versions)
	newVersion := !slices.Contains(versions, o.Version)
	if newVersion {
		versions = append(versions, o.Version)
		sortVersions(versions)
	}
	needHub := len(versions) > 1
	if needHub {
		data.HubPath = c.r.module + "/" + c.gdir
	}
	perVersion := map[string][]*source{} // every version's hand-written files as they are now
	for _, v := range c.g.versions {
		srcs, err := readSources(c.r.abs(c.gdir + "/" + v))
		if err != nil {
			return err
		}
		perVersion[v] = srcs
	}
	if err := c.planKind(data, perVersion); err != nil {
		return err
	}
	switch o.Storage {
	case "rest":
		if err := c.planRESTStub(data, needHub); err != nil {
			return err
		}
	case "interface":
		if err := c.planStorageStub(data, needHub); err != nil {
			return err
		}
	}
	if newVersion {
		doc, err := render("version_doc.go.tmpl", data)
		if err != nil {
			return err
		}
		c.p.create(c.gdir+"/"+o.Version+"/doc.go", doc)
	}
	if !needHub {
		return nil
	}
	return c.planHub(data, perVersion, versions)
}

// kindSource returns the files of the version of the group that already serves the kind
// (nil when the kind is new to the group, or already in the requested version), recording a
// clash when the kind's options there differ from the requested ones.
func (c *creation) kindSource(perVersion map[string][]*source) []*source {
	o := c.opts
	var srcs []*source
	for _, v := range c.g.versions {
		opts, ok := kinds(typeDecls(perVersion[v]))[o.Kind]
		switch {
		case !ok:
			continue
		case v == o.Version:
			if opts != o.KindOptions {
				c.p.clash("kind %s exists in %s/%s with %s; asked for %s", o.Kind, c.gdir, v, opts, o.KindOptions)
			}
			return nil
		case opts.Namespaced != o.Namespaced:
			c.p.clash("kind %s is served by %s/%s with --namespaced=%v; every version must agree", o.Kind, c.gdir, v, opts.Namespaced)
		}
		if srcs == nil {
			srcs = perVersion[v]
		}
	}
	return srcs
}

// planKind plans the kind's types file in the requested version unless the
// version has the kind already, and adds the new file to perVersion.
func (c *creation) planKind(data kindData, perVersion map[string][]*source) error {
	o := c.opts
	from := c.kindSource(perVersion)
	if _, exists := kinds(typeDecls(perVersion[o.Version]))[o.Kind]; exists {
		return nil
	}
	var content []byte
	var err error
	if from != nil {
		content, err = copyKind(from, o.Kind, o.Version, false)
	} else {
		content, err = render("types.go.tmpl", data)
	}
	if err != nil {
		return err
	}
	name := data.Lower + "_types.go"
	c.addedKind = true
	c.p.create(c.gdir+"/"+o.Version+"/"+name, content)
	added, err := parseSources(map[string][]byte{name: content})
	if err != nil {
		return err
	}
	perVersion[o.Version] = append(perVersion[o.Version], added...)
	// No sample: apigen generate writes config/samples/generated/ from the types as they are
	// when it runs, valid however the user changes them (generators/samples).
	return nil
}

// planHub plans the hub package and the conversion markers of every existing version, and,
// when the hub is new, deletes the generated files of the single version's install package.
func (c *creation) planHub(data kindData, perVersion map[string][]*source, versions []string) error {
	if !c.g.hub {
		doc, err := render("hub_doc.go.tmpl", data)
		if err != nil {
			return err
		}
		c.p.create(c.gdir+"/doc.go", doc)
		for _, v := range c.g.versions {
			old, _ := filepath.Glob(c.r.abs(c.gdir + "/" + v + "/install/zz_generated.*.go"))
			for _, f := range old {
				c.p.remove(c.gdir + "/" + v + "/install/" + filepath.Base(f))
			}
			if err := c.moveRESTStubs(v, data.HubPath); err != nil {
				return err
			}
		}
	}
	for _, v := range c.g.versions {
		if err := c.addConversionMarker(c.gdir+"/"+v+"/doc.go", data.HubPath); err != nil {
			return err
		}
	}
	hubSrcs, err := readSources(c.r.abs(c.gdir))
	if err != nil {
		return err
	}
	hubKinds := kinds(typeDecls(hubSrcs))
	for _, v := range versions {
		for kind := range kinds(typeDecls(perVersion[v])) {
			if _, ok := hubKinds[kind]; ok {
				continue
			}
			content, err := copyKind(perVersion[v], kind, c.g.short, true)
			if err != nil {
				return err
			}
			hubKinds[kind] = KindOptions{}
			c.p.create(c.gdir+"/"+strings.ToLower(kind)+"_types.go", content)
		}
	}
	return nil
}

// addConversionMarker plans adding "+k8s:conversion-gen=<hub>" above the +groupName line of
// the version doc.go at rel; a doc.go naming another conversion package is a clash.
func (c *creation) addConversionMarker(rel, hub string) error {
	data, err := os.ReadFile(c.r.abs(rel))
	if err != nil {
		return err
	}
	src := string(data)
	if m := regexp.MustCompile(`(?m)^//\s*\+k8s:conversion-gen=(\S+)`).FindStringSubmatch(src); m != nil {
		if m[1] != hub {
			c.p.clash("%s converts through %s, not the hub %s", rel, m[1], hub)
		}
		return nil
	}
	loc := regexp.MustCompile(`(?m)^//\s*\+groupName=`).FindStringIndex(src)
	if loc == nil {
		c.p.clash("%s has no +groupName line to add +k8s:conversion-gen=%s to", rel, hub)
		return nil
	}
	c.p.write(rel, []byte(src[:loc[0]]+"// +k8s:conversion-gen="+hub+"\n"+src[loc[0]:]))
	return nil
}
