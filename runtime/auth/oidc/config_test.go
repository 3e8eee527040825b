package oidc

import (
	"fmt"
	"strings"

	"github.com/apigen-dev/apigen/runtime/auth/oidc/oidctest"
)

// configYAML is an AuthenticationConfiguration trusting is for audience, with the claim
// rules and mappings the tests check.
func configYAML(is *oidctest.Issuer, audience string) string {
	ca := "      " + strings.ReplaceAll(strings.TrimSpace(is.CAPEM()), "\n", "\n      ")
	return fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: %s
    audiences: [%s]
    certificateAuthority: |
%s
  claimValidationRules:
  - expression: 'claims.?hd.orValue("") == "example.com"'
    message: the hosted domain must be example.com
  claimMappings:
    username:
      claim: sub
      prefix: "oidc:"
    groups:
      claim: groups
      prefix: "oidc:"
    uid:
      expression: '"uid-" + claims.sub'
    extra:
    - key: example.com/tenant
      valueExpression: 'claims.?tenant.orValue("none")'
  userValidationRules:
  - expression: "!user.username.startsWith('oidc:system:')"
    message: system names are reserved
`, is.URL(), audience, ca)
}
