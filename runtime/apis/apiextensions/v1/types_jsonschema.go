package v1

// FieldValueErrorReason is the machine-readable reason of a failed x-kubernetes-validations
// rule, as upstream's.
type FieldValueErrorReason string

const (
	// FieldValueRequired reports a required field as missing.
	FieldValueRequired FieldValueErrorReason = "FieldValueRequired"
	// FieldValueDuplicate reports a duplicate value.
	FieldValueDuplicate FieldValueErrorReason = "FieldValueDuplicate"
	// FieldValueInvalid reports an invalid value (the default).
	FieldValueInvalid FieldValueErrorReason = "FieldValueInvalid"
	// FieldValueForbidden reports a forbidden value.
	FieldValueForbidden FieldValueErrorReason = "FieldValueForbidden"
)

// JSONSchemaProps is a JSON-Schema following Specification Draft 4
// (http://json-schema.org/), as upstream's apiextensions.k8s.io/v1 JSONSchemaProps: every
// field with the same JSON name.
type JSONSchemaProps struct {
	// ID is the schema's id.
	// +optional
	ID string `json:"id,omitempty"`
	// Schema is the $schema URL.
	// +optional
	Schema JSONSchemaURL `json:"$schema,omitempty"`
	// Ref is a $ref; not allowed in a CustomResourceDefinition's schema.
	// +optional
	Ref *string `json:"$ref,omitempty"`
	// Description describes the value.
	// +optional
	Description string `json:"description,omitempty"`
	// Type is the value's type: object, array, string, integer, number or boolean.
	// +optional
	Type string `json:"type,omitempty"`
	// Format is the value's format (int32, date-time, ...).
	// +optional
	Format string `json:"format,omitempty"`
	// Title is the schema's title.
	// +optional
	Title string `json:"title,omitempty"`
	// Default is the value set when the field is absent (structural schemas only).
	// +optional
	Default *JSON `json:"default,omitempty"`
	// Maximum is the largest allowed number.
	// +optional
	Maximum *float64 `json:"maximum,omitempty"`
	// ExclusiveMaximum makes Maximum exclusive.
	// +optional
	ExclusiveMaximum bool `json:"exclusiveMaximum,omitempty"`
	// Minimum is the smallest allowed number.
	// +optional
	Minimum *float64 `json:"minimum,omitempty"`
	// ExclusiveMinimum makes Minimum exclusive.
	// +optional
	ExclusiveMinimum bool `json:"exclusiveMinimum,omitempty"`
	// MaxLength is the longest allowed string, in characters.
	// +optional
	MaxLength *int64 `json:"maxLength,omitempty"`
	// MinLength is the shortest allowed string, in characters.
	// +optional
	MinLength *int64 `json:"minLength,omitempty"`
	// Pattern is an ECMA 262 regular expression strings must match.
	// +optional
	Pattern string `json:"pattern,omitempty"`
	// MaxItems is the most items an array may have.
	// +optional
	MaxItems *int64 `json:"maxItems,omitempty"`
	// MinItems is the fewest items an array may have.
	// +optional
	MinItems *int64 `json:"minItems,omitempty"`
	// UniqueItems requires distinct array items.
	// +optional
	UniqueItems bool `json:"uniqueItems,omitempty"`
	// MultipleOf is a number the value must be a multiple of.
	// +optional
	MultipleOf *float64 `json:"multipleOf,omitempty"`
	// Enum lists the allowed values.
	// +optional
	// +listType=atomic
	Enum []JSON `json:"enum,omitempty"`
	// MaxProperties is the most properties an object may have.
	// +optional
	MaxProperties *int64 `json:"maxProperties,omitempty"`
	// MinProperties is the fewest properties an object may have.
	// +optional
	MinProperties *int64 `json:"minProperties,omitempty"`
	// Required lists the properties an object must have.
	// +optional
	// +listType=atomic
	Required []string `json:"required,omitempty"`
	// Items is the schema of an array's items (one schema, or one per position).
	// +optional
	Items *JSONSchemaPropsOrArray `json:"items,omitempty"`
	// AllOf lists schemas the value must all match.
	// +optional
	// +listType=atomic
	AllOf []JSONSchemaProps `json:"allOf,omitempty"`
	// OneOf lists schemas the value must match exactly one of.
	// +optional
	// +listType=atomic
	OneOf []JSONSchemaProps `json:"oneOf,omitempty"`
	// AnyOf lists schemas the value must match at least one of.
	// +optional
	// +listType=atomic
	AnyOf []JSONSchemaProps `json:"anyOf,omitempty"`
	// Not is a schema the value must not match.
	// +optional
	Not *JSONSchemaProps `json:"not,omitempty"`
	// Properties are the schemas of an object's properties, by name.
	// +optional
	Properties map[string]JSONSchemaProps `json:"properties,omitempty"`
	// AdditionalProperties is the schema of an object's other properties, or whether they are
	// allowed.
	// +optional
	AdditionalProperties *JSONSchemaPropsOrBool `json:"additionalProperties,omitempty"`
	// PatternProperties are schemas of properties whose names match a pattern.
	// +optional
	PatternProperties map[string]JSONSchemaProps `json:"patternProperties,omitempty"`
	// Dependencies are schemas or property lists required when a property is present.
	// +optional
	Dependencies JSONSchemaDependencies `json:"dependencies,omitempty"`
	// AdditionalItems is the schema of items beyond those Items lists, or whether they are allowed.
	// +optional
	AdditionalItems *JSONSchemaPropsOrBool `json:"additionalItems,omitempty"`
	// Definitions are named schemas.
	// +optional
	Definitions JSONSchemaDefinitions `json:"definitions,omitempty"`
	// ExternalDocs points at external documentation.
	// +optional
	ExternalDocs *ExternalDocumentation `json:"externalDocs,omitempty"`
	// Example is an example value.
	// +optional
	Example *JSON `json:"example,omitempty"`
	// Nullable allows null values.
	// +optional
	Nullable bool `json:"nullable,omitempty"`
	// XPreserveUnknownFields stops pruning of fields the schema does not specify, here and
	// below (x-kubernetes-preserve-unknown-fields).
	// +optional
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// XEmbeddedResource says the value is a Kubernetes object with apiVersion, kind and
	// metadata (x-kubernetes-embedded-resource).
	// +optional
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// XIntOrString says the value is an integer or a string (x-kubernetes-int-or-string).
	// +optional
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// XListMapKeys are the keys of a list of type map (x-kubernetes-list-map-keys).
	// +optional
	// +listType=atomic
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// XListType is atomic, set or map (x-kubernetes-list-type).
	// +optional
	XListType *string `json:"x-kubernetes-list-type,omitempty"`
	// XMapType is granular or atomic (x-kubernetes-map-type).
	// +optional
	XMapType *string `json:"x-kubernetes-map-type,omitempty"`
	// XValidations are CEL validation rules (x-kubernetes-validations).
	// +optional
	// +listType=map
	// +listMapKey=rule
	XValidations ValidationRules `json:"x-kubernetes-validations,omitempty"`
}

// ValidationRules are CEL validation rules.
type ValidationRules []ValidationRule

// ValidationRule is a CEL validation rule (x-kubernetes-validations), as upstream's.
type ValidationRule struct {
	// Rule is the CEL expression; self is the value, oldSelf the old value on update
	// (a transition rule).
	Rule string `json:"rule"`
	// Message is the message returned when the rule fails.
	// +optional
	Message string `json:"message,omitempty"`
	// MessageExpression is a CEL expression computing the message.
	// +optional
	MessageExpression string `json:"messageExpression,omitempty"`
	// Reason is the machine-readable reason of a failure; FieldValueInvalid by default.
	// +optional
	Reason *FieldValueErrorReason `json:"reason,omitempty"`
	// FieldPath is the path, relative to the schema node, the failure is reported at.
	// +optional
	FieldPath string `json:"fieldPath,omitempty"`
	// OptionalOldSelf lets a transition rule run on create and when the old value is absent.
	// +optional
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty"`
}

// JSON is any JSON value (bool, number, string, array, object or null), kept as its raw
// bytes; it marshals as itself (marshal.go).
type JSON struct {
	// Raw is the value's JSON encoding.
	Raw []byte `json:"-"`
}

// OpenAPISchemaType returns nil: a JSON value has no single type, as upstream publishes it.
func (JSON) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat returns "": a JSON value has no format.
func (JSON) OpenAPISchemaFormat() string { return "" }

// JSONSchemaURL is a JSON Schema URL ($schema).
type JSONSchemaURL string

// JSONSchemaPropsOrArray is one schema or an array of schemas (items); it marshals as
// whichever is set (marshal.go).
type JSONSchemaPropsOrArray struct {
	// Schema is the single schema.
	Schema *JSONSchemaProps `json:"-"`
	// JSONSchemas are the schemas by position.
	JSONSchemas []JSONSchemaProps `json:"-"`
}

// OpenAPISchemaType returns nil: the value is a schema or an array of schemas.
func (JSONSchemaPropsOrArray) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat returns "".
func (JSONSchemaPropsOrArray) OpenAPISchemaFormat() string { return "" }

// JSONSchemaPropsOrBool is a schema or a boolean (additionalProperties, additionalItems);
// it marshals as whichever is set (marshal.go). Allows is true when Schema is set.
type JSONSchemaPropsOrBool struct {
	// Allows is the boolean; true when Schema is set.
	Allows bool `json:"-"`
	// Schema is the schema.
	Schema *JSONSchemaProps `json:"-"`
}

// OpenAPISchemaType returns nil: the value is a schema or a boolean.
func (JSONSchemaPropsOrBool) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat returns "".
func (JSONSchemaPropsOrBool) OpenAPISchemaFormat() string { return "" }

// JSONSchemaDependencies are the dependencies of a schema, by property name.
type JSONSchemaDependencies map[string]JSONSchemaPropsOrStringArray

// JSONSchemaPropsOrStringArray is a schema or a list of property names; it marshals as
// whichever is set (marshal.go).
type JSONSchemaPropsOrStringArray struct {
	// Schema is the schema.
	Schema *JSONSchemaProps `json:"-"`
	// Property are the property names.
	Property []string `json:"-"`
}

// OpenAPISchemaType returns nil: the value is a schema or an array of strings.
func (JSONSchemaPropsOrStringArray) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat returns "".
func (JSONSchemaPropsOrStringArray) OpenAPISchemaFormat() string { return "" }

// JSONSchemaDefinitions are named schemas.
type JSONSchemaDefinitions map[string]JSONSchemaProps

// ExternalDocumentation points at more documentation.
type ExternalDocumentation struct {
	// Description describes the documentation.
	// +optional
	Description string `json:"description,omitempty"`
	// URL is the documentation's location.
	// +optional
	URL string `json:"url,omitempty"`
}
