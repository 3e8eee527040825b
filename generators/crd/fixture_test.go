package crd

import (
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/model/modeltest"
)

const (
	metaPath  = "k8s.io/apimachinery/pkg/apis/meta/v1"
	hubPath   = "example.com/shop/apis/db"
	fixtureCR = "/src/example.com/shop/config/crd"
)

func float(v float64) *float64 { return &v }
func str(s string) *string     { return &s }
func int64p(v int64) *int64    { return &v }

func stringType(pkg, name, doc string, m model.Markers) *model.Type {
	return &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: model.Basic, Underlying: modeltest.Basic("string"), Doc: doc, Markers: m}
}

// externalTypes builds the apimachinery types the fixture reaches, keyed by TypeName.String().
func externalTypes() map[string]*model.Type {
	timeType := modeltest.Struct(metaPath, "Time", "Time is a wrapper around time.Time.")
	quantity := modeltest.Struct("k8s.io/apimachinery/pkg/api/resource", "Quantity", "Quantity is a fixed-point number.")
	intOrString := modeltest.Struct("k8s.io/apimachinery/pkg/util/intstr", "IntOrString", "IntOrString holds an int or a string.")
	raw := modeltest.Struct("k8s.io/apimachinery/pkg/runtime", "RawExtension", "RawExtension holds any object.")
	duration := modeltest.Struct(metaPath, "Duration", "Duration wraps time.Duration.")
	typeMeta := modeltest.Struct(metaPath, "TypeMeta", "TypeMeta describes an individual object.",
		modeltest.Field("Kind", "kind", modeltest.Basic("string"), "Kind is a string value representing the REST resource.", model.Markers{Optional: true}),
		modeltest.Field("APIVersion", "apiVersion", modeltest.Basic("string"), "APIVersion defines the versioned schema.", model.Markers{Optional: true}))
	objectMeta := modeltest.Struct(metaPath, "ObjectMeta", "ObjectMeta is metadata that all persisted resources must have.",
		modeltest.Field("Name", "name", modeltest.Basic("string"), "Name must be unique within a namespace.", model.Markers{Optional: true}))
	listMeta := modeltest.Struct(metaPath, "ListMeta", "ListMeta describes metadata of lists.",
		modeltest.Field("ResourceVersion", "resourceVersion", modeltest.Basic("string"), "", model.Markers{Optional: true}))
	condition := modeltest.Struct(metaPath, "Condition", "Condition contains details for one aspect of the current state.",
		modeltest.Field("Type", "type", modeltest.Basic("string"), "type of condition in CamelCase.", model.Markers{Required: true,
			Validation: model.Validation{MaxLength: int64p(316)}}),
		modeltest.Field("Status", "status", modeltest.Basic("string"), "status of the condition.", model.Markers{Required: true,
			Validation: model.Validation{Enum: []string{`"True"`, `"False"`, `"Unknown"`}}}),
		modeltest.Field("LastTransitionTime", "lastTransitionTime", modeltest.Named(timeType), "lastTransitionTime is the last time the condition\ntransitioned.", model.Markers{Required: true}))
	types := map[string]*model.Type{}
	for _, t := range []*model.Type{timeType, quantity, intOrString, raw, duration, typeMeta, objectMeta, listMeta, condition} {
		types[t.Name.String()] = t
	}
	return types
}

func meta(types map[string]*model.Type, name string) *model.Type {
	return types[model.TypeName{Package: metaPath, Name: name}.String()]
}

func external(types map[string]*model.Type, pkg, name string) *model.Type {
	return types[model.TypeName{Package: pkg, Name: name}.String()]
}

// versionPackage builds one version of the fixture group: a namespaced Database with every
// kind of field and marker the generator maps, and a cluster-scoped Backup; alpha makes it
// the older version, in which Backup is deprecated and Database is not served.
func versionPackage(types map[string]*model.Type, name string, alpha bool) *model.Version {
	p := hubPath + "/" + name
	at := func(line int) model.Position {
		return model.Position{File: "apis/db/" + name + "/types.go", Line: line}
	}
	engine := stringType(p, "Engine", "Engine is a database engine.", model.Markers{EnumMarker: "k8s:enum",
		Validation: model.Validation{Enum: []string{`"postgres"`, `"mysql"`}}})
	engine.EnumValues = []string{`"postgres"`, `"mysql"`}
	label := stringType(p, "Label", "Label is a short name.\n\n\nTODO: widen it.\nIt is lower case.", model.Markers{
		Validation: model.Validation{MaxLength: int64p(63), Pattern: `^[a-z]+$`}})
	hostLabel := stringType(p, "HostLabel", "", model.Markers{Validation: model.Validation{MinLength: int64p(1)}})
	hostLabel.DefinedFrom = label
	policy := modeltest.Struct(p, "BackupPolicy", "BackupPolicy says when backups are taken.\n---\nInternal notes.",
		modeltest.Field("Schedule", "schedule", modeltest.Basic("string"), "Schedule is a cron expression.", model.Markers{Optional: true}),
		modeltest.Field("RetentionDays", "retentionDays", modeltest.Basic("int32"), "", model.Markers{Optional: true, Default: str("7"),
			Validation: model.Validation{Minimum: float(1), ExclusiveMinimum: true, MultipleOf: float(7)}}))
	policy.Markers.Validation.Rules = []model.ValidationRule{{Rule: "(has(self.schedule)?1:0) == 1", Message: "exactly one of the fields in [schedule] must be set"}}
	common := modeltest.Struct(p, "CommonSpec", "CommonSpec is shared by kinds.",
		modeltest.Field("Paused", "paused", modeltest.Basic("bool"), "Paused stops reconciliation.", model.Markers{Optional: true}))
	tool := modeltest.Struct(p, "Tool", "", modeltest.Field("Slot", "slot", modeltest.Basic("int32"), "", model.Markers{}),
		modeltest.Field("Name", "name", modeltest.Named(label), "", model.Markers{}))
	spec := modeltest.Struct(p, "DatabaseSpec", "DatabaseSpec is the desired state of a Database.",
		modeltest.Embedded(common, ""),
		modeltest.Field("Engine", "engine", modeltest.Named(engine), "Engine is the database engine.", model.Markers{Required: true,
			Validation: model.Validation{Immutable: true, Rules: []model.ValidationRule{{Rule: "self != 'oracle'", MessageExpression: "'no ' + self",
				Reason: "FieldValueForbidden", FieldPath: ".engine"}}}}),
		modeltest.Field("Version", "version", modeltest.Basic("string"), "Version is the engine version,\ne.g. \"16.2\".", model.Markers{Optional: true,
			Validation: model.Validation{Pattern: `^[0-9]+(\.[0-9]+)*$`, MaxLength: int64p(16), Immutable: true}}),
		modeltest.Field("Replicas", "replicas", modeltest.Ptr(modeltest.Basic("int32")), "", model.Markers{Optional: true, Default: str("1"),
			Validation: model.Validation{Minimum: float(0), Maximum: float(9), ExclusiveMaximum: true}}),
		modeltest.Field("Ratio", "ratio", modeltest.Basic("float64"), "Ratio is a float.", model.Markers{Optional: true, Validation: model.Validation{Nullable: true}}),
		modeltest.Field("Storage", "storage", modeltest.Named(external(types, "k8s.io/apimachinery/pkg/api/resource", "Quantity")), "", model.Markers{Optional: true, Default: str(`"10Gi"`)}),
		modeltest.Field("Port", "port", modeltest.Named(external(types, "k8s.io/apimachinery/pkg/util/intstr", "IntOrString")), "Port is a number or a name.", model.Markers{Optional: true}),
		modeltest.Field("Timeout", "timeout", modeltest.Ptr(modeltest.Named(meta(types, "Duration"))), "", model.Markers{Optional: true}),
		modeltest.Field("Config", "config", modeltest.Named(external(types, "k8s.io/apimachinery/pkg/runtime", "RawExtension")), "Config is free-form.", model.Markers{Optional: true}),
		modeltest.Field("Parameters", "parameters", modeltest.Map(modeltest.Basic("string"), modeltest.Basic("string")), "", model.Markers{Optional: true, MapType: "atomic",
			Validation: model.Validation{MinProperties: int64p(1), MaxProperties: int64p(64)}}),
		modeltest.Field("Labels", "labels", modeltest.Slice(modeltest.Named(label)), "Labels name the database.", model.Markers{Optional: true, ListType: "set",
			Validation: model.Validation{MaxItems: int64p(8), UniqueItems: true, Items: &model.Validation{MinLength: int64p(2)}}}),
		modeltest.Field("Host", "host", modeltest.Named(hostLabel), "Host is a label of the host.", model.Markers{Optional: true,
			Validation: model.Validation{MaxLength: int64p(32)}}),
		modeltest.Field("Tools", "tools", modeltest.Slice(modeltest.Named(tool)), "", model.Markers{Optional: true, ListType: "map", ListMapKey: []string{"slot"}}),
		modeltest.Field("Backup", "backup", modeltest.Ptr(modeltest.Named(policy)), "", model.Markers{Optional: true, StructType: "atomic"}),
		modeltest.Field("Data", "data", modeltest.Slice(modeltest.Basic("byte")), "", model.Markers{Optional: true}),
		modeltest.Field("Tags", "tags", modeltest.Slice(modeltest.Basic("string")), "", model.Markers{Optional: true, Default: str("[]")}),
		modeltest.Field("Extra", "extra", modeltest.Map(modeltest.Basic("string"), modeltest.Basic("int64")), "", model.Markers{Optional: true, Default: str("{}")}),
		modeltest.Field("Any", "any", &model.TypeRef{Kind: model.Interface}, "Any is any JSON value.", model.Markers{Optional: true}),
		modeltest.Field("Internal", "-", modeltest.Basic("string"), "", model.Markers{}))
	spec.Fields[1].Pos = at(20)
	status := modeltest.Struct(p, "DatabaseStatus", "DatabaseStatus is the observed state of a Database.",
		modeltest.Field("ReadyReplicas", "readyReplicas", modeltest.Basic("int32"), "", model.Markers{Optional: true}),
		modeltest.Field("Selector", "selector", modeltest.Basic("string"), "", model.Markers{Optional: true}),
		modeltest.Field("Conditions", "conditions", modeltest.Slice(modeltest.Named(meta(types, "Condition"))), "", model.Markers{Optional: true,
			ListType: "map", ListMapKey: []string{"type"}}))
	database := modeltest.Struct(p, "Database", "Database is a managed database instance.\n\nIt is served.",
		modeltest.Embedded(meta(types, "TypeMeta"), ""), modeltest.Embedded(meta(types, "ObjectMeta"), "metadata"),
		modeltest.Field("Spec", "spec", modeltest.Named(spec), "", model.Markers{}), modeltest.Field("Status", "status", modeltest.Named(status), "", model.Markers{Optional: true}))
	database.Markers = model.Markers{Root: true, CRDAnnotations: []string{"example.com/owner=shop", "example.com/tier=gold"},
		CRDLabels: []string{"app=shop"}, UnservedVersion: alpha}
	backupSpec := modeltest.Struct(p, "BackupSpec", "BackupSpec says what to back up.",
		modeltest.Field("Database", "database", modeltest.Basic("string"), "Database is the name of the database.", model.Markers{}))
	backup := modeltest.Struct(p, "Backup", "Backup is one backup of a Database.",
		modeltest.Embedded(meta(types, "TypeMeta"), ""), modeltest.Embedded(meta(types, "ObjectMeta"), "metadata"),
		modeltest.Field("Spec", "spec", modeltest.Named(backupSpec), "", model.Markers{}))
	backup.Markers = model.Markers{Root: true, DeprecatedVersion: alpha}
	if alpha {
		backup.Markers.DeprecationText = str("db.example.com/v1alpha1 Backup is going away")
	}
	list := func(kind *model.Type) *model.Type {
		return modeltest.Struct(p, kind.Name.Name+"List", "", modeltest.Embedded(meta(types, "TypeMeta"), ""), modeltest.Embedded(meta(types, "ListMeta"), "metadata"),
			modeltest.Field("Items", "items", modeltest.Slice(modeltest.Named(kind)), "", model.Markers{}))
	}
	dbList, backupList := list(database), list(backup)
	pkg := &model.Package{Path: p, Dir: "/src/" + p, Name: name}
	for _, t := range []*model.Type{backup, backupList, backupSpec, policy, common, database, dbList, spec, status, engine, hostLabel, label, tool} {
		t.Local = true
		pkg.Types = append(pkg.Types, t)
		types[t.Name.String()] = t
	}
	db := &model.Kind{Name: "Database", Type: database, List: dbList, Plural: "databases", Singular: "database",
		ShortNames: []string{"db"}, Categories: []string{"all"}, Namespaced: true, StatusSubresource: true, Unserved: alpha,
		Scale:            &model.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.readyReplicas", LabelSelectorPath: ".status.selector"},
		PrinterColumns:   []model.PrinterColumn{{Name: "Engine", Type: "string", JSONPath: ".spec.engine"}, {Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp", Priority: 1, Description: "Age of the database."}},
		SelectableFields: []string{".spec.engine"}, Pos: at(40)}
	bk := &model.Kind{Name: "Backup", Type: backup, List: backupList, Plural: "backups", Singular: "backup", Pos: at(60),
		PrinterColumns: []model.PrinterColumn{{Name: "Database", Type: "string", JSONPath: ".spec.database"}}}
	if alpha {
		bk.DeprecationWarning = *backup.Markers.DeprecationText
	}
	return &model.Version{Name: name, Package: pkg, Kinds: []*model.Kind{bk, db}}
}

// testAPI is the group db.example.com with a hub and versions v1 and v1alpha1, stored in v1.
func testAPI() *model.API {
	types := externalTypes()
	hub := &model.Package{Path: hubPath, Dir: "/src/" + hubPath, Name: "db"}
	g := &model.Group{Name: "db.example.com", Hub: hub,
		Versions:    []*model.Version{versionPackage(types, "v1", false), versionPackage(types, "v1alpha1", true)},
		InstallPath: hubPath + "/install", InstallDir: "/src/" + hubPath + "/install", CRDDir: fixtureCR}
	g.StorageVersion = g.Versions[0]
	return &model.API{Groups: []*model.Group{g}, Types: types,
		Packages: []*model.Package{hub, g.Versions[0].Package, g.Versions[1].Package}}
}
