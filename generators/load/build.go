package load

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"k8s.io/apimachinery/pkg/version"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// versionRE matches package names that are API versions: v1, v1beta2, v2alpha1.
var versionRE = regexp.MustCompile(`^v\d+((alpha|beta)\d+)?$`)

// apiPackage is one loaded API package before grouping.
type apiPackage struct {
	pkg   *packages.Package
	model *model.Package
	// pos is where +groupName is written, for group-level errors; convPos where
	// +k8s:conversion-gen is.
	pos, convPos model.Position
}

// build assembles the model from the loaded packages.
func (b *builder) build(pkgs []*packages.Package) *model.API {
	var apiPkgs []*apiPackage
	for _, pkg := range pkgs {
		if ap := b.apiPackage(pkg); ap != nil {
			apiPkgs = append(apiPkgs, ap)
			b.local[pkg.PkgPath] = true
		}
	}
	api := &model.API{Types: b.types, Matched: len(pkgs)}
	for _, ap := range apiPkgs {
		b.addPackageTypes(ap.model, ap.pkg.Types)
		ap.model.Funcs = b.funcs(ap.pkg.Syntax)
		ap.model.Vars = b.vars(ap.pkg.Syntax)
		ap.model.TypeNames = b.typeNames(ap.pkg.Syntax)
		ap.model.SchemeBuilderField = schemeBuilderField(ap.pkg.Types)
		b.enums(ap.model, ap.pkg.Types)
		api.Packages = append(api.Packages, ap.model)
	}
	b.addMetaTypes()
	b.addGeneratedMethods()
	sort.Slice(api.Packages, func(i, j int) bool { return api.Packages[i].Path < api.Packages[j].Path })
	api.Groups = b.groups(apiPkgs)
	b.clientsForAll(api.Groups)
	return api
}

// apiPackage returns pkg as an API package when a package comment carries +groupName, else nil.
func (b *builder) apiPackage(pkg *packages.Package) *apiPackage {
	if pkg.Types == nil {
		return nil
	}
	var lines []markers.Line
	for _, f := range pkg.Syntax {
		b.idx.add(f)
		lines = append(lines, commentLines(b.fset, b.pos, packageComments(b.fset, f)...)...)
	}
	if !markers.Has(lines, "groupName") {
		return nil
	}
	ap := &apiPackage{pkg: pkg, model: &model.Package{Path: pkg.PkgPath, Name: pkg.Name, Dir: packageDir(pkg)}}
	for path := range pkg.Imports {
		ap.model.Imports = append(ap.model.Imports, path)
	}
	sort.Strings(ap.model.Imports)
	ap.model.Markers = b.parseMarkers(true, lines)
	ap.model.DeepCopyBy = deepCopyBy(ap.model.Dir)
	b.optionalByDefault[pkg.PkgPath] = markers.Has(lines, "kubebuilder:validation:Optional")
	for _, l := range lines {
		text := strings.TrimSpace(l.Text)
		if strings.HasPrefix(text, "+groupName") {
			ap.pos = l.Pos
		}
		if strings.HasPrefix(text, "+k8s:conversion-gen=") {
			ap.convPos = l.Pos
		}
	}
	return ap
}

// packageDir returns the absolute directory of pkg.
func packageDir(pkg *packages.Package) string {
	if pkg.Dir != "" {
		return pkg.Dir
	}
	if len(pkg.GoFiles) > 0 {
		return filepath.Dir(pkg.GoFiles[0])
	}
	return ""
}

// groups groups the API packages by +groupName into hub and versions.
func (b *builder) groups(apiPkgs []*apiPackage) []*model.Group {
	byName := map[string][]*apiPackage{}
	for _, ap := range apiPkgs {
		byName[ap.model.Markers.GroupName] = append(byName[ap.model.Markers.GroupName], ap)
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var groups []*model.Group
	for _, n := range names {
		if g := b.group(n, byName[n]); g != nil {
			groups = append(groups, g)
		}
	}
	return groups
}

// group builds one group from its packages, or returns nil after reporting why it cannot.
func (b *builder) group(name string, pkgs []*apiPackage) *model.Group {
	g := &model.Group{Name: name}
	var hubs []*apiPackage
	for _, ap := range pkgs {
		if !versionRE.MatchString(ap.model.Name) {
			hubs = append(hubs, ap)
			continue
		}
		v := &model.Version{Name: ap.model.Name, Package: ap.model}
		if vn := ap.model.Markers.VersionName; vn != "" {
			v.Name = vn
		}
		v.Kinds = b.kinds(ap.model)
		g.Versions = append(g.Versions, v)
	}
	slices.SortStableFunc(g.Versions, func(a, c *model.Version) int {
		return -version.CompareKubeAwareVersionStrings(a.Name, c.Name)
	})
	for i := 1; i < len(g.Versions); i++ {
		if prev, v := g.Versions[i-1], g.Versions[i]; prev.Name == v.Name {
			b.errorf(b.groupPos(pkgs, v.Package), "group %s serves version %s twice, from %s and %s", name, v.Name, prev.Package.Path, v.Package.Path)
			return nil
		}
	}
	switch {
	case len(hubs) > 1:
		for _, h := range hubs[1:] {
			b.errorf(h.pos, "group %s has two internal (hub) packages, %s and %s", name, hubs[0].model.Path, h.model.Path)
		}
		return nil
	case len(hubs) == 1:
		g.Hub = hubs[0].model
	case len(g.Versions) == 0:
		b.errorf(pkgs[0].pos, "group %s has no version package (a package named like v1, v1beta1, v1alpha1)", name)
		return nil
	default:
		// No internal package: each kind is held in its hub version's types (model.Group.HubOf)
		// and the install package goes below the most preferred version.
		g.Hub, g.HubIsVersion = g.Versions[0].Package, true
	}
	g.InstallPath = g.Hub.Path + "/install"
	g.InstallDir = filepath.Join(g.Hub.Dir, "install")
	b.handInstall(g)
	b.restStorage(g)
	b.checkUserStorage(g)
	b.validationPackage(g)
	b.fuzzerPackage(g)
	g.StorageVersion = b.storageVersions(g)
	b.checkHubs(g)
	var modPath, modDir string
	if mod := pkgs[0].pkg.Module; mod != nil {
		modPath, modDir = mod.Path, mod.Dir
	}
	rootPath, rootDir := apiRoot(g.Hub, modPath, modDir)
	g.ClientPath, g.ClientDir = path.Join(rootPath, "pkg", "generated"), filepath.Join(rootDir, "pkg", "generated")
	g.CRDDir = filepath.Join(rootDir, "config", "crd")
	g.SamplesDir = filepath.Join(rootDir, "config", "samples", "generated")
	groupGoName := g.Hub.Markers.GroupGoName
	for _, v := range g.Versions {
		if n := v.Package.Markers.GroupGoName; n != "" {
			groupGoName = n
		}
	}
	g.ClientPackageName, g.ClientGoName = clientGroupNames(g.Name, groupGoName)
	b.deprecations(g)
	b.checkPlurals(g)
	b.checkHubReferences(g, pkgs)
	return g
}

// storageVersions sets model.Kind.Storage on one kind of each name in g: the kind marked
// +kubebuilder:storageversion, else the most preferred version's (each kind has its own
// storage version, as each CRD controller-gen writes has). A kind marked in two versions is
// an error at the second. It returns the most preferred version some kind is stored in.
func (b *builder) storageVersions(g *model.Group) *model.Version {
	marked := map[string]*model.Version{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if !k.Type.Markers.StorageVersion {
				continue
			}
			if first, ok := marked[k.Name]; ok {
				b.errorf(k.Pos, "kind %s of group %s has two storage versions, %s and %s: mark one only with +kubebuilder:storageversion",
					k.Name, g.Name, first.Name, v.Name)
				continue
			}
			marked[k.Name] = v
			k.Storage = true
		}
	}
	var storage *model.Version
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if _, ok := marked[k.Name]; !ok {
				marked[k.Name] = v
				k.Storage = true
			}
			if k.Storage && storage == nil {
				storage = v
			}
		}
	}
	if storage == nil {
		return g.Versions[0]
	}
	return storage
}

// groupPos returns the +groupName position of p among pkgs.
func (b *builder) groupPos(pkgs []*apiPackage, p *model.Package) model.Position {
	for _, ap := range pkgs {
		if ap.model == p {
			return ap.pos
		}
	}
	return model.Position{}
}
