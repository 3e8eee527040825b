package markers

import (
	"fmt"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// applyFunc applies one marker's raw value (the text after "=" or ":", "" for a bare flag)
// to the parse state.
type applyFunc func(s *state, raw string) error

// defs maps every marker name apigen understands to how it sets model.Markers. A nil
// applyFunc marks a marker that is known and accepted but carries nothing apigen models
// (+k8s:deepcopy-gen=package, +kubebuilder:object:generate=true, ...).
var defs = map[string]applyFunc{
	// gengo, package and type level.
	"groupName":               stringField("groupName", func(m *model.Markers) *string { return &m.GroupName }),
	"versionName":             stringField("versionName", func(m *model.Markers) *string { return &m.VersionName }),
	"genclient":               genclient,
	"genclient:nonNamespaced": flagField("nonNamespaced", func(m *model.Markers) *bool { return &m.NonNamespaced }),
	"genclient:noStatus":      flagField("noStatus", func(m *model.Markers) *bool { return &m.NoStatus }),
	"genclient:noVerbs":       flagField("noVerbs", func(m *model.Markers) *bool { return &m.NoVerbs }),
	"genclient:onlyVerbs":     clientVerbList("onlyVerbs", func(m *model.Markers) *[]string { return &m.OnlyVerbs }),
	"genclient:skipVerbs":     clientVerbList("skipVerbs", func(m *model.Markers) *[]string { return &m.SkipVerbs }),
	"genclient:method":        clientMethod,
	"genclient:readonly":      flagField("readonly", func(m *model.Markers) *bool { return &m.ReadOnly }),
	"groupGoName":             stringField("groupGoName", func(m *model.Markers) *string { return &m.GroupGoName }),
	// gengo, field level.
	"optional":      flagField("optional", func(m *model.Markers) *bool { return &m.Optional }),
	"required":      flagField("required", func(m *model.Markers) *bool { return &m.Required }),
	"default":       jsonDefault,
	"listType":      stringField("listType", func(m *model.Markers) *string { return &m.ListType }),
	"listMapKey":    listMapKey,
	"nullable":      vflagField("nullable", func(v *model.Validation) *bool { return &v.Nullable }),
	"enum":          enumMarker("enum"),
	"patchStrategy": nil,
	"patchMergeKey": nil,
	"structType":    choiceField("structType", []string{"atomic", "granular"}, func(m *model.Markers) *string { return &m.StructType }),
	"mapType":       choiceField("mapType", []string{"atomic", "granular"}, func(m *model.Markers) *string { return &m.MapType }),
	"union":         nil,

	// controller-tools.
	"kubebuilder:object:root":                   flagField("root", func(m *model.Markers) *bool { return &m.Root }),
	"kubebuilder:object:generate":               unlessFalse("deepcopy"),
	"kubebuilder:resource":                      resource,
	"kubebuilder:subresource:status":            flagField("statusSubresource", func(m *model.Markers) *bool { return &m.StatusSub }),
	"kubebuilder:subresource:scale":             scale,
	"kubebuilder:printcolumn":                   printColumn,
	"kubebuilder:storageversion":                flagField("storageVersion", func(m *model.Markers) *bool { return &m.StorageVersion }),
	"kubebuilder:default":                       markerDefault,
	"kubebuilder:skip":                          nil,
	"kubebuilder:skipversion":                   flagField("skipVersion", func(m *model.Markers) *bool { return &m.SkipVersion }),
	"kubebuilder:unservedversion":               flagField("unservedVersion", func(m *model.Markers) *bool { return &m.UnservedVersion }),
	"kubebuilder:deprecatedversion":             deprecatedVersion,
	"kubebuilder:metadata":                      crdMetadata,
	"kubebuilder:selectablefield":               selectableField,
	"kubebuilder:title":                         nil,
	"kubebuilder:externalDocs":                  nil,
	"kubebuilder:example":                       nil,
	"kubebuilder:pruning:PreserveUnknownFields": nil,

	// apigen's own, for what no other tool family has a marker for.
	"apigen:clients":        choiceField("clients", []string{"all"}, func(m *model.Markers) *string { return &m.Clients }),
	"apigen:nameValidation": stringField("nameValidation", func(m *model.Markers) *string { return &m.NameValidation }),

	// kube-openapi.
	"k8s:openapi-gen": unlessFalse("OpenAPI definitions"),
	// code-generator and declarative validation codetags that carry nothing apigen models.
	"k8s:deepcopy-gen":                       unlessFalse("deepcopy"),
	"k8s:deepcopy-gen:interfaces":            deepcopyInterfaces,
	"k8s:deepcopy-gen:nonpointer-interfaces": nil,
	"k8s:conversion-gen":                     stringField("conversionGen", func(m *model.Markers) *string { return &m.ConversionGen }),
	"k8s:conversion-gen-external-types":      nil,
	"k8s:conversion-fn":                      nil,
	"k8s:defaulter-gen":                      nil,
	"k8s:defaulter-gen-input":                nil,
	"k8s:openapi-model-package":              nil,
	"k8s:enum":                               enumMarker("k8s:enum"),
	"k8s:alpha":                              nil,
	"k8s:beta":                               nil,
	"k8s:subresource":                        nil,
	"k8s:supportsSubresource":                nil,
	"k8s:isSubresource":                      nil,
	"k8s:opaqueType":                         nil,
	"k8s:item":                               nil,
	"k8s:zeroOrOneOfMember":                  zeroOrOneOfMember,
	"k8s:unionMember":                        unionMember,
	"k8s:unionDiscriminator":                 unionDiscriminator,
	"k8s:immutable":                          vflagField("immutable", func(v *model.Validation) *bool { return &v.Immutable }),
	"k8s:update":                             update,
	"k8s:neq":                                neq,
	"k8s:forbidden":                          vflagField("forbidden", func(v *model.Validation) *bool { return &v.Forbidden }),
	"k8s:validateFalse":                      nil,
	"k8s:validateTrue":                       nil,
	"k8s:declarativeValidationNative":        nil,
	"k8s:unique":                             unique,
	"k8s:customUnique":                       nil,
	"k8s:maxBytes":                           intField("maxBytes", func(v *model.Validation) **int64 { return &v.MaxBytes }),
	"k8s:optional":                           flagField("optional", func(m *model.Markers) *bool { return &m.Optional }),
	"k8s:required":                           k8sRequired,
	"k8s:listType":                           stringField("listType", func(m *model.Markers) *string { return &m.ListType }),
	"k8s:listMapKey":                         listMapKey,
}

// ignoredPrefixes are marker families accepted wholesale: their names are open-ended.
var ignoredPrefixes = []string{
	"kubebuilder:rbac",
	"kubebuilder:webhook",
	"kubebuilder:ac:",
	"k8s:validation:cel",
	"k8s:prerelease-lifecycle-gen",
	"k8s:protobuf",
}

// validation lists the value constraints under their controller-tools names; each is also
// known as +k8s:<lowerCamel> (codetags) and +k8s:validation:<lowerCamel> (kube-openapi).
var validation = map[string]applyFunc{
	"Minimum":          floatField("minimum", func(v *model.Validation) **float64 { return &v.Minimum }),
	"Maximum":          floatField("maximum", func(v *model.Validation) **float64 { return &v.Maximum }),
	"ExclusiveMinimum": vflagField("exclusiveMinimum", func(v *model.Validation) *bool { return &v.ExclusiveMinimum }),
	"ExclusiveMaximum": vflagField("exclusiveMaximum", func(v *model.Validation) *bool { return &v.ExclusiveMaximum }),
	"MinLength":        intField("minLength", func(v *model.Validation) **int64 { return &v.MinLength }),
	"MaxLength":        intField("maxLength", func(v *model.Validation) **int64 { return &v.MaxLength }),
	"MinItems":         intField("minItems", func(v *model.Validation) **int64 { return &v.MinItems }),
	"MaxItems":         intField("maxItems", func(v *model.Validation) **int64 { return &v.MaxItems }),
	"UniqueItems":      vflagField("uniqueItems", func(v *model.Validation) *bool { return &v.UniqueItems }),
	"Pattern":          vstringField("pattern", func(v *model.Validation) *string { return &v.Pattern }),
	"Format":           vstringField("format", func(v *model.Validation) *string { return &v.Format }),
	"Enum":             enum,
	"MultipleOf":       floatField("multipleOf", func(v *model.Validation) **float64 { return &v.MultipleOf }),
	"MinProperties":    intField("minProperties", func(v *model.Validation) **int64 { return &v.MinProperties }),
	"MaxProperties":    intField("maxProperties", func(v *model.Validation) **int64 { return &v.MaxProperties }),
}

func init() {
	for name, fn := range validation {
		lower := strings.ToLower(name[:1]) + name[1:]
		defs["kubebuilder:validation:"+name] = fn
		defs["k8s:validation:"+lower] = fn
		if name != "Enum" && name != "UniqueItems" {
			defs["k8s:"+lower] = fn
		}
	}
	defs["kubebuilder:validation:Required"] = defs["required"]
	defs["kubebuilder:validation:Optional"] = defs["optional"]
	defs["kubebuilder:validation:XValidation"] = xValidation
	for _, name := range []string{"Type", "XIntOrString", "EmbeddedResource", "Schemaless", "XEmbeddedResource", "XPreserveUnknownFields"} {
		defs["kubebuilder:validation:"+name] = nil
	}
	for name, fn := range validation {
		defs["kubebuilder:validation:items:"+name] = items(fn)
	}
	defs["kubebuilder:validation:Nullable"] = defs["nullable"]
	defs["k8s:eachVal"] = nested("k8s:eachVal", func(v *model.Validation) **model.Validation { return &v.Items })
	defs["k8s:eachKey"] = nested("k8s:eachKey", func(v *model.Validation) **model.Validation { return &v.Keys })
	for i, d := range oneOfDefs {
		defs["kubebuilder:validation:"+d.name] = oneOf(i, d.rule)
	}
}

// k8sRequired is +k8s:required: required, as +required, and in Kubernetes' declarative
// validation also not zero (validation-gen's Required* checks).
func k8sRequired(s *state, raw string) error {
	if err := flagField("required", func(m *model.Markers) *bool { return &m.Required })(s, raw); err != nil {
		return err
	}
	s.m.NonZero = s.m.Required
	return nil
}

func genclient(s *state, raw string) error {
	if err := flagField("genclient", func(m *model.Markers) *bool { return &m.GenClient })(s, raw); err != nil {
		return err
	}
	s.m.Root = s.m.Root || s.m.GenClient
	return nil
}

// deepcopyInterfaces marks a type root when it asks deepcopy-gen for runtime.Object.
func deepcopyInterfaces(s *state, raw string) error {
	for _, iface := range strings.Split(raw, ",") {
		if strings.TrimSpace(iface) == "k8s.io/apimachinery/pkg/runtime.Object" {
			s.m.Root = true
		}
	}
	return nil
}

func flagField(field string, get func(*model.Markers) *bool) applyFunc {
	return func(s *state, raw string) error {
		b, err := parseBool(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, fmt.Sprint(b)); err != nil {
			return err
		}
		*get(s.m) = b
		return nil
	}
}

func stringField(field string, get func(*model.Markers) *string) applyFunc {
	return func(s *state, raw string) error {
		v, err := unquote(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, v); err != nil {
			return err
		}
		*get(s.m) = v
		return nil
	}
}

// choiceField is stringField for a marker whose value is one of choices.
func choiceField(field string, choices []string, get func(*model.Markers) *string) applyFunc {
	set := stringField(field, get)
	return func(s *state, raw string) error {
		v, err := unquote(raw)
		if err != nil {
			return err
		}
		if !contains(choices, v) {
			return fmt.Errorf("invalid value %q: must be one of %s", v, strings.Join(choices, ", "))
		}
		return set(s, raw)
	}
}

func vflagField(field string, get func(*model.Validation) *bool) applyFunc {
	return flagField(field, func(m *model.Markers) *bool { return get(&m.Validation) })
}

func vstringField(field string, get func(*model.Validation) *string) applyFunc {
	return stringField(field, func(m *model.Markers) *string { return get(&m.Validation) })
}

func floatField(field string, get func(*model.Validation) **float64) applyFunc {
	return func(s *state, raw string) error {
		f, err := parseFloat(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, fmt.Sprint(f)); err != nil {
			return err
		}
		*get(&s.m.Validation) = &f
		return nil
	}
}

func intField(field string, get func(*model.Validation) **int64) applyFunc {
	return func(s *state, raw string) error {
		i, err := parseInt(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, fmt.Sprint(i)); err != nil {
			return err
		}
		*get(&s.m.Validation) = &i
		return nil
	}
}

func enum(s *state, raw string) error {
	parts, err := parseRawList(raw)
	if err != nil {
		return err
	}
	values := make([]string, 0, len(parts))
	for _, p := range parts {
		j, err := markerValueJSON(p)
		if err != nil {
			return err
		}
		values = append(values, j)
	}
	if err := s.record("enum", strings.Join(values, ",")); err != nil {
		return err
	}
	s.m.Validation.Enum = values
	return nil
}

func listMapKey(s *state, raw string) error {
	keys, err := parseList(raw)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if !contains(s.m.ListMapKey, k) {
			s.m.ListMapKey = append(s.m.ListMapKey, k)
		}
	}
	return nil
}

func jsonDefault(s *state, raw string) error {
	if strings.HasPrefix(strings.TrimSpace(raw), "ref(") {
		return fmt.Errorf("ref() defaults are not supported; write the JSON value")
	}
	j, err := compactJSON(raw)
	if err != nil {
		return err
	}
	return s.setDefault(j)
}

func markerDefault(s *state, raw string) error {
	j, err := markerValueJSON(raw)
	if err != nil {
		return err
	}
	return s.setDefault(j)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
