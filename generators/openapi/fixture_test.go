package openapi

import (
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/model/modeltest"
)

const (
	metaPath     = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePath = "k8s.io/apimachinery/pkg/api/resource"
	hubPath      = "example.com/shop/apis/db"
)

func float(v float64) *float64 { return &v }
func str(s string) *string     { return &s }
func int64p(v int64) *int64    { return &v }

// externalTypes builds the external types the fixture reaches, keyed by TypeName.String().
func externalTypes() map[string]*model.Type {
	timeType := modeltest.Struct(metaPath, "Time", "Time is a wrapper around time.Time.")
	timeType.Methods = map[string]bool{"UnmarshalJSON": true, "OpenAPISchemaType": true, "OpenAPISchemaFormat": true,
		"OpenAPIModelName": true}
	quantity := modeltest.Struct(resourcePath, "Quantity", "Quantity is a fixed-point representation of a number.")
	typeMeta := modeltest.Struct(metaPath, "TypeMeta", "TypeMeta describes an individual object.",
		modeltest.Field("Kind", "kind", modeltest.Basic("string"), "Kind is a string value.", model.Markers{Optional: true}),
		modeltest.Field("APIVersion", "apiVersion", modeltest.Basic("string"), "APIVersion defines the versioned schema.", model.Markers{Optional: true}))
	objectMeta := modeltest.Struct(metaPath, "ObjectMeta", "ObjectMeta is metadata that all persisted resources must have.",
		modeltest.Field("Name", "name", modeltest.Basic("string"), "Name must be unique within a namespace.", model.Markers{Optional: true}),
		modeltest.Field("CreationTimestamp", "creationTimestamp", modeltest.Named(timeType), "", model.Markers{Optional: true}),
		modeltest.Field("Labels", "labels", modeltest.Map(modeltest.Basic("string"), modeltest.Basic("string")), "", model.Markers{Optional: true}))
	objectMeta.Methods = map[string]bool{"OpenAPIModelName": true}
	listMeta := modeltest.Struct(metaPath, "ListMeta", "ListMeta describes metadata of lists.",
		modeltest.Field("ResourceVersion", "resourceVersion", modeltest.Basic("string"), "", model.Markers{Optional: true}))
	condition := modeltest.Struct(metaPath, "Condition", "Condition contains details for one aspect of the current state.",
		modeltest.Field("Type", "type", modeltest.Basic("string"), "type of condition.", model.Markers{}),
		modeltest.Field("LastTransitionTime", "lastTransitionTime", modeltest.Named(timeType), "", model.Markers{}))
	status := modeltest.Struct(metaPath, "Status", "Status is a return value for calls that don't return other objects.",
		modeltest.Embedded(typeMeta, ""), modeltest.Embedded(listMeta, "metadata"),
		modeltest.Field("Code", "code", modeltest.Basic("int32"), "Suggested HTTP return code.", model.Markers{Optional: true}))
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
	engine := &model.Type{Name: model.TypeName{Package: p, Name: "Engine"}, Kind: model.Basic, Underlying: modeltest.Basic("string"),
		Doc: "Engine is a database engine.", Markers: model.Markers{Validation: model.Validation{Enum: []string{`"postgres"`, `"mysql"`}}}}
	policy := modeltest.Struct(p, "BackupPolicy", "BackupPolicy says when backups are taken.",
		modeltest.Field("Schedule", "schedule", modeltest.Basic("string"), "Schedule is a cron expression.", model.Markers{Optional: true}),
		modeltest.Field("RetentionDays", "retentionDays", modeltest.Basic("int32"), "", model.Markers{Optional: true, Default: str("7"),
			Validation: model.Validation{Minimum: float(1), MultipleOf: float(7)}}))
	spec := modeltest.Struct(p, "DatabaseSpec", "DatabaseSpec is the desired state of a Database.",
		modeltest.Field("Engine", "engine", modeltest.Named(engine), "Engine is the database engine.", model.Markers{Required: true,
			Validation: model.Validation{Rules: []model.ValidationRule{{Rule: "self == oldSelf", Message: "engine is immutable", Reason: "FieldValueInvalid"}}}}),
		modeltest.Field("Version", "version", modeltest.Basic("string"), "Version is the engine version,\ne.g. \"16.2\".", model.Markers{Optional: true,
			Validation: model.Validation{Pattern: `^[0-9]+(\.[0-9]+)*$`, MaxLength: func() *int64 { v := int64(16); return &v }()}}),
		modeltest.Field("Replicas", "replicas", modeltest.Ptr(modeltest.Basic("int32")), "", model.Markers{Optional: true, Default: str("1"),
			Validation: model.Validation{Minimum: float(0), Maximum: float(9)}}),
		modeltest.Field("Storage", "storage", modeltest.Named(types[resourcePath+".Quantity"]), "", model.Markers{Optional: true, Default: str(`"10Gi"`)}),
		modeltest.Field("Parameters", "parameters", modeltest.Map(modeltest.Basic("string"), modeltest.Basic("string")), "", model.Markers{Optional: true,
			Validation: model.Validation{MinProperties: int64p(1), MaxProperties: int64p(64)}}),
		modeltest.Field("Backup", "backup", modeltest.Ptr(modeltest.Named(policy)), "", model.Markers{Optional: true}),
		modeltest.Field("Data", "data", modeltest.Slice(modeltest.Basic("byte")), "", model.Markers{Optional: true}),
		modeltest.Field("Internal", "-", modeltest.Basic("string"), "", model.Markers{}))
	spec.Markers.Validation.Rules = []model.ValidationRule{{Rule: "!has(self.backup) || self.replicas > 0",
		Message: "backups need a replica", Reason: "FieldValueForbidden", FieldPath: ".backup", OptionalOldSelf: true}}
	status := modeltest.Struct(p, "DatabaseStatus", "DatabaseStatus is the observed state of a Database.",
		modeltest.Field("ReadyReplicas", "readyReplicas", modeltest.Basic("int32"), "", model.Markers{Optional: true}),
		modeltest.Field("Conditions", "conditions", modeltest.Slice(modeltest.Named(meta(types, "Condition"))), "", model.Markers{Optional: true,
			ListType: "map", ListMapKey: []string{"type"}}))
	database := modeltest.Struct(p, "Database", "Database is a managed database instance.\n\nIt is served.",
		modeltest.Embedded(meta(types, "TypeMeta"), ""), modeltest.Embedded(meta(types, "ObjectMeta"), "metadata"),
		modeltest.Field("Spec", "spec", modeltest.Named(spec), "", model.Markers{}), modeltest.Field("Status", "status", modeltest.Named(status), "", model.Markers{Optional: true}))
	list := modeltest.Struct(p, "DatabaseList", "DatabaseList is a list of Databases.",
		modeltest.Embedded(meta(types, "TypeMeta"), ""), modeltest.Embedded(meta(types, "ListMeta"), "metadata"),
		modeltest.Field("Items", "items", modeltest.Slice(modeltest.Named(database)), "", model.Markers{}))
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
