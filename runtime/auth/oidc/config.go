package oidc

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/install"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	authenticationcel "k8s.io/apiserver/pkg/authentication/cel"
)

// codecs decodes apiserver.config.k8s.io files (v1, v1beta1, v1alpha1) strictly: an unknown
// or duplicate field is an error, as kube-apiserver's loadAuthenticationConfigFromData. Built
// at the first configuration read: a server without --authentication-config never builds its
// scheme.
var codecs = sync.OnceValue(func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict)
})

// LoadConfig reads and validates the AuthenticationConfiguration at path, as kube-apiserver's
// --authentication-config; see ParseConfig.
func LoadConfig(path string) (*apiserver.AuthenticationConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read --authentication-config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("--authentication-config %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig decodes data, YAML or JSON, as an apiserver.config.k8s.io
// AuthenticationConfiguration of any served version into the internal type, and validates
// it with kube's ValidateAuthenticationConfiguration (issuer URLs https, audiences, claim
// and CEL rules compiled). The anonymous section is refused: anonymous access here is
// --anonymous-auth's.
func ParseConfig(data []byte) (*apiserver.AuthenticationConfiguration, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("empty config data")
	}
	obj, err := runtime.Decode(codecs().UniversalDecoder(), data)
	if err != nil {
		return nil, err
	}
	c, ok := obj.(*apiserver.AuthenticationConfiguration)
	if !ok {
		return nil, fmt.Errorf("expected AuthenticationConfiguration, got %T", obj)
	}
	if c.Anonymous != nil {
		return nil, fmt.Errorf("anonymous: not supported in the file; use --anonymous-auth")
	}
	if err := validation.ValidateAuthenticationConfiguration(authenticationcel.NewDefaultCompiler(), c, nil).ToAggregate(); err != nil {
		return nil, err
	}
	return c, nil
}

// LegacyOptions are kube-apiserver's --oidc-* flags, which describe one JWT issuer.
type LegacyOptions struct {
	// IssuerURL is the https URL of the issuer (--oidc-issuer-url); empty disables the flags.
	IssuerURL string
	// ClientID is the audience tokens must carry (--oidc-client-id); required with IssuerURL.
	ClientID string
	// CAFile is a PEM bundle verifying the issuer's certificate (--oidc-ca-file); empty uses
	// the host's roots.
	CAFile string
	// UsernameClaim is the claim naming the user (--oidc-username-claim). Default "sub".
	UsernameClaim string
	// UsernamePrefix is prepended to the user name (--oidc-username-prefix). Empty means the
	// issuer URL and "#" for claims other than "email"; "-" means no prefix.
	UsernamePrefix string
	// GroupsClaim is the claim listing groups (--oidc-groups-claim); empty maps none.
	GroupsClaim string
	// GroupsPrefix is prepended to each group (--oidc-groups-prefix).
	GroupsPrefix string
	// RequiredClaims are claims tokens must carry with these string values
	// (--oidc-required-claim key=value, repeatable).
	RequiredClaims map[string]string
	// SigningAlgs are the JOSE algorithms accepted (--oidc-signing-algs). Default RS256.
	SigningAlgs []string
}

// Enabled reports whether any --oidc-* flag that configures an issuer was given.
func (o *LegacyOptions) Enabled() bool {
	return o.IssuerURL != "" || o.ClientID != "" || o.CAFile != "" || o.GroupsClaim != "" || len(o.RequiredClaims) > 0
}

// Config translates the flags into an AuthenticationConfiguration with one JWT authenticator,
// as kube-apiserver's BuiltInAuthenticationOptions.ToAuthenticationConfig, and validates it.
func (o *LegacyOptions) Config() (*apiserver.AuthenticationConfiguration, error) {
	if o.IssuerURL == "" || o.ClientID == "" {
		return nil, fmt.Errorf("--oidc-issuer-url and --oidc-client-id must be specified together")
	}
	usernameClaim := o.UsernameClaim
	if usernameClaim == "" {
		usernameClaim = "sub"
	}
	usernamePrefix := o.UsernamePrefix
	if usernamePrefix == "" && usernameClaim != "email" {
		// Legacy behaviour (kubernetes/kubernetes#31380): without a prefix, every claim but
		// email is prefixed with the issuer URL.
		usernamePrefix = o.IssuerURL + "#"
	}
	if usernamePrefix == "-" {
		usernamePrefix = ""
	}
	j := apiserver.JWTAuthenticator{
		Issuer: apiserver.Issuer{URL: o.IssuerURL, Audiences: []string{o.ClientID}},
		ClaimMappings: apiserver.ClaimMappings{
			Username: apiserver.PrefixedClaimOrExpression{Claim: usernameClaim, Prefix: &usernamePrefix},
		},
	}
	if o.GroupsClaim != "" {
		prefix := o.GroupsPrefix
		j.ClaimMappings.Groups = apiserver.PrefixedClaimOrExpression{Claim: o.GroupsClaim, Prefix: &prefix}
	}
	for claim, value := range o.RequiredClaims {
		j.ClaimValidationRules = append(j.ClaimValidationRules, apiserver.ClaimValidationRule{Claim: claim, RequiredValue: value})
	}
	if o.CAFile != "" {
		ca, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read --oidc-ca-file: %w", err)
		}
		j.Issuer.CertificateAuthority = string(ca)
	}
	c := &apiserver.AuthenticationConfiguration{JWT: []apiserver.JWTAuthenticator{j}}
	if err := validation.ValidateAuthenticationConfiguration(authenticationcel.NewDefaultCompiler(), c, nil).ToAggregate(); err != nil {
		return nil, fmt.Errorf("--oidc-* flags: %s", strings.ReplaceAll(err.Error(), "jwt[0].", ""))
	}
	return c, nil
}
