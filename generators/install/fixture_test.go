package install

import (
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	metaPath = "k8s.io/apimachinery/pkg/apis/meta/v1"
	hubPath  = "example.com/shop/apis/db"
)

var (
	typeMeta   = &model.Type{Name: model.TypeName{Package: metaPath, Name: "TypeMeta"}, Kind: model.Struct}
	objectMeta = &model.Type{Name: model.TypeName{Package: metaPath, Name: "ObjectMeta"}, Kind: model.Struct}
	listMeta   = &model.Type{Name: model.TypeName{Package: metaPath, Name: "ListMeta"}, Kind: model.Struct}
)

func named(t *model.Type) *model.TypeRef { return &model.TypeRef{Kind: model.Named, Named: t} }

func embedded(t *model.Type) *model.Field {
	return &model.Field{Name: t.Name.Name, Embedded: true, Type: named(t)}
}

// kindTypes returns the struct types of a kind in package p: the object with a Spec (and a
// Status when withStatus), the spec, the status and the list.
func kindTypes(p, kind string, withStatus bool) []*model.Type {
	spec := &model.Type{Name: model.TypeName{Package: p, Name: kind + "Spec"}, Kind: model.Struct}
	obj := &model.Type{Name: model.TypeName{Package: p, Name: kind}, Kind: model.Struct,
		Fields: []*model.Field{embedded(typeMeta), embedded(objectMeta), {Name: "Spec", JSONName: "spec", Type: named(spec)}}}
	types := []*model.Type{obj, spec}
	if withStatus {
		status := &model.Type{Name: model.TypeName{Package: p, Name: kind + "Status"}, Kind: model.Struct}
		obj.Fields = append(obj.Fields, &model.Field{Name: "Status", JSONName: "status", Type: named(status)})
		types = append(types, status)
	}
	list := &model.Type{Name: model.TypeName{Package: p, Name: kind + "List"}, Kind: model.Struct,
		Fields: []*model.Field{embedded(typeMeta), embedded(listMeta),
			{Name: "Items", Type: &model.TypeRef{Kind: model.Slice, Elem: named(obj)}}}}
	return append(types, list)
}

func pkg(path, name string, kinds ...string) *model.Package {
	p := &model.Package{Path: path, Dir: "/src/" + path, Name: name, Funcs: map[string]model.Position{}}
	for _, k := range kinds {
		for _, t := range kindTypes(path, k, k != "DatabaseClass") {
			t.Local = true
			p.Types = append(p.Types, t)
		}
	}
	return p
}

// kinds returns the root kinds of version package p with the example's REST metadata.
func kinds(p *model.Package, names ...string) []*model.Kind {
	var out []*model.Kind
	for _, n := range names {
		k := &model.Kind{Name: n, Type: p.Type(n), List: p.Type(n + "List"), Namespaced: true, StatusSubresource: true,
			Pos: model.Position{File: p.Name + "/types.go", Line: 10}}
		switch n {
		case "Backup":
			k.Plural, k.Singular = "backups", "backup"
			k.PrinterColumns = []model.PrinterColumn{{Name: "Database", Type: "string", JSONPath: ".spec.databaseName"}}
		case "Database":
			k.Plural, k.Singular, k.ShortNames, k.Categories = "databases", "database", []string{"db"}, []string{"all"}
			k.Scale = &model.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.readyReplicas"}
			k.SelectableFields = []string{".spec.engine"}
			k.PrinterColumns = []model.PrinterColumn{
				{Name: "Engine", Type: "string", JSONPath: ".spec.engine"},
				{Name: "Replicas", Type: "integer", Priority: 1, Description: "Desired instances.", JSONPath: ".spec.replicas"},
			}
		case "DatabaseClass":
			k.Plural, k.Singular, k.Namespaced, k.StatusSubresource = "databaseclasses", "databaseclass", false, false
		}
		out = append(out, k)
	}
	return out
}

// testAPI is db.example.com: Database and DatabaseClass in v1 and v1alpha1, Backup only in
// v1; the hub has validation hooks for Database (create only) and Backup (create and update).
func testAPI() *model.API {
	hub := pkg(hubPath, "db", "Backup", "Database", "DatabaseClass")
	hub.Funcs["ValidateDatabase"] = model.Position{}
	hub.Funcs["ValidateBackup"] = model.Position{}
	hub.Funcs["ValidateBackupUpdate"] = model.Position{}
	v1 := pkg(hubPath+"/v1", "v1", "Backup", "Database", "DatabaseClass")
	alpha := pkg(hubPath+"/v1alpha1", "v1alpha1", "Database", "DatabaseClass")
	alphaKinds := kinds(alpha, "Database", "DatabaseClass")
	alphaKinds[1].PrinterColumns = []model.PrinterColumn{{Name: "Engine", Type: "string", JSONPath: ".spec.engine"}}
	g := &model.Group{Name: "db.example.com", Hub: hub,
		Versions: []*model.Version{
			{Name: "v1", Package: v1, Kinds: kinds(v1, "Backup", "Database", "DatabaseClass")},
			{Name: "v1alpha1", Package: alpha, Kinds: alphaKinds},
		},
		InstallPath: hubPath + "/install", InstallDir: "/src/" + hubPath + "/install"}
	g.StorageVersion = g.Versions[0]
	return &model.API{Groups: []*model.Group{g}, Packages: []*model.Package{hub, v1, alpha}}
}
