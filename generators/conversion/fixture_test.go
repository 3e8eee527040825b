package conversion

import (
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	metaPath     = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePath = "k8s.io/apimachinery/pkg/api/resource"
	hubPath      = "example.com/shop/apis/db"
)

// external returns an external named type.
func external(pkg, name string) *model.Type {
	return &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: model.Struct}
}

var (
	typeMeta   = external(metaPath, "TypeMeta")
	objectMeta = external(metaPath, "ObjectMeta")
	listMeta   = external(metaPath, "ListMeta")
	condition  = external(metaPath, "Condition")
	quantity   = external(resourcePath, "Quantity")
)

func basic(name string) *model.TypeRef      { return &model.TypeRef{Kind: model.Basic, Basic: name} }
func named(t *model.Type) *model.TypeRef    { return &model.TypeRef{Kind: model.Named, Named: t} }
func ptr(r *model.TypeRef) *model.TypeRef   { return &model.TypeRef{Kind: model.Pointer, Elem: r} }
func slice(r *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.Slice, Elem: r} }
func mapOf(k, v *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Map, Key: k, Elem: v}
}

func field(name, json string, typ *model.TypeRef, line int) *model.Field {
	return &model.Field{Name: name, JSONName: json, Type: typ, Pos: model.Position{File: "types.go", Line: line, Col: 2}}
}

func embedded(t *model.Type, json string) *model.Field {
	return &model.Field{Name: t.Name.Name, JSONName: json, Inline: json == "", Embedded: true, Type: named(t)}
}

// pkg builds a package of local types; types are given sorted by name.
func pkg(path, name string, types ...*model.Type) *model.Package {
	p := &model.Package{Path: path, Dir: "/src/" + path, Name: name, Funcs: map[string]model.Position{}}
	for _, t := range types {
		t.Name.Package = path
		t.Local = true
		p.Types = append(p.Types, t)
	}
	return p
}

func local(name string, kind model.TypeKind, fields ...*model.Field) *model.Type {
	return &model.Type{Name: model.TypeName{Name: name}, Kind: kind, Fields: fields}
}

// dbPackage builds one package of the example group: the hub (storage as a Quantity) or a
// version (v1alpha1: sizeGiB in whole gibibytes; with extra a type the hub lacks).
func dbPackage(path, name string, alpha bool) *model.Package {
	engine := local("Engine", model.Basic)
	engine.Underlying = basic("string")
	labelKey, labelValue := local("LabelKey", model.Basic), local("LabelValue", model.Basic)
	labelKey.Underlying, labelValue.Underlying = basic("string"), basic("string")
	policy := local("BackupPolicy", model.Struct,
		field("Schedule", "schedule", basic("string"), 10),
		field("RetentionDays", "retentionDays", basic("int32"), 11))
	size := field("Storage", "storage", named(quantity), 22)
	if alpha {
		size = field("SizeGiB", "sizeGiB", basic("int32"), 22)
	}
	spec := local("DatabaseSpec", model.Struct,
		field("Engine", "engine", named(engine), 20),
		field("Replicas", "replicas", ptr(basic("int32")), 21),
		size,
		field("Parameters", "parameters", mapOf(basic("string"), basic("string")), 23),
		field("Backup", "backup", ptr(named(policy)), 24),
		field("Policies", "policies", mapOf(basic("string"), named(policy)), 25),
		field("Engines", "engines", slice(named(engine)), 26),
		field("Labels", "labels", mapOf(named(labelKey), named(labelValue)), 27))
	status := local("DatabaseStatus", model.Struct,
		field("ReadyReplicas", "readyReplicas", basic("int32"), 30),
		field("Conditions", "conditions", slice(named(condition)), 31))
	database := local("Database", model.Struct,
		embedded(typeMeta, ""), embedded(objectMeta, "metadata"),
		field("Spec", "spec", named(spec), 40), field("Status", "status", named(status), 41))
	list := local("DatabaseList", model.Struct,
		embedded(typeMeta, ""), embedded(listMeta, "metadata"),
		field("Items", "items", slice(named(database)), 50))
	return pkg(path, name, policy, database, list, spec, status, engine, labelKey, labelValue)
}

// testAPI is a group with hub db and versions v1 and v1alpha1; v1alpha1 has hand-written
// DatabaseSpec conversions in both directions.
func testAPI() *model.API {
	hub := dbPackage(hubPath, "db", false)
	v1 := dbPackage(hubPath+"/v1", "v1", false)
	alpha := dbPackage(hubPath+"/v1alpha1", "v1alpha1", true)
	alpha.Funcs["Convert_v1alpha1_DatabaseSpec_To_db_DatabaseSpec"] = model.Position{File: "conversion.go", Line: 10}
	alpha.Funcs["Convert_db_DatabaseSpec_To_v1alpha1_DatabaseSpec"] = model.Position{File: "conversion.go", Line: 20}
	g := &model.Group{
		Name: "db.example.com", Hub: hub,
		Versions: []*model.Version{{Name: "v1", Package: v1}, {Name: "v1alpha1", Package: alpha}},
	}
	g.StorageVersion = g.Versions[0]
	return &model.API{Groups: []*model.Group{g}, Packages: []*model.Package{hub, v1, alpha}}
}

// versionsAPI is a group without an internal package laid out as Gateway API: v1 declares
// Widget (stored in v1), Grant and their specs; v1beta1 imports v1 and declares
// `type Widget v1.Widget` and `type Grant v1.Grant` (stored in v1beta1) with their own lists,
// aliasing everything else (its types' fields are v1's).
func versionsAPI() *model.API {
	const v1Path, betaPath = "example.com/gw/apis/v1", "example.com/gw/apis/v1beta1"
	spec := local("WidgetSpec", model.Struct, field("Size", "size", basic("int32"), 5))
	kind := func(name string, withSpec *model.Type) *model.Type {
		fields := []*model.Field{embedded(typeMeta, ""), embedded(objectMeta, "metadata")}
		if withSpec != nil {
			fields = append(fields, field("Spec", "spec", named(withSpec), 10))
		}
		return local(name, model.Struct, fields...)
	}
	list := func(item *model.Type) *model.Type {
		return local(item.Name.Name+"List", model.Struct, embedded(typeMeta, ""), embedded(listMeta, "metadata"),
			field("Items", "items", slice(named(item)), 20))
	}
	v1Widget, v1Grant := kind("Widget", spec), kind("Grant", nil)
	v1 := pkg(v1Path, "v1", v1Grant, list(v1Grant), v1Widget, list(v1Widget), spec)
	betaWidget, betaGrant := kind("Widget", spec), kind("Grant", nil)
	beta := pkg(betaPath, "v1beta1", betaGrant, list(betaGrant), betaWidget, list(betaWidget))
	beta.Imports = []string{v1Path, metaPath}
	kinds := func(p *model.Package, storedGrant bool) []*model.Kind {
		return []*model.Kind{
			{Name: "Grant", Type: p.Type("Grant"), List: p.Type("GrantList"), Storage: storedGrant},
			{Name: "Widget", Type: p.Type("Widget"), List: p.Type("WidgetList"), Storage: !storedGrant},
		}
	}
	g := &model.Group{Name: "gw.example.com", Hub: v1, HubIsVersion: true, Versions: []*model.Version{
		{Name: "v1", Package: v1, Kinds: kinds(v1, false)},
		{Name: "v1beta1", Package: beta, Kinds: kinds(beta, true)},
	}}
	g.StorageVersion = g.Versions[0]
	return &model.API{Groups: []*model.Group{g}, Packages: []*model.Package{v1, beta}}
}

// hubAPI is a kubebuilder group of two versions without an internal package: v1's CronJob
// has Hub (the hub and storage version), v2's CronJob has controller-runtime's ConvertTo and
// ConvertFrom (Convertible) and represents v1's spec.schedule as spec.hour and spec.minute;
// Rota has the same schema in both versions and no conversion code. v2 imports v1, as its
// hand-written conversion does.
func hubAPI() *model.API {
	const v1Path, v2Path = "example.com/cron/api/v1", "example.com/cron/api/v2"
	build := func(path, name string, v2 bool) *model.Package {
		specFields := []*model.Field{field("Schedule", "schedule", basic("string"), 10)}
		if v2 {
			specFields = []*model.Field{field("Hour", "hour", basic("int32"), 10), field("Minute", "minute", basic("int32"), 11)}
		}
		spec := local("CronJobSpec", model.Struct, append(specFields, field("Task", "task", basic("string"), 12))...)
		cron := local("CronJob", model.Struct, embedded(typeMeta, ""), embedded(objectMeta, "metadata"),
			field("Spec", "spec", named(spec), 20))
		cron.Methods = map[string]bool{"DeepCopy": true}
		if v2 {
			cron.Convertible = true
			cron.Methods["ConvertTo"], cron.Methods["ConvertFrom"] = true, true
		} else {
			cron.Methods["Hub"] = true
		}
		cronList := local("CronJobList", model.Struct, embedded(typeMeta, ""), embedded(listMeta, "metadata"),
			field("Items", "items", slice(named(cron)), 30))
		rotaSpec := local("RotaSpec", model.Struct, field("Members", "members", slice(basic("string")), 40))
		rota := local("Rota", model.Struct, embedded(typeMeta, ""), embedded(objectMeta, "metadata"),
			field("Spec", "spec", named(rotaSpec), 41))
		rotaList := local("RotaList", model.Struct, embedded(typeMeta, ""), embedded(listMeta, "metadata"),
			field("Items", "items", slice(named(rota)), 50))
		return pkg(path, name, cron, cronList, spec, rota, rotaList, rotaSpec)
	}
	v1, v2 := build(v1Path, "v1", false), build(v2Path, "v2", true)
	v2.Imports = []string{v1Path, metaPath}
	kinds := func(p *model.Package, stored bool) []*model.Kind {
		return []*model.Kind{
			{Name: "CronJob", Type: p.Type("CronJob"), List: p.Type("CronJobList"), Storage: stored},
			{Name: "Rota", Type: p.Type("Rota"), List: p.Type("RotaList"), Storage: stored},
		}
	}
	g := &model.Group{Name: "cron.example.com", Hub: v2, HubIsVersion: true, Versions: []*model.Version{
		{Name: "v2", Package: v2, Kinds: kinds(v2, false)},
		{Name: "v1", Package: v1, Kinds: kinds(v1, true)},
	}}
	g.StorageVersion = g.Versions[1]
	return &model.API{Groups: []*model.Group{g}, Packages: []*model.Package{v1, v2}}
}
