package v1

import "strings"

// SetDefaults_CustomResourceDefinitionSpec defaults a spec as upstream's defaults.go: the
// singular name is the lowercased kind, listKind is "<Kind>List" and the conversion strategy
// is None.
func SetDefaults_CustomResourceDefinitionSpec(obj *CustomResourceDefinitionSpec) {
	if obj.Names.Singular == "" {
		obj.Names.Singular = strings.ToLower(obj.Names.Kind)
	}
	if obj.Names.ListKind == "" && obj.Names.Kind != "" {
		obj.Names.ListKind = obj.Names.Kind + "List"
	}
	if obj.Conversion == nil {
		obj.Conversion = &CustomResourceConversion{Strategy: NoneConverter}
	}
}

// SetDefaults_ServiceReference defaults a webhook service's port to 443, as upstream.
func SetDefaults_ServiceReference(obj *ServiceReference) {
	if obj.Port == nil {
		port := int32(443)
		obj.Port = &port
	}
}
