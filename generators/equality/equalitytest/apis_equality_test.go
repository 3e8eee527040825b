package equalitytest_test

import (
	"fmt"
	"testing"

	"sigs.k8s.io/randfill"

	"github.com/apigen-dev/apigen/generators/equality/equalitytest"
	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
	apiregistrationv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// The runtime's own API packages (runtime/apis/*/v1) are tested here because runtime/ never
// imports generators/, not even in tests.

// fill fills obj from seed as the runtime's JSON codec tests do; subschemas are leaves (random
// recursive schemas grow exponentially).
func fill[T any](seed int64, obj *T) {
	depth := 0
	jsoncodectest.Filler(seed, func(s *apiextensionsv1.JSONSchemaProps, c randfill.Continue) {
		depth++
		defer func() { depth-- }()
		if depth > 1 {
			s.Type, s.Format = c.String(0), c.String(0)
			return
		}
		c.FillNoCustom(s)
	}, func(j *apiextensionsv1.JSON, c randfill.Continue) {
		if c.Bool() {
			j.Raw = []byte(fmt.Sprintf(`{"a":[%q,true,null]}`, c.String(0)))
		}
	}).Fill(obj)
}

// TestRuntimeAPIsMatchReference holds every generated SemanticEqual_T of runtime/apis to
// equality.Semantic.DeepEqual (Check).
func TestRuntimeAPIsMatchReference(t *testing.T) {
	const n = 40
	t.Run("apiextensions", func(t *testing.T) {
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceColumnDefinition, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceConversion, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceDefinition, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceDefinitionCondition, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceDefinitionList, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceDefinitionNames, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceDefinitionSpec, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceDefinitionStatus, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceDefinitionVersion, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceSubresourceScale, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceSubresourceStatus, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceSubresources, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_CustomResourceValidation, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_ExternalDocumentation, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_JSON, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_JSONSchemaDefinitions, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_JSONSchemaDependencies, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_JSONSchemaProps, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_JSONSchemaPropsOrArray, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_JSONSchemaPropsOrBool, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_JSONSchemaPropsOrStringArray, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_SelectableField, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_ServiceReference, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_ValidationRule, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_ValidationRules, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_WebhookClientConfig, n, fill)
		equalitytest.Check(t, apiextensionsv1.SemanticEqual_WebhookConversion, n, fill)
	})
	t.Run("apiregistration", func(t *testing.T) {
		equalitytest.Check(t, apiregistrationv1.SemanticEqual_APIService, n, fill)
		equalitytest.Check(t, apiregistrationv1.SemanticEqual_APIServiceCondition, n, fill)
		equalitytest.Check(t, apiregistrationv1.SemanticEqual_APIServiceList, n, fill)
		equalitytest.Check(t, apiregistrationv1.SemanticEqual_APIServiceSpec, n, fill)
		equalitytest.Check(t, apiregistrationv1.SemanticEqual_APIServiceStatus, n, fill)
		equalitytest.Check(t, apiregistrationv1.SemanticEqual_ServiceReference, n, fill)
	})
	t.Run("core", func(t *testing.T) {
		equalitytest.Check(t, corev1.SemanticEqual_Namespace, n, fill)
		equalitytest.Check(t, corev1.SemanticEqual_NamespaceCondition, n, fill)
		equalitytest.Check(t, corev1.SemanticEqual_NamespaceList, n, fill)
		equalitytest.Check(t, corev1.SemanticEqual_NamespaceSpec, n, fill)
		equalitytest.Check(t, corev1.SemanticEqual_NamespaceStatus, n, fill)
	})
	t.Run("rbac", func(t *testing.T) {
		equalitytest.Check(t, rbacv1.SemanticEqual_ClusterRole, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_ClusterRoleBinding, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_ClusterRoleBindingList, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_ClusterRoleList, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_PolicyRule, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_Role, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_RoleBinding, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_RoleBindingList, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_RoleList, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_RoleRef, n, fill)
		equalitytest.Check(t, rbacv1.SemanticEqual_Subject, n, fill)
	})
}
