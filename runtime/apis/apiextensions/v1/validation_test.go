package v1

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// validCRD is a CRD as the strategy hands it to validation: defaulted, with the storage
// version in status.storedVersions.
const validCRD = `
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList, shortNames: [ct]}
  conversion: {strategy: None}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer}}}}}}
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    additionalPrinterColumns: [{name: Replicas, type: integer, jsonPath: .spec.replicas}]
    selectableFields: [{jsonPath: .spec.replicas}]
status: {storedVersions: [v1]}
`

// crdFrom decodes validCRD, then applies edit.
func crdFrom(t *testing.T, edit func(*CustomResourceDefinition)) *CustomResourceDefinition {
	t.Helper()
	crd := &CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(validCRD), crd); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(crd)
	}
	return crd
}

// ptr returns a pointer to s.
func ptr(s string) *string { return &s }

// webhook returns a CRD edit setting strategy Webhook with a valid webhook (a URL, review
// versions v1), then applying edit to it.
func webhook(edit func(*WebhookConversion)) func(*CustomResourceDefinition) {
	return func(c *CustomResourceDefinition) {
		w := &WebhookConversion{ClientConfig: &WebhookClientConfig{URL: ptr("https://h/convert")}, ConversionReviewVersions: []string{"v1"}}
		edit(w)
		c.Spec.Conversion = &CustomResourceConversion{Strategy: WebhookConverter, Webhook: w}
	}
}

// TestValidateCustomResourceDefinition checks create validation: the valid CRD passes, and
// each edit fails with kube's error at the field.
func TestValidateCustomResourceDefinition(t *testing.T) {
	if errs := ValidateCustomResourceDefinition(crdFrom(t, nil)); len(errs) > 0 {
		t.Fatalf("valid CRD: %v", errs)
	}
	if errs := ValidateCustomResourceDefinition(crdFrom(t, webhook(func(*WebhookConversion) {}))); len(errs) > 0 {
		t.Fatalf("valid CRD with a conversion webhook: %v", errs)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*CustomResourceDefinition)
		field string
		typ   field.ErrorType
		want  string
	}{
		{"listKind equals kind", func(c *CustomResourceDefinition) { c.Spec.Names.ListKind = "CronTab" },
			"spec.names.listKind", field.ErrorTypeInvalid, "kind and listKind may not be the same"},
		{"missing plural", func(c *CustomResourceDefinition) { c.Spec.Names.Plural = ""; c.Name = ".stable.example.com" },
			"spec.names.plural", field.ErrorTypeRequired, ""},
		{"two storage versions", func(c *CustomResourceDefinition) {
			v := c.Spec.Versions[0]
			v.Name = "v2"
			c.Spec.Versions = append(c.Spec.Versions, v)
		}, "spec.versions", field.ErrorTypeInvalid, "must have exactly one version marked as storage version"},
		{"version name", func(c *CustomResourceDefinition) {
			c.Spec.Versions[0].Name = "V1"
			c.Status.StoredVersions = []string{"V1"}
		},
			"spec.versions[0].name", field.ErrorTypeInvalid, "a DNS-1035 label"},
		{"warning of a served version", func(c *CustomResourceDefinition) { w := "old"; c.Spec.Versions[0].DeprecationWarning = &w },
			"spec.versions[0].deprecationWarning", field.ErrorTypeInvalid, "can only be set for deprecated versions"},
		{"status replicas path", func(c *CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources.Scale.StatusReplicasPath = ".spec.x"
		},
			"spec.versions[0].subresources.scale.statusReplicasPath", field.ErrorTypeInvalid, "should be a json path under .status"},
		{"column format", func(c *CustomResourceDefinition) { c.Spec.Versions[0].AdditionalPrinterColumns[0].Format = "uuid" },
			"spec.versions[0].additionalPrinterColumns[0].format", field.ErrorTypeInvalid, "must be one of"},
		{"selectable metadata", func(c *CustomResourceDefinition) { c.Spec.Versions[0].SelectableFields[0].JSONPath = ".metadata.name" },
			"spec.versions[0].selectableFields[0].jsonPath", field.ErrorTypeInvalid, "must not point to fields in metadata"},
		{"no stored versions", func(c *CustomResourceDefinition) { c.Status.StoredVersions = nil },
			"status.storedVersions", field.ErrorTypeInvalid, "must have at least one stored version"},
		{"client config with None", func(c *CustomResourceDefinition) {
			c.Spec.Conversion.Webhook = &WebhookConversion{ClientConfig: &WebhookClientConfig{URL: ptr("https://h/convert")}}
		}, "spec.conversion.webhookClientConfig", field.ErrorTypeForbidden, "should not be set when strategy is not set to Webhook"},
		{"review versions with None", func(c *CustomResourceDefinition) {
			c.Spec.Conversion.Webhook = &WebhookConversion{ConversionReviewVersions: []string{"v1"}}
		}, "spec.conversion.conversionReviewVersions", field.ErrorTypeForbidden, "should not be set when strategy is not set to Webhook"},
		{"webhook without client config", webhook(func(w *WebhookConversion) { w.ClientConfig = nil }),
			"spec.conversion.webhookClientConfig", field.ErrorTypeRequired, "required when strategy is set to Webhook"},
		{"webhook with url and service", webhook(func(w *WebhookConversion) {
			w.ClientConfig.Service = &ServiceReference{Namespace: "ns", Name: "svc"}
		}), "spec.conversion.webhookClientConfig", field.ErrorTypeRequired, "exactly one of url or service is required"},
		{"webhook over http", webhook(func(w *WebhookConversion) { w.ClientConfig.URL = ptr("http://h/convert") }),
			"spec.conversion.webhookClientConfig.url", field.ErrorTypeInvalid, "'https' is the only allowed URL scheme"},
		{"webhook url with a query", webhook(func(w *WebhookConversion) { w.ClientConfig.URL = ptr("https://h/convert?x=1") }),
			"spec.conversion.webhookClientConfig.url", field.ErrorTypeInvalid, "query parameters are not permitted in the URL"},
		{"webhook service without name", webhook(func(w *WebhookConversion) {
			w.ClientConfig.URL, w.ClientConfig.Service = nil, &ServiceReference{Namespace: "ns"}
		}), "spec.conversion.webhookClientConfig.service.name", field.ErrorTypeRequired, ""},
		{"webhook service path", webhook(func(w *WebhookConversion) {
			w.ClientConfig.URL, w.ClientConfig.Service = nil, &ServiceReference{Namespace: "ns", Name: "svc", Path: ptr("convert")}
		}), "spec.conversion.webhookClientConfig.service.path", field.ErrorTypeInvalid, "must start with a '/'"},
		{"webhook service port", webhook(func(w *WebhookConversion) {
			port := int32(70000)
			w.ClientConfig.URL, w.ClientConfig.Service = nil, &ServiceReference{Namespace: "ns", Name: "svc", Port: &port}
		}), "spec.conversion.webhookClientConfig.service.port", field.ErrorTypeInvalid, "port is not valid"},
		{"webhook caBundle", webhook(func(w *WebhookConversion) { w.ClientConfig.CABundle = []byte("not PEM") }),
			"spec.conversion.webhookClientConfig.caBundle", field.ErrorTypeInvalid, "unable to load root certificates: unable to parse bytes as PEM block"},
		{"webhook without review versions", webhook(func(w *WebhookConversion) { w.ConversionReviewVersions = nil }),
			"spec.conversion.conversionReviewVersions", field.ErrorTypeRequired, ""},
		{"webhook review version unknown", webhook(func(w *WebhookConversion) { w.ConversionReviewVersions = []string{"v2"} }),
			"spec.conversion.conversionReviewVersions", field.ErrorTypeInvalid, "must include at least one of v1, v1beta1"},
		{"webhook review version twice", webhook(func(w *WebhookConversion) { w.ConversionReviewVersions = []string{"v1", "v1"} }),
			"spec.conversion.conversionReviewVersions[1]", field.ErrorTypeInvalid, "duplicate version"},
		{"webhook review version not a label", webhook(func(w *WebhookConversion) { w.ConversionReviewVersions = []string{"v1", "V_2"} }),
			"spec.conversion.conversionReviewVersions[1]", field.ErrorTypeInvalid, "a DNS-1035 label"},
		{"unapproved k8s.io group", func(c *CustomResourceDefinition) {
			c.Spec.Group, c.Name = "x.k8s.io", "crontabs.x.k8s.io"
			c.Annotations = map[string]string{KubeAPIApprovedAnnotation: "maybe"}
		}, "metadata.annotations[api-approved.kubernetes.io]", field.ErrorTypeInvalid, `either a URL or a reason starting with "unapproved"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateCustomResourceDefinition(crdFrom(t, tc.edit))
			for _, e := range errs {
				if e.Field == tc.field && e.Type == tc.typ && strings.Contains(e.Detail, tc.want) {
					return
				}
			}
			t.Errorf("no %s error at %s with %q in %v", tc.typ, tc.field, tc.want, errs)
		})
	}
}

// TestValidateCustomResourceDefinitionUpdate checks the update rules: kind and scope are
// immutable once Established, free before; group and plural always.
func TestValidateCustomResourceDefinitionUpdate(t *testing.T) {
	old := crdFrom(t, nil)
	kind := crdFrom(t, func(c *CustomResourceDefinition) { c.Spec.Names.Kind, c.Spec.Names.ListKind = "Cron", "CronList" })
	if errs := ValidateCustomResourceDefinitionUpdate(kind, old); len(errs) > 0 {
		t.Errorf("kind change before Established: %v", errs)
	}
	SetCondition(old, CustomResourceDefinitionCondition{Type: Established, Status: ConditionTrue})
	errs := ValidateCustomResourceDefinitionUpdate(kind, old)
	if len(errs) != 1 || errs[0].Field != "spec.names.kind" || errs[0].Detail != "field is immutable" {
		t.Errorf("kind change once Established: %v", errs)
	}
	group := crdFrom(t, func(c *CustomResourceDefinition) {
		c.Spec.Group, c.Name = "other.example.com", "crontabs.other.example.com"
	})
	if errs := ValidateCustomResourceDefinitionUpdate(group, old); len(errs) == 0 || errs[0].Field != "spec.group" {
		t.Errorf("group change: %v", errs)
	}
}

// TestValidateConversionUpdate checks upstream's update leniency: an invalid caBundle passes
// while the old CRD is not Established or its caBundle was invalid too, and review versions
// without v1 or v1beta1 pass when the old list had none either.
func TestValidateConversionUpdate(t *testing.T) {
	badCA := webhook(func(w *WebhookConversion) { w.ClientConfig.CABundle = []byte("not PEM") })
	established := func(edit func(*CustomResourceDefinition)) *CustomResourceDefinition {
		c := crdFrom(t, edit)
		SetCondition(c, CustomResourceDefinitionCondition{Type: Established, Status: ConditionTrue})
		return c
	}
	caErr := func(errs field.ErrorList) bool {
		for _, e := range errs {
			if e.Field == "spec.conversion.webhookClientConfig.caBundle" {
				return true
			}
		}
		return false
	}
	if errs := ValidateCustomResourceDefinitionUpdate(crdFrom(t, badCA), crdFrom(t, webhook(func(*WebhookConversion) {}))); caErr(errs) {
		t.Errorf("invalid caBundle, old not Established: %v", errs)
	}
	if errs := ValidateCustomResourceDefinitionUpdate(crdFrom(t, badCA), established(badCA)); caErr(errs) {
		t.Errorf("invalid caBundle, old's invalid too: %v", errs)
	}
	if errs := ValidateCustomResourceDefinitionUpdate(crdFrom(t, badCA), established(webhook(func(*WebhookConversion) {}))); !caErr(errs) {
		t.Errorf("invalid caBundle, old Established without one: %v, want a caBundle error", errs)
	}
	v9 := webhook(func(w *WebhookConversion) { w.ConversionReviewVersions = []string{"v9"} })
	if errs := ValidateCustomResourceDefinitionUpdate(crdFrom(t, v9), crdFrom(t, v9)); len(errs) > 0 {
		t.Errorf("review versions v9, old's v9 too: %v", errs)
	}
	if errs := ValidateCustomResourceDefinitionUpdate(crdFrom(t, v9), crdFrom(t, webhook(func(*WebhookConversion) {}))); len(errs) != 1 ||
		errs[0].Field != "spec.conversion.conversionReviewVersions" {
		t.Errorf("review versions v9, old's v1: %v, want one error", errs)
	}
}
