package crd

import (
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	metaPath  = "k8s.io/apimachinery/pkg/apis/meta/v1"
	hubPath   = "example.com/shop/apis/db"
	fixtureCR = "/src/example.com/shop/config/crd"
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

// field is a struct field; an optional one (+optional) has omitempty.
func field(name, json string, typ *model.TypeRef, doc string, m model.Markers) *model.Field {
	f := &model.Field{Name: name, JSONName: json, OmitEmpty: m.Optional, Type: typ, Doc: doc, Markers: m}
	f.Required = m.Required || !m.Optional && f.DefaultRequired() // as the loader decides it
	return f
}

func embedded(t *model.Type, json string) *model.Field {
	return &model.Field{Name: t.Name.Name, JSONName: json, Inline: json == "", Embedded: true, OmitEmpty: json != "", Type: named(t)}
}

func structType(pkg, name, doc string, fields ...*model.Field) *model.Type {
	return &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: model.Struct, Doc: doc, Fields: fields}
}

func stringType(pkg, name, doc string, m model.Markers) *model.Type {
	return &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: model.Basic, Underlying: basic("string"), Doc: doc, Markers: m}
}

// externalTypes builds the apimachinery types the fixture reaches, keyed by TypeName.String().
func externalTypes() map[string]*model.Type {
	timeType := structType(metaPath, "Time", "Time is a wrapper around time.Time.")
	quantity := structType("k8s.io/apimachinery/pkg/api/resource", "Quantity", "Quantity is a fixed-point number.")
	intOrString := structType("k8s.io/apimachinery/pkg/util/intstr", "IntOrString", "IntOrString holds an int or a string.")
	raw := structType("k8s.io/apimachinery/pkg/runtime", "RawExtension", "RawExtension holds any object.")
	duration := structType(metaPath, "Duration", "Duration wraps time.Duration.")
	typeMeta := structType(metaPath, "TypeMeta", "TypeMeta describes an individual object.",
		field("Kind", "kind", basic("string"), "Kind is a string value representing the REST resource.", model.Markers{Optional: true}),
		field("APIVersion", "apiVersion", basic("string"), "APIVersion defines the versioned schema.", model.Markers{Optional: true}))
	objectMeta := structType(metaPath, "ObjectMeta", "ObjectMeta is metadata that all persisted resources must have.",
		field("Name", "name", basic("string"), "Name must be unique within a namespace.", model.Markers{Optional: true}))
	listMeta := structType(metaPath, "ListMeta", "ListMeta describes metadata of lists.",
		field("ResourceVersion", "resourceVersion", basic("string"), "", model.Markers{Optional: true}))
	condition := structType(metaPath, "Condition", "Condition contains details for one aspect of the current state.",
		field("Type", "type", basic("string"), "type of condition in CamelCase.", model.Markers{Required: true,
			Validation: model.Validation{MaxLength: int64p(316)}}),
		field("Status", "status", basic("string"), "status of the condition.", model.Markers{Required: true,
			Validation: model.Validation{Enum: []string{`"True"`, `"False"`, `"Unknown"`}}}),
		field("LastTransitionTime", "lastTransitionTime", named(timeType), "lastTransitionTime is the last time the condition\ntransitioned.", model.Markers{Required: true}))
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
	policy := structType(p, "BackupPolicy", "BackupPolicy says when backups are taken.\n---\nInternal notes.",
		field("Schedule", "schedule", basic("string"), "Schedule is a cron expression.", model.Markers{Optional: true}),
		field("RetentionDays", "retentionDays", basic("int32"), "", model.Markers{Optional: true, Default: str("7"),
			Validation: model.Validation{Minimum: float(1), ExclusiveMinimum: true, MultipleOf: float(7)}}))
	policy.Markers.Validation.Rules = []model.ValidationRule{{Rule: "(has(self.schedule)?1:0) == 1", Message: "exactly one of the fields in [schedule] must be set"}}
	common := structType(p, "CommonSpec", "CommonSpec is shared by kinds.",
		field("Paused", "paused", basic("bool"), "Paused stops reconciliation.", model.Markers{Optional: true}))
	tool := structType(p, "Tool", "", field("Slot", "slot", basic("int32"), "", model.Markers{}),
		field("Name", "name", named(label), "", model.Markers{}))
	spec := structType(p, "DatabaseSpec", "DatabaseSpec is the desired state of a Database.",
		embedded(common, ""),
		field("Engine", "engine", named(engine), "Engine is the database engine.", model.Markers{Required: true,
			Validation: model.Validation{Immutable: true, Rules: []model.ValidationRule{{Rule: "self != 'oracle'", MessageExpression: "'no ' + self",
				Reason: "FieldValueForbidden", FieldPath: ".engine"}}}}),
		field("Version", "version", basic("string"), "Version is the engine version,\ne.g. \"16.2\".", model.Markers{Optional: true,
			Validation: model.Validation{Pattern: `^[0-9]+(\.[0-9]+)*$`, MaxLength: int64p(16), Immutable: true}}),
		field("Replicas", "replicas", ptr(basic("int32")), "", model.Markers{Optional: true, Default: str("1"),
			Validation: model.Validation{Minimum: float(0), Maximum: float(9), ExclusiveMaximum: true}}),
		field("Ratio", "ratio", basic("float64"), "Ratio is a float.", model.Markers{Optional: true, Validation: model.Validation{Nullable: true}}),
		field("Storage", "storage", named(external(types, "k8s.io/apimachinery/pkg/api/resource", "Quantity")), "", model.Markers{Optional: true, Default: str(`"10Gi"`)}),
		field("Port", "port", named(external(types, "k8s.io/apimachinery/pkg/util/intstr", "IntOrString")), "Port is a number or a name.", model.Markers{Optional: true}),
		field("Timeout", "timeout", ptr(named(meta(types, "Duration"))), "", model.Markers{Optional: true}),
		field("Config", "config", named(external(types, "k8s.io/apimachinery/pkg/runtime", "RawExtension")), "Config is free-form.", model.Markers{Optional: true}),
		field("Parameters", "parameters", mapOf(basic("string"), basic("string")), "", model.Markers{Optional: true, MapType: "atomic",
			Validation: model.Validation{MinProperties: int64p(1), MaxProperties: int64p(64)}}),
		field("Labels", "labels", slice(named(label)), "Labels name the database.", model.Markers{Optional: true, ListType: "set",
			Validation: model.Validation{MaxItems: int64p(8), UniqueItems: true, Items: &model.Validation{MinLength: int64p(2)}}}),
		field("Host", "host", named(hostLabel), "Host is a label of the host.", model.Markers{Optional: true,
			Validation: model.Validation{MaxLength: int64p(32)}}),
		field("Tools", "tools", slice(named(tool)), "", model.Markers{Optional: true, ListType: "map", ListMapKey: []string{"slot"}}),
		field("Backup", "backup", ptr(named(policy)), "", model.Markers{Optional: true, StructType: "atomic"}),
		field("Data", "data", slice(basic("byte")), "", model.Markers{Optional: true}),
		field("Tags", "tags", slice(basic("string")), "", model.Markers{Optional: true, Default: str("[]")}),
		field("Extra", "extra", mapOf(basic("string"), basic("int64")), "", model.Markers{Optional: true, Default: str("{}")}),
		field("Any", "any", &model.TypeRef{Kind: model.Interface}, "Any is any JSON value.", model.Markers{Optional: true}),
		field("Internal", "-", basic("string"), "", model.Markers{}))
	spec.Fields[1].Pos = at(20)
	status := structType(p, "DatabaseStatus", "DatabaseStatus is the observed state of a Database.",
		field("ReadyReplicas", "readyReplicas", basic("int32"), "", model.Markers{Optional: true}),
		field("Selector", "selector", basic("string"), "", model.Markers{Optional: true}),
		field("Conditions", "conditions", slice(named(meta(types, "Condition"))), "", model.Markers{Optional: true,
			ListType: "map", ListMapKey: []string{"type"}}))
	database := structType(p, "Database", "Database is a managed database instance.\n\nIt is served.",
		embedded(meta(types, "TypeMeta"), ""), embedded(meta(types, "ObjectMeta"), "metadata"),
		field("Spec", "spec", named(spec), "", model.Markers{}), field("Status", "status", named(status), "", model.Markers{Optional: true}))
	database.Markers = model.Markers{Root: true, CRDAnnotations: []string{"example.com/owner=shop", "example.com/tier=gold"},
		CRDLabels: []string{"app=shop"}, UnservedVersion: alpha}
	backupSpec := structType(p, "BackupSpec", "BackupSpec says what to back up.",
		field("Database", "database", basic("string"), "Database is the name of the database.", model.Markers{}))
	backup := structType(p, "Backup", "Backup is one backup of a Database.",
		embedded(meta(types, "TypeMeta"), ""), embedded(meta(types, "ObjectMeta"), "metadata"),
		field("Spec", "spec", named(backupSpec), "", model.Markers{}))
	backup.Markers = model.Markers{Root: true, DeprecatedVersion: alpha}
	if alpha {
		backup.Markers.DeprecationText = str("db.example.com/v1alpha1 Backup is going away")
	}
	list := func(kind *model.Type) *model.Type {
		return structType(p, kind.Name.Name+"List", "", embedded(meta(types, "TypeMeta"), ""), embedded(meta(types, "ListMeta"), "metadata"),
			field("Items", "items", slice(named(kind)), "", model.Markers{}))
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
