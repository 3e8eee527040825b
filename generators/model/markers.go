package model

// Markers is the typed result of parsing every marker grammar on one declaration (DESIGN.md
// section 4). Synonyms across grammars land on the same field.
type Markers struct {
	// Package level.
	GroupName   string // +groupName=
	VersionName string // +versionName=
	// Clients is +apigen:clients=all (package level): every root kind of every API package
	// under the same API root gets typed clients, listers, informers and apply configurations,
	// as if each were marked +genclient, without changing how the kinds are served (their
	// plural, scope and subresources stay those of the kubebuilder markers). It is the
	// project-level switch for kubebuilder types, which never carry +genclient.
	Clients string
	// Type level.
	Root           bool // +kubebuilder:object:root=true, or a +genclient type
	GenClient      bool // +genclient
	NonNamespaced  bool // +genclient:nonNamespaced
	Resource       *ResourceMarker
	StatusSub      bool   // +kubebuilder:subresource:status
	Scale          *Scale // +kubebuilder:subresource:scale:specpath=...,statuspath=...,selectorpath=...
	PrinterColumns []PrinterColumn
	// SelectableFields are the JSONPath arguments of +kubebuilder:selectablefield, in order.
	SelectableFields []string
	StorageVersion   bool // +kubebuilder:storageversion
	// NameValidation is +apigen:nameValidation=DNS1123Subdomain|DNS1123Label|PathSegment.
	NameValidation string
	// Storage is +apigen:storage=etcd|interface|rest: where the kind's objects are kept (see
	// Kind.UserStorage).
	Storage string
	// CRDAnnotations and CRDLabels are the "key=value" entries of
	// +kubebuilder:metadata:annotations=...,labels=... on a kind, in marker order: the
	// metadata of the kind's CustomResourceDefinition (generators/crd).
	CRDAnnotations []string
	CRDLabels      []string
	// ConversionGen is +k8s:conversion-gen=<value>: on a version package the import path of
	// the hub package it converts to (apigen checks it names the group's hub), on a type
	// "false" to leave its conversion to a hand-written Convert_ function.
	ConversionGen string
	// EnumMarker is "enum" for gengo's +enum (the schema lists the type's constants) or
	// "k8s:enum" for validation-gen's +k8s:enum (the schema lists them and values are checked),
	// on a string type; "" for neither.
	EnumMarker string
	// GroupGoName is +groupGoName= (package level): the group's Go name in generated clients
	// ("DB" for DBV1()), as client-gen reads it.
	GroupGoName string
	// client-gen's tags besides +genclient and +genclient:nonNamespaced.
	NoStatus      bool           // +genclient:noStatus
	NoVerbs       bool           // +genclient:noVerbs
	ReadOnly      bool           // +genclient:readonly
	OnlyVerbs     []string       // +genclient:onlyVerbs=get,list
	SkipVerbs     []string       // +genclient:skipVerbs=delete,deleteCollection
	ClientMethods []ClientMethod // +genclient:method=GetScale,verb=get,subresource=scale,result=...
	// controller-tools' version markers of a root type.
	SkipVersion       bool    // +kubebuilder:skipversion
	UnservedVersion   bool    // +kubebuilder:unservedversion
	DeprecatedVersion bool    // +kubebuilder:deprecatedversion
	DeprecationText   *string // +kubebuilder:deprecatedversion:warning="..."
	// Field level (Enum also on a named string type).
	Optional bool // +optional, +kubebuilder:validation:Optional
	Required bool // +required, +kubebuilder:validation:Required, +k8s:required
	// NonZero is +k8s:required in Kubernetes' declarative validation (validation-gen): beyond
	// the key's presence, the value must not be its type's zero value ("" is Required value).
	NonZero    bool
	Default    *string // +default=<json> or +kubebuilder:default=<value>, normalised to JSON
	Validation Validation
	ListType   string   // +listType=atomic|set|map
	ListMapKey []string // +listMapKey=
	// MapType (+mapType=atomic|granular, on a map field or type) and StructType
	// (+structType=atomic|granular, on a struct field or type) say whether the value merges
	// as a whole or key by key: x-kubernetes-map-type in the OpenAPI schema.
	MapType    string
	StructType string
	// AllowBreaking names the incompatible changes `apigen verify --against` accepts at this
	// declaration (a field, a type and its fields, or a package and everything in it), from
	// +apigen:allow-breaking=<name>[,<name>...] (generators/compat names them).
	AllowBreaking []string
}

// ResourceMarker is +kubebuilder:resource:path=...,scope=...,shortName=...,categories=...,singular=...
type ResourceMarker struct {
	Path       string
	Scope      string // "Namespaced" or "Cluster"
	ShortNames []string
	Categories []string
	Singular   string
}

// Validation holds the value constraints of DESIGN.md section 4; nil or empty means unset.
type Validation struct {
	Minimum          *float64
	Maximum          *float64
	ExclusiveMinimum bool
	ExclusiveMaximum bool
	MinLength        *int64
	MaxLength        *int64
	MinItems         *int64
	MaxItems         *int64
	UniqueItems      bool
	Pattern          string
	Format           string
	Enum             []string // JSON values, e.g. `"postgres"`, `3`
	MultipleOf       *float64
	MinProperties    *int64
	MaxProperties    *int64
	// Rules are the +kubebuilder:validation:XValidation CEL rules, in marker order, then the
	// rules controller-tools makes of +kubebuilder:validation:AtMostOneOf, ExactlyOneOf and
	// AtLeastOneOf (in that order), with its rule text and message.
	Rules []ValidationRule
	// Nullable is +nullable (+kubebuilder:validation:Nullable): null is a valid value; the
	// schema says nullable: true.
	Nullable bool
	// Forbidden is +k8s:forbidden: the field must not be set.
	Forbidden bool
	// Declarative validation, as Kubernetes' validation-gen checks it.
	Immutable bool     // +k8s:immutable: the value cannot change on update
	Update    []string // +k8s:update=NoSet|NoUnset|NoModify|NoAddItem|NoRemoveItem, accumulated
	MaxBytes  *int64   // +k8s:maxBytes=<n>: a string's length in bytes
	NEQ       []string // +k8s:neq=<value>, JSON, accumulated: values the field may not have
	Unique    string   // +k8s:unique=set|map: list items are unique (by +listMapKey for map)
	// Items constrains every item of a list (+kubebuilder:validation:items:<Marker>,
	// +k8s:eachVal=+k8s:<marker>) and every value of a map (+k8s:eachVal); Keys every key of
	// a map (+k8s:eachKey=+k8s:<marker>). Nil means none.
	Items *Validation
	Keys  *Validation
	// UnionMember is +k8s:unionMember[(union: "<name>", memberName: "<Value>")] on a field,
	// UnionDiscriminator +k8s:unionDiscriminator[(union: "<name>")]: the union the field
	// belongs to ("" is the unnamed one).
	UnionMember        *UnionMember
	UnionDiscriminator *string
}

// UnionMember is a field's membership of a union (+k8s:unionMember).
type UnionMember struct {
	// Union names the union, "" for a struct's only one; MemberName is the discriminator value
	// that selects the field (default: the Go field name).
	Union, MemberName string
	// ZeroOrOne is set by +k8s:zeroOrOneOfMember: at most one member may be set.
	ZeroOrOne bool
}

// ValidationRule is one +kubebuilder:validation:XValidation marker, as apiextensions'
// ValidationRule: a CEL expression over self (and, in a transition rule, oldSelf) that must
// evaluate to true.
type ValidationRule struct {
	// Rule is the CEL expression, e.g. "self == oldSelf".
	Rule string
	// Message is returned when the rule is false ("" means the rule text is used);
	// MessageExpression is a CEL expression yielding the message instead.
	Message           string
	MessageExpression string
	// Reason is the field.ErrorType reported: "FieldValueInvalid" (the default),
	// "FieldValueForbidden", "FieldValueRequired" or "FieldValueDuplicate".
	Reason string
	// FieldPath is a relative JSON path (".spec.engine") the error is reported at, "" for the
	// field the rule is on.
	FieldPath string
	// OptionalOldSelf makes a transition rule run on create too, with oldSelf an optional.
	OptionalOldSelf bool
	// Pos is the marker's position; a rule that does not compile is reported there.
	Pos Position
}
