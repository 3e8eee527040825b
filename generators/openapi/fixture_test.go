package openapi

import (
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	metaPath     = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePath = "k8s.io/apimachinery/pkg/api/resource"
	hubPath      = "example.com/shop/apis/db"
)

func basic(name string) *model.TypeRef      { return &model.TypeRef{Kind: model.Basic, Basic: name} }
func named(t *model.Type) *model.TypeRef    { return &model.TypeRef{Kind: model.Named, Named: t} }
func ptr(r *model.TypeRef) *model.TypeRef   { return &model.TypeRef{Kind: model.Pointer, Elem: r} }
func slice(r *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.Slice, Elem: r} }
func mapOf(k, v *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Map, Key: k, Elem: v}
}
func float(v float64) *float64 { return &v }
func str(s string) *string     { return &s }
func int64p(v int64) *int64    { return &v }

func field(name, json string, typ *model.TypeRef, doc string, m model.Markers) *model.Field {
	omit := m.Optional
	f := &model.Field{Name: name, JSONName: json, OmitEmpty: omit, Type: typ, Doc: doc, Markers: m}
	f.Required = m.Required || !m.Optional && f.DefaultRequired() // as the loader decides it
	return f
}

func embedded(t *model.Type, json string) *model.Field {
	return &model.Field{Name: t.Name.Name, JSONName: json, Inline: json == "", Embedded: true, OmitEmpty: json != "", Type: named(t)}
}

func structType(pkg, name, doc string, fields ...*model.Field) *model.Type {
	return &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: model.Struct, Doc: doc, Fields: fields}
}

// externalTypes builds the external types the fixture reaches, keyed by TypeName.String().
func externalTypes() map[string]*model.Type {
	timeType := structType(metaPath, "Time", "Time is a wrapper around time.Time.")
	timeType.Methods = map[string]bool{"UnmarshalJSON": true, "OpenAPISchemaType": true, "OpenAPISchemaFormat": true,
		"OpenAPIModelName": true}
	quantity := structType(resourcePath, "Quantity", "Quantity is a fixed-point representation of a number.")
	typeMeta := structType(metaPath, "TypeMeta", "TypeMeta describes an individual object.",
		field("Kind", "kind", basic("string"), "Kind is a string value.", model.Markers{Optional: true}),
		field("APIVersion", "apiVersion", basic("string"), "APIVersion defines the versioned schema.", model.Markers{Optional: true}))
	objectMeta := structType(metaPath, "ObjectMeta", "ObjectMeta is metadata that all persisted resources must have.",
		field("Name", "name", basic("string"), "Name must be unique within a namespace.", model.Markers{Optional: true}),
		field("CreationTimestamp", "creationTimestamp", named(timeType), "", model.Markers{Optional: true}),
		field("Labels", "labels", mapOf(basic("string"), basic("string")), "", model.Markers{Optional: true}))
	objectMeta.Methods = map[string]bool{"OpenAPIModelName": true}
	listMeta := structType(metaPath, "ListMeta", "ListMeta describes metadata of lists.",
		field("ResourceVersion", "resourceVersion", basic("string"), "", model.Markers{Optional: true}))
	condition := structType(metaPath, "Condition", "Condition contains details for one aspect of the current state.",
		field("Type", "type", basic("string"), "type of condition.", model.Markers{}),
		field("LastTransitionTime", "lastTransitionTime", named(timeType), "", model.Markers{}))
	status := structType(metaPath, "Status", "Status is a return value for calls that don't return other objects.",
		embedded(typeMeta, ""), embedded(listMeta, "metadata"),
		field("Code", "code", basic("int32"), "Suggested HTTP return code.", model.Markers{Optional: true}))
	types := map[string]*model.Type{}
	for _, t := range []*model.Type{timeType, quantity, typeMeta, objectMeta, listMeta, condition, status} {
		types[t.Name.String()] = t
	}
	return types
}

func meta(types map[string]*model.Type, name string) *model.Type {
	return types[model.TypeName{Package: metaPath, Name: name}.String()]
}

// versionPackage builds one served version of the example group.
func versionPackage(types map[string]*model.Type, name string) *model.Version {
	p := hubPath + "/" + name
	engine := &model.Type{Name: model.TypeName{Package: p, Name: "Engine"}, Kind: model.Basic, Underlying: basic("string"),
		Doc: "Engine is a database engine.", Markers: model.Markers{Validation: model.Validation{Enum: []string{`"postgres"`, `"mysql"`}}}}
	policy := structType(p, "BackupPolicy", "BackupPolicy says when backups are taken.",
		field("Schedule", "schedule", basic("string"), "Schedule is a cron expression.", model.Markers{Optional: true}),
		field("RetentionDays", "retentionDays", basic("int32"), "", model.Markers{Optional: true, Default: str("7"),
			Validation: model.Validation{Minimum: float(1), MultipleOf: float(7)}}))
	spec := structType(p, "DatabaseSpec", "DatabaseSpec is the desired state of a Database.",
		field("Engine", "engine", named(engine), "Engine is the database engine.", model.Markers{Required: true,
			Validation: model.Validation{Rules: []model.ValidationRule{{Rule: "self == oldSelf", Message: "engine is immutable", Reason: "FieldValueInvalid"}}}}),
		field("Version", "version", basic("string"), "Version is the engine version,\ne.g. \"16.2\".", model.Markers{Optional: true,
			Validation: model.Validation{Pattern: `^[0-9]+(\.[0-9]+)*$`, MaxLength: func() *int64 { v := int64(16); return &v }()}}),
		field("Replicas", "replicas", ptr(basic("int32")), "", model.Markers{Optional: true, Default: str("1"),
			Validation: model.Validation{Minimum: float(0), Maximum: float(9)}}),
		field("Storage", "storage", named(types[resourcePath+".Quantity"]), "", model.Markers{Optional: true, Default: str(`"10Gi"`)}),
		field("Parameters", "parameters", mapOf(basic("string"), basic("string")), "", model.Markers{Optional: true,
			Validation: model.Validation{MinProperties: int64p(1), MaxProperties: int64p(64)}}),
		field("Backup", "backup", ptr(named(policy)), "", model.Markers{Optional: true}),
		field("Data", "data", slice(basic("byte")), "", model.Markers{Optional: true}),
		field("Internal", "-", basic("string"), "", model.Markers{}))
	spec.Markers.Validation.Rules = []model.ValidationRule{{Rule: "!has(self.backup) || self.replicas > 0",
		Message: "backups need a replica", Reason: "FieldValueForbidden", FieldPath: ".backup", OptionalOldSelf: true}}
	status := structType(p, "DatabaseStatus", "DatabaseStatus is the observed state of a Database.",
		field("ReadyReplicas", "readyReplicas", basic("int32"), "", model.Markers{Optional: true}),
		field("Conditions", "conditions", slice(named(meta(types, "Condition"))), "", model.Markers{Optional: true,
			ListType: "map", ListMapKey: []string{"type"}}))
	database := structType(p, "Database", "Database is a managed database instance.\n\nIt is served.",
		embedded(meta(types, "TypeMeta"), ""), embedded(meta(types, "ObjectMeta"), "metadata"),
		field("Spec", "spec", named(spec), "", model.Markers{}), field("Status", "status", named(status), "", model.Markers{Optional: true}))
	list := structType(p, "DatabaseList", "DatabaseList is a list of Databases.",
		embedded(meta(types, "TypeMeta"), ""), embedded(meta(types, "ListMeta"), "metadata"),
		field("Items", "items", slice(named(database)), "", model.Markers{}))
	pkg := &model.Package{Path: p, Dir: "/src/" + p, Name: name, Funcs: map[string]model.Position{}}
	for _, t := range []*model.Type{policy, database, list, spec, status, engine} {
		t.Local = true
		pkg.Types = append(pkg.Types, t)
		types[t.Name.String()] = t
	}
	kind := &model.Kind{Name: "Database", Type: database, List: list, Plural: "databases", Singular: "database",
		ShortNames: []string{"db"}, Namespaced: true, StatusSubresource: true}
	return &model.Version{Name: name, Package: pkg, Kinds: []*model.Kind{kind}}
}

// testAPI is the group db.example.com with a hub and versions v1 and v1alpha1.
func testAPI() *model.API {
	types := externalTypes()
	hub := &model.Package{Path: hubPath, Dir: "/src/" + hubPath, Name: "db"}
	g := &model.Group{Name: "db.example.com", Hub: hub,
		Versions:    []*model.Version{versionPackage(types, "v1"), versionPackage(types, "v1alpha1")},
		InstallPath: hubPath + "/install", InstallDir: "/src/" + hubPath + "/install"}
	g.StorageVersion = g.Versions[0]
	return &model.API{Groups: []*model.Group{g}, Types: types,
		Packages: []*model.Package{hub, g.Versions[0].Package, g.Versions[1].Package}}
}
