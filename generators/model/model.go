package model

import (
	"fmt"
	"slices"
)

// API is everything one `apigen generate` run sees: the API groups found under the
// patterns it was given and every named type reachable from them.
type API struct {
	// Groups are sorted by Name.
	Groups []*Group
	// Types holds every named type the groups reach, local and external (metav1.ObjectMeta,
	// resource.Quantity, ...), keyed by TypeName.String().
	Types map[string]*Type
	// Packages holds every loaded API package (hub and versions), sorted by Path.
	Packages []*Package
	// Matched is how many packages the load's patterns matched, API packages or not.
	Matched int
}

// Group is one API group, e.g. db.example.com.
type Group struct {
	// Name is the group name from the +groupName marker, e.g. "db.example.com".
	Name string
	// Hub is the internal ("hub") package apis/<group>/, which holds every kind of the group
	// as the server keeps it. A group without an internal package has HubIsVersion set: its
	// versions' types are served as they are, each kind held in the types of its hub version
	// (HubOf), and Hub is the package of its most preferred version (Versions[0]), below
	// which the install package goes.
	Hub          *Package
	HubIsVersion bool
	// Versions are sorted by Kubernetes version priority, most preferred first
	// (v1 > v1beta2 > v1beta1 > v1alpha1), as apimachinery's version.CompareKubeAwareVersionStrings.
	Versions []*Version
	// StorageVersion is the most preferred version that some kind is stored in. Each kind has
	// its own storage version, as each CRD has (StorageVersionOf): generators ask for that.
	StorageVersion *Version
	// InstallPath is the import path of the generated install package (<hub path>/install) and
	// InstallDir its directory; generators/install writes there.
	InstallPath string
	InstallDir  string
	// HandInstall is the hand-written part of the install package, as Kubernetes' and
	// k8s.io/sample-apiserver's pkg/apis/<group>/install/install.go: the non-test Go files of
	// InstallDir that are not zz_generated.*, with Path, Dir and Name set and the names they
	// declare in Funcs, Vars and TypeNames (no Types, Markers or Imports). The generated files
	// of the package declare none of those names again: a hand-written
	// `func Install(scheme *runtime.Scheme)` is adopted (AdoptsInstall) and any other clash is an
	// error at the hand-written declaration. Nil when there is no such file.
	HandInstall *Package
	// Validation is the group's hand-written validation package, <hub path>/validation, as
	// Kubernetes' and sample-apiserver's pkg/apis/<group>/validation, for a group with an
	// internal package (the functions take its types). Its Funcs hold only the functions the
	// generated strategies call, their signatures checked by the loader:
	// Validate<Kind>(obj *<hub>.<Kind>) field.ErrorList and
	// Validate<Kind>Update(obj, old *<hub>.<Kind>) field.ErrorList for the group's kinds, each
	// possibly with a leading ctx context.Context (ValidationTakesContext).
	// Nil when the group has no such package or it declares none of them.
	Validation *Package
	// ValidationTakesContext names the functions of Validation whose first parameter is a
	// context.Context, as apiextensions-apiserver's ValidateCustomResourceDefinition(ctx, obj):
	// the strategies pass them the request's context.
	ValidationTakesContext map[string]bool
	// Fuzzer is the group's hand-written fuzzer package, <hub path>/fuzzer, as Kubernetes'
	// pkg/apis/<group>/fuzzer: its Funcs (a function or variable named Funcs, of
	// apimachinery's fuzzer.FuzzerFuncs type, func(codecs serializer.CodecFactory) []interface{})
	// keep the objects the generated round-trip test fills within what every version can
	// represent. Path, Dir, Name and Funcs or Vars (holding Funcs) are set. Nil when the group
	// has no such package or it declares no Funcs.
	Fuzzer *Package
	// ClientPath is the import path of the tree generated clients go to (<root>/pkg/generated,
	// root being the parent of the apis directory: example-api/pkg/generated) and ClientDir its
	// directory; the clientset, listers, informers and applyconfiguration generators write
	// below it, one clientset for all groups of one root.
	ClientPath string
	ClientDir  string
	// CRDDir is the directory the group's CustomResourceDefinitions go to, <root>/config/crd
	// with the same root as ClientDir (example-api/config/crd); generators/crd writes
	// <group>_<plural>.yaml files there, as controller-gen names them.
	CRDDir string
	// SamplesDir is the directory generators/samples writes the group's sample objects to,
	// <root>/config/samples/generated, as <group>_<version>_<kind>.yaml: apart from the
	// samples a user keeps in config/samples, which kubectl apply -f config/samples/ reads.
	SamplesDir string
	// ClientPackageName is the group's package name in generated clients ("db" for
	// db.example.com: typed/db/v1) and ClientGoName its Go name ("Db": DbV1()), as client-gen
	// names them (+groupGoName overrides the Go name).
	ClientPackageName string
	ClientGoName      string
}

// DisplayName is the group's name in generated doc comments: Name, or "core" for Kubernetes'
// legacy group, whose name is empty.
func (g *Group) DisplayName() string {
	if g.Name == "" {
		return "core"
	}
	return g.Name
}

// KindNames returns the names of the kinds of every version of g, each once, sorted.
func (g *Group) KindNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if !seen[k.Name] {
				seen[k.Name] = true
				names = append(names, k.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// StorageVersionOf returns the version objects of the kind called name are written to etcd
// in: the version whose kind has Storage set (the loader sets it on exactly one: the version
// marked +kubebuilder:storageversion, else the most preferred version that has the kind);
// in a model where no version's kind has it, StorageVersion when it has the kind, else the
// most preferred version that has it. It returns nil when no version has the kind.
func (g *Group) StorageVersionOf(name string) *Version {
	var first *Version
	for _, v := range g.Versions {
		k := v.Kind(name)
		if k == nil {
			continue
		}
		if k.Storage {
			return v
		}
		if first == nil {
			first = v
		}
	}
	if g.StorageVersion != nil && g.StorageVersion.Kind(name) != nil {
		return g.StorageVersion
	}
	return first
}

// HubOf returns, for a group without an internal package (HubIsVersion), the version whose
// types of the kind called name the server holds: requests in other versions are converted
// to it, and its package's Validate<Kind> hooks are called. It is the version whose root type
// of the kind has a Hub method (kubebuilder's conversion.Hub marks the hub of a kind), else
// the kind's storage version (StorageVersionOf), so that writes store without a conversion.
// It returns nil for a group with an internal package, which holds every kind, and for a
// kind no version has.
func (g *Group) HubOf(name string) *Version {
	if !g.HubIsVersion {
		return nil
	}
	for _, v := range g.Versions {
		if k := v.Kind(name); k != nil && k.Type != nil && k.Type.HasMethod("Hub") {
			return v
		}
	}
	return g.StorageVersionOf(name)
}

// ObjectPackage returns the package whose types of the kind called name the server holds:
// Hub for a group with an internal package, else the package of HubOf(name) (nil when no
// version has the kind).
func (g *Group) ObjectPackage(name string) *Package {
	if !g.HubIsVersion {
		return g.Hub
	}
	if v := g.HubOf(name); v != nil {
		return v.Package
	}
	return nil
}

// AdoptsInstall reports whether the hand-written part of the install package declares
// Install: the generated NewAPIGroupInfo then calls it instead of a generated Install. The
// loader reports an Install without the signature of Kubernetes' install packages,
// func Install(scheme *runtime.Scheme), as an error.
func (g *Group) AdoptsInstall() bool {
	return g.HandInstall != nil && g.HandInstall.HasFunc("Install")
}

// HasClients reports whether any kind of any version of g has a generated client.
func (g *Group) HasClients() bool {
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if k.Client != nil {
				return true
			}
		}
	}
	return false
}

// Version is one served version of a group, e.g. v1 of db.example.com.
type Version struct {
	// Name is the version string, e.g. "v1alpha1".
	Name    string
	Package *Package
	// Kinds are the root kinds (+kubebuilder:object:root or +genclient with a List type) of
	// this version, sorted by Name.
	Kinds []*Kind
}

// Kind returns the kind called name of v, or nil.
func (v *Version) Kind(name string) *Kind {
	for _, k := range v.Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Package is one loaded Go package holding API types.
type Package struct {
	// Path is the import path, Dir the absolute directory, Name the package name.
	Path string
	Dir  string
	Name string
	// Types are the named types declared in the package, sorted by Name.
	Types []*Type
	// Funcs names every top-level function declared in non-generated files: hand-written
	// hooks such as SetDefaults_Database or Convert_v1alpha1_DatabaseSpec_To_db_DatabaseSpec.
	Funcs map[string]Position
	// Vars names every package-level variable and constant declared in non-generated files
	// (SchemeGroupVersion, SchemeBuilder, GroupVersion, GroupName, ...): hand-written
	// registration that generated files must not declare again.
	Vars map[string]Position
	// TypeNames names every type declared in non-generated files, aliases and types that
	// cannot be API types (Types holds those that can) included: with Funcs and Vars, every
	// package-level identifier a generated file must not declare again.
	TypeNames map[string]Position
	// SchemeBuilderField is the name of the runtime.SchemeBuilder field embedded in the type of
	// the package's hand-written SchemeBuilder variable ("SchemeBuilder" for controller-runtime's
	// *scheme.Builder, which kubebuilder's groupversion_info.go declares). It is empty when
	// SchemeBuilder is a runtime.SchemeBuilder itself, or when Vars has no SchemeBuilder.
	SchemeBuilderField string
	// Markers are the package-level markers (doc.go and detached comments).
	Markers Markers
	// DeepCopyBy names the tool whose zz_generated.deepcopy.go the package keeps:
	// "controller-gen" in a kubebuilder project, whose `make generate` writes that file, so
	// apigen neither writes nor owns it; "" when apigen generates it.
	DeepCopyBy string
	// Imports are the import paths the package's non-generated files import, sorted: a
	// generated file of the package may import only packages that do not import it back.
	Imports []string
}

// Imported reports whether the package's non-generated files import path.
func (p *Package) Imported(path string) bool {
	_, ok := slices.BinarySearch(p.Imports, path)
	return ok
}

// HasFunc reports whether the package declares a top-level function called name.
func (p *Package) HasFunc(name string) bool {
	_, ok := p.Funcs[name]
	return ok
}

// HasVar reports whether the package declares a package-level variable or constant called
// name in a non-generated file.
func (p *Package) HasVar(name string) bool {
	_, ok := p.Vars[name]
	return ok
}

// Declares reports whether the package declares name at package level in a non-generated
// file: a function, variable, constant or type (Gateway API's `type Kind string`). Generated
// files leave such names to the package (DeclaredAt gives the position).
func (p *Package) Declares(name string) bool {
	_, ok := p.DeclaredAt(name)
	return ok
}

// DeclaredAt returns where the package declares name at package level in a non-generated
// file, and whether it does.
func (p *Package) DeclaredAt(name string) (Position, bool) {
	for _, m := range []map[string]Position{p.Funcs, p.Vars, p.TypeNames} {
		if pos, ok := m[name]; ok {
			return pos, true
		}
	}
	return Position{}, false
}

// Type returns the named type called name declared in p, or nil.
func (p *Package) Type(name string) *Type {
	for _, t := range p.Types {
		if t.Name.Name == name {
			return t
		}
	}
	return nil
}

// Kind is a top-level resource type with its list type and REST metadata.
type Kind struct {
	// Name is the kind, e.g. "Database"; Type its struct and List the <Kind>List struct.
	Name string
	Type *Type
	List *Type
	// Plural is the resource name ("databases"); Singular the lower-case kind ("database").
	Plural     string
	Singular   string
	ShortNames []string
	Categories []string
	// Namespaced is false for +genclient:nonNamespaced or +kubebuilder:resource:scope=Cluster.
	Namespaced bool
	// StatusSubresource is set by +kubebuilder:subresource:status (or +genclient with a Status field).
	StatusSubresource bool
	// Scale is set by +kubebuilder:subresource:scale; nil otherwise.
	Scale *Scale
	// PrinterColumns come from +kubebuilder:printcolumn markers, in marker order.
	PrinterColumns []PrinterColumn
	// SelectableFields are the JSON paths of +kubebuilder:selectablefield:JSONPath=... markers
	// (".spec.engine"), in marker order, as a CustomResourceDefinition's selectableFields: field
	// selectors may name them (without the leading dot) besides metadata.name and
	// metadata.namespace. Each names a string, boolean or integer field.
	SelectableFields []string
	// NameValidation is how metadata.name is validated: "" or "DNS1123Subdomain" (the
	// default, as for every Kubernetes kind but a few), "DNS1123Label", or "PathSegment" (any
	// name that is one URL path segment, as RBAC's), from +apigen:nameValidation.
	NameValidation string
	// UserStorage is the level at which the user writes the kind's storage, from
	// +apigen:storage: "" (etcd, the default: the server's storage.Interface on etcd or kine),
	// "interface" (the user's storage.Interface, below the generated Store: validation,
	// defaulting, admission and field management stay generated, as a k8s.io/apiserver
	// StorageDecorator), or "rest" (the user's rest.Storage verbs, as metrics-server's computed
	// resources: the generated code serves discovery, OpenAPI, tables and authorization around
	// them).
	UserStorage string
	// CreateOnly is set by +genclient:onlyVerbs=create, as on Kubernetes' review kinds
	// (SubjectAccessReview, TokenReview): objects are created and answered, never stored;
	// the kind has no list type (List is nil), no status subresource, and is served by a
	// registry.CreateOnlyStore whose response the server computes.
	CreateOnly bool
	// Client is set for a kind marked +genclient (client-gen's rule), or for every served
	// kind under an API root with +apigen:clients=all: apigen generates its typed client,
	// lister, informer and apply configuration. Nil means no client.
	Client *Client
	// Storage is set on the kind of the one version the kind's objects are written to etcd in,
	// as a CRD version's storage: true (see Group.StorageVersionOf).
	Storage bool
	// Unserved is set by +kubebuilder:unservedversion: the kind is registered in this version
	// (objects convert to and from it) but no route serves it here, as a CRD version with
	// served: false.
	Unserved bool
	// DeprecationWarning is set by +kubebuilder:deprecatedversion: every request to the kind in
	// this version gets `Warning: 299 - "<text>"`. It is the marker's warning argument, else
	// apiextensions-apiserver's default ("db.example.com/v1alpha1 Database is deprecated; use
	// db.example.com/v1 Database"). Empty means not deprecated.
	DeprecationWarning string
	// Pos is where the kind's type is declared.
	Pos Position
}

// Client is what client-gen's +genclient tags ask of one kind's typed client (client-gen's
// util.Tags, resolved).
type Client struct {
	// Verbs are the verbs the tags allow, in client-gen's order (create, update, updateStatus,
	// delete, deleteCollection, get, list, watch, patch, apply, applyStatus): every verb, less
	// those of +genclient:skipVerbs, or only those of +genclient:onlyVerbs and
	// +genclient:readonly (get, list, watch). As client-gen's Tags.HasVerb, they do not depend
	// on NoVerbs or HasStatus; MethodVerbs does.
	Verbs []string
	// NoVerbs is +genclient:noVerbs: the client has no methods but its expansion.
	NoVerbs bool
	// HasStatus is client-gen's genStatus: the type has a Status field and no +genclient:noStatus.
	HasStatus bool
	// Limited is true when +genclient:onlyVerbs, skipVerbs, readonly or noVerbs restrict the
	// verbs; the server then serves only the matching verbs (see install's doc).
	Limited bool
	// Methods are the +genclient:method extensions, in marker order.
	Methods []ClientMethod
	// PluralName is the kind's plural in client names (DatabaseClasses() and
	// DatabaseClassesGetter), gengo's public plural namer as client-gen uses it.
	PluralName string
}

// HasVerb reports whether the tags allow verb (a client-gen verb name such as "list"), as
// client-gen's Tags.HasVerb.
func (c *Client) HasVerb(verb string) bool {
	for _, v := range c.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// MethodVerbs are the verbs the typed client has methods for: none with NoVerbs, else Verbs
// without updateStatus and applyStatus when the kind has no status (client-gen's genStatus).
func (c *Client) MethodVerbs() []string {
	if c.NoVerbs {
		return nil
	}
	var out []string
	for _, v := range c.Verbs {
		if !c.HasStatus && (v == "updateStatus" || v == "applyStatus") {
			continue
		}
		out = append(out, v)
	}
	return out
}

// HasMethod reports whether the typed client has the method of verb (see MethodVerbs).
func (c *Client) HasMethod(verb string) bool {
	for _, v := range c.MethodVerbs() {
		if v == verb {
			return true
		}
	}
	return false
}

// ClientMethod is one +genclient:method=Name,verb=...,subresource=...,input=...,result=...
// extension, as client-gen's extension.
type ClientMethod struct {
	// Name is the Go method name ("GetScale"); Verb the client-gen verb it is made like ("get").
	Name string
	Verb string
	// Subresource is the subresource path ("scale"), "" for the resource itself.
	Subresource string
	// Input and Result override the argument and result types: "Scale" (a type of the kind's
	// package) or "k8s.io/api/autoscaling/v1.Scale"; "" means the kind itself.
	Input  string
	Result string
	Pos    Position
}

// Scale is the scale subresource's mapping, as CustomResourceSubresourceScale: JSON paths
// such as ".spec.replicas".
type Scale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  string
}

// PrinterColumn is one additional printer column, as apiextensions' CustomResourceColumnDefinition.
type PrinterColumn struct {
	Name        string
	Type        string // integer, number, string, boolean, date
	Format      string
	Description string
	Priority    int32
	JSONPath    string
}

// TypeName names a Go named type by import path and name.
type TypeName struct {
	Package string // import path, e.g. "k8s.io/apimachinery/pkg/apis/meta/v1"
	Name    string // e.g. "ObjectMeta"
}

// String returns "<package>.<Name>", the key of API.Types and the OpenAPI definition name
// kube-openapi uses ("k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta").
func (n TypeName) String() string { return n.Package + "." + n.Name }

// TypeKind classifies a type's underlying shape.
type TypeKind int

// The shapes a type or type reference can have.
const (
	Basic     TypeKind = iota // bool, string, int32, float64, ... (TypeRef.Basic names it)
	Struct                    // a struct; Type.Fields lists its fields
	Named                     // a reference to a named type (TypeRef.Named)
	Pointer                   // *Elem
	Slice                     // []Elem
	Map                       // map[Key]Elem
	Interface                 // an interface (only interface{} / any is accepted in API types)
	Array                     // [Len]Elem
)

var typeKindNames = [...]string{"Basic", "Struct", "Named", "Pointer", "Slice", "Map", "Interface", "Array"}

// String returns the shape's name ("Struct", "Map", ...).
func (k TypeKind) String() string {
	if int(k) < len(typeKindNames) {
		return typeKindNames[k]
	}
	return fmt.Sprintf("TypeKind(%d)", int(k))
}

// Type is a named Go type: one declared in an API package (Local) or one it reaches in
// another package (metav1.ObjectMeta, resource.Quantity, ...).
type Type struct {
	Name TypeName
	// Kind is Struct, Basic, Slice, Map, Pointer or Array: the shape of the underlying type.
	Kind TypeKind
	// Underlying describes the underlying type when Kind is not Struct (e.g. string for
	// `type Engine string`, []string for `type Names []string`).
	Underlying *TypeRef
	// DefinedFrom is the named type the declaration names as its type (HeaderName for
	// `type GRPCHeaderName HeaderName`, v1.Gateway for `type Gateway v1.Gateway`), whose
	// markers and doc a CRD schema inherits as controller-gen's does; nil when the
	// declaration's type is a type literal or a predeclared type.
	DefinedFrom *Type
	// Fields are the struct fields in declaration order when Kind is Struct.
	Fields []*Field
	// Doc is the doc comment with marker lines removed, trimmed.
	Doc string
	// Markers are the markers on the type's doc comment.
	Markers Markers
	// Local is true for types declared in a loaded API package; generators emit code only
	// for local types.
	Local bool
	// Methods names the type's methods (value and pointer receivers), e.g. "DeepCopyInto",
	// "OpenAPISchemaType"; generators use it to call existing methods instead of emitting code.
	Methods map[string]bool
	// ValueMethods and PointerMethods name the exported methods in the method sets of T and of
	// *T, promoted methods included (a struct embedding metav1.Time has MarshalJSON in both):
	// what encoding/json sees when it looks for MarshalJSON, UnmarshalText and the like.
	ValueMethods   map[string]bool
	PointerMethods map[string]bool
	// Convertible is set on a local type whose pointer has controller-runtime's
	// conversion.Convertible methods, ConvertTo(dst conversion.Hub) error and
	// ConvertFrom(src conversion.Hub) error (matched by shape): the root type of a spoke
	// version of a kubebuilder group, converted to and from its hub by those methods.
	Convertible bool
	// EmbedsUnexported is true for a struct with an unexported embedded field, which Fields
	// leaves out although encoding/json promotes the exported fields of an embedded struct.
	EmbedsUnexported bool
	// EnumValues are the JSON values of the package's constants of this type, in declaration
	// order, for a type marked +enum or +k8s:enum.
	EnumValues []string
	// HasUnexported is true for a struct with any unexported field, embedded or not: Fields
	// leaves those out, so code that must see every field (generated semantic equality) cannot
	// compare it field by field.
	HasUnexported bool
	Pos           Position
}

// HasMethod reports whether the type or its pointer declares a method called name.
func (t *Type) HasMethod(name string) bool { return t.Methods[name] }

// Field returns the struct field called name, or nil.
func (t *Type) Field(name string) *Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// TypeRef is a type expression: a basic type, a named type, or a composite of them.
type TypeRef struct {
	Kind TypeKind
	// Basic is the basic type's name when Kind is Basic ("string", "int32", "bool", ...).
	Basic string
	// Named is the referenced type when Kind is Named.
	Named *Type
	// Elem is the element type of Pointer, Slice, Array and Map; Key the key type of Map.
	Elem *TypeRef
	Key  *TypeRef
	// Len is an Array's length.
	Len int64
}

// String renders the reference as Go source would, with package paths in full
// ("*[]k8s.io/apimachinery/pkg/apis/meta/v1.Condition"); used in messages and tests.
func (r *TypeRef) String() string {
	switch r.Kind {
	case Basic:
		return r.Basic
	case Named:
		return r.Named.Name.String()
	case Pointer:
		return "*" + r.Elem.String()
	case Slice:
		return "[]" + r.Elem.String()
	case Array:
		return fmt.Sprintf("[%d]%s", r.Len, r.Elem.String())
	case Map:
		return "map[" + r.Key.String() + "]" + r.Elem.String()
	case Interface:
		return "interface{}"
	}
	return r.Kind.String()
}

// Field is one struct field.
type Field struct {
	// Name is the Go field name; for an embedded field, the type's name.
	Name string
	Type *TypeRef
	// JSONName is the json tag's name ("" for inline, "-" for skipped); OmitEmpty and Inline
	// come from the same tag. Embedded is true for an anonymous field.
	JSONName  string
	OmitEmpty bool
	Inline    bool
	Embedded  bool
	// JSONString and OmitZero are the tag's ",string" and ",omitzero" options.
	JSONString bool
	OmitZero   bool
	// Doc is the field's doc comment with marker lines removed, trimmed.
	Doc string
	// Markers are the field's markers, merged from every grammar onto one set.
	Markers Markers
	// Required is controller-gen's rule for the field's place in its object's "required" list,
	// which the OpenAPI schema, the CRD and the validation all follow: +kubebuilder:validation:
	// Optional or +optional (+k8s:optional) make it optional; +kubebuilder:validation:Required,
	// +required or +k8s:required required; else, unless the package says
	// +kubebuilder:validation:Optional, a field that is not inline and has neither omitempty nor
	// omitzero is required. Required means the JSON key is present (and not null), as the API
	// server's CRD validation checks it; Markers.NonZero (+k8s:required) asks for more.
	Required bool
	Pos      Position
}

// DefaultRequired reports whether f is required under controller-gen's default rule (no
// marker says): it is not inline, not skipped, and has neither omitempty nor omitzero.
func (f *Field) DefaultRequired() bool {
	return !f.Inline && f.JSONName != "-" && f.JSONName != "" && !f.OmitEmpty && !f.OmitZero
}
