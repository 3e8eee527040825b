package apiextensions

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion"
	"github.com/apigen-dev/apigen/runtime/apiextensions/customresource"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
)

// DefinitionFor builds what the custom resource Handler serves of crd, as apiextensions-apiserver's
// crdHandler reads a CRD: the accepted names (status.acceptedNames), the scope, the served
// versions with their structural schema, subresources, printer columns, selectable fields and
// deprecation, the storage version, and the conversion webhook of strategy Webhook. Errors: a version's schema is not structural (the
// API validation rejects such CRDs, so only a CRD stored by an older server can have one).
func DefinitionFor(crd *apiextensionsv1.CustomResourceDefinition) (customresource.Definition, error) {
	names := crd.Status.AcceptedNames
	def := customresource.Definition{
		Group: crd.Spec.Group,
		Names: customresource.Names{Plural: names.Plural, Singular: names.Singular, Kind: names.Kind,
			ListKind: names.ListKind, ShortNames: names.ShortNames, Categories: names.Categories},
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		UID:        crd.UID,
	}
	if c := crd.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter && c.Webhook != nil && c.Webhook.ClientConfig != nil {
		def.Webhook = &conversion.Config{ClientConfig: clientConfig(c.Webhook.ClientConfig), ReviewVersions: c.Webhook.ConversionReviewVersions}
	}
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Storage {
			def.StorageVersion = v.Name
		}
		if !v.Served {
			continue
		}
		version, err := versionFor(v, field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema"))
		if err != nil {
			return customresource.Definition{}, err
		}
		def.Versions = append(def.Versions, version)
	}
	return def, nil
}

// clientConfig is cc as the admission webhooks' client takes it (the same fields), the
// service port defaulted to 443.
func clientConfig(cc *apiextensionsv1.WebhookClientConfig) admregv1.WebhookClientConfig {
	out := admregv1.WebhookClientConfig{URL: cc.URL, CABundle: cc.CABundle}
	if s := cc.Service; s != nil {
		port := int32(443)
		if s.Port != nil {
			port = *s.Port
		}
		out.Service = &admregv1.ServiceReference{Namespace: s.Namespace, Name: s.Name, Path: s.Path, Port: &port}
	}
	return out
}

// versionFor converts one served CRD version.
func versionFor(v *apiextensionsv1.CustomResourceDefinitionVersion, schemaPath *field.Path) (customresource.Version, error) {
	s, errs := apiextensionsv1.StructuralSchema(v, schemaPath)
	if len(errs) > 0 {
		return customresource.Version{}, errs.ToAggregate()
	}
	out := customresource.Version{Name: v.Name, Schema: s, Deprecated: v.Deprecated}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
		if err == nil {
			err = json.Unmarshal(raw, &out.OpenAPISchema)
		}
		if err != nil {
			return customresource.Version{}, fmt.Errorf("cannot read the schema of version %s: %w", v.Name, err)
		}
	}
	if v.DeprecationWarning != nil {
		out.DeprecationWarning = *v.DeprecationWarning
	}
	if sub := v.Subresources; sub != nil {
		out.Status = sub.Status != nil
		if sc := sub.Scale; sc != nil {
			out.Scale = &customresource.Scale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath}
			if sc.LabelSelectorPath != nil {
				out.Scale.LabelSelectorPath = *sc.LabelSelectorPath
			}
		}
	}
	for _, c := range v.AdditionalPrinterColumns {
		out.PrinterColumns = append(out.PrinterColumns, tableconvertor.Column{Name: c.Name, Type: c.Type,
			Format: c.Format, Description: c.Description, Priority: c.Priority, JSONPath: c.JSONPath})
	}
	for _, f := range v.SelectableFields {
		out.SelectableFields = append(out.SelectableFields, trimDot(f.JSONPath))
	}
	return out, nil
}

// trimDot drops the leading dot of a JSON path (".spec.color" -> "spec.color").
func trimDot(path string) string {
	if len(path) > 0 && path[0] == '.' {
		return path[1:]
	}
	return path
}
