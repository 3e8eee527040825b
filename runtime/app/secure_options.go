package app

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/auth/oidc"
)

// SecureOptions are the serving, authentication, authorization and audit flags, named as
// kube-apiserver's.
type SecureOptions struct {
	// PlainHTTP serves plain HTTP on a loopback address without authentication or
	// authorization (an explicit choice for local experiments and benchmarks). Default false:
	// HTTPS with the options below.
	PlainHTTP bool
	// CertDir holds the self-signed CA, serving and admin certificates made when no
	// TLSCertFile is given (runtime/certs). Default <data-dir>/pki.
	CertDir string
	// TLSCertFile and TLSPrivateKeyFile are the serving certificate and key; empty makes
	// self-signed ones in CertDir.
	TLSCertFile       string
	TLSPrivateKeyFile string
	// ClientCAFile verifies x509 client certificates (CN user, O groups), besides the CA in
	// CertDir that signs the admin certificate.
	ClientCAFile string
	// TokenAuthFile lists bearer tokens (token,user,uid,"groups").
	TokenAuthFile string
	// AuthenticationTokenWebhookConfigFile is a kubeconfig-format file naming a TokenReview
	// service.
	AuthenticationTokenWebhookConfigFile string
	// AuthenticationConfig is an apiserver.config.k8s.io AuthenticationConfiguration whose
	// JWT issuers authenticate bearer tokens, reloaded when it changes.
	AuthenticationConfig string
	// OIDC are the legacy --oidc-* flags, one JWT issuer; exclusive with AuthenticationConfig.
	OIDC oidc.LegacyOptions
	// AnonymousAuth serves requests without credentials as system:anonymous on /healthz,
	// /livez, /readyz and /version only; others get 401. Default true.
	AnonymousAuth bool
	// RequestHeader* configure front-proxy authentication, as an aggregated API server.
	RequestHeaderClientCAFile       string
	RequestHeaderAllowedNames       []string
	RequestHeaderUsernameHeaders    []string
	RequestHeaderGroupHeaders       []string
	RequestHeaderExtraHeadersPrefix []string
	// AuthorizationMode lists the authorizers, asked in order: AlwaysAllow, AlwaysDeny, RBAC,
	// Webhook. Default RBAC (the bootstrap policy: cluster-admin for system:masters, health
	// and version for everyone).
	AuthorizationMode []string
	// AuthorizationWebhookConfigFile is a kubeconfig-format file naming a
	// SubjectAccessReview service (mode Webhook).
	AuthorizationWebhookConfigFile string
	// AuditLogPath is the file audit events are appended to ("-" for stdout); empty disables
	// the log backend. AuditPolicyFile is the audit.k8s.io/v1 Policy; required with
	// AuditLogPath or AuditWebhook.ConfigFile.
	AuditLogPath    string
	AuditPolicyFile string
	// AuditWebhook configures the audit webhook backend (--audit-webhook-*); an empty
	// ConfigFile disables it.
	AuditWebhook audit.WebhookConfig
	// AuditWebhookVersion is the API version of the events sent; only audit.k8s.io/v1.
	AuditWebhookVersion string
}

// newSecureOptions returns the defaults.
func newSecureOptions() SecureOptions {
	return SecureOptions{
		AnonymousAuth:                   true,
		RequestHeaderUsernameHeaders:    []string{"X-Remote-User"},
		RequestHeaderGroupHeaders:       []string{"X-Remote-Group"},
		RequestHeaderExtraHeadersPrefix: []string{"X-Remote-Extra-"},
		AuthorizationMode:               []string{"RBAC"},
		AuditWebhook:                    audit.DefaultWebhookConfig(),
		AuditWebhookVersion:             "audit.k8s.io/v1",
	}
}

// AddFlags registers the options on fs.
func (o *SecureOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.PlainHTTP, "plain-http", o.PlainHTTP, "serve plain HTTP on a loopback address without authentication or authorization, instead of HTTPS with the flags below")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "directory of the self-signed CA, serving and admin certificates made when --tls-cert-file is not given (default <data-dir>/pki)")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "serving certificate (PEM); empty makes a self-signed one in --cert-dir")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", o.TLSPrivateKeyFile, "private key of --tls-cert-file (PEM)")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "CA bundle verifying client certificates: the CommonName is the user, the Organizations the groups")
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, `bearer tokens, one CSV line each: token,user,uid,"group1,group2"`)
	fs.StringVar(&o.AuthenticationTokenWebhookConfigFile, "authentication-token-webhook-config-file", o.AuthenticationTokenWebhookConfigFile, "kubeconfig-format file naming a TokenReview service that authenticates bearer tokens")
	fs.BoolVar(&o.AnonymousAuth, "anonymous-auth", o.AnonymousAuth, "serve requests without credentials as system:anonymous on /healthz, /livez, /readyz and /version; others get 401")
	fs.StringVar(&o.RequestHeaderClientCAFile, "requestheader-client-ca-file", o.RequestHeaderClientCAFile, "CA bundle verifying the client certificate of a front proxy whose headers name the user")
	fs.StringSliceVar(&o.RequestHeaderAllowedNames, "requestheader-allowed-names", o.RequestHeaderAllowedNames, "CommonNames a front proxy's certificate may have; empty allows any the CA verifies")
	fs.StringSliceVar(&o.RequestHeaderUsernameHeaders, "requestheader-username-headers", o.RequestHeaderUsernameHeaders, "request headers naming the user, first non-empty wins")
	fs.StringSliceVar(&o.RequestHeaderGroupHeaders, "requestheader-group-headers", o.RequestHeaderGroupHeaders, "request headers listing the user's groups")
	fs.StringSliceVar(&o.RequestHeaderExtraHeadersPrefix, "requestheader-extra-headers-prefix", o.RequestHeaderExtraHeadersPrefix, "prefixes of request headers carrying extra user attributes")
	fs.StringSliceVar(&o.AuthorizationMode, "authorization-mode", o.AuthorizationMode, "authorizers asked in order, first decision wins: AlwaysAllow, AlwaysDeny, RBAC, Webhook")
	fs.StringVar(&o.AuthorizationWebhookConfigFile, "authorization-webhook-config-file", o.AuthorizationWebhookConfigFile, "kubeconfig-format file naming a SubjectAccessReview service (--authorization-mode Webhook)")
	fs.StringVar(&o.AuditLogPath, "audit-log-path", o.AuditLogPath, `file audit events (audit.k8s.io/v1, JSON lines) are appended to; "-" is stdout; empty disables auditing`)
	fs.StringVar(&o.AuditPolicyFile, "audit-policy-file", o.AuditPolicyFile, "audit.k8s.io/v1 Policy giving each request's audit level; required with --audit-log-path or --audit-webhook-config-file")
	o.addAuditWebhookFlags(fs)
	o.addOIDCFlags(fs)
}

// validate reports the options' errors.
func (o *SecureOptions) validate() []string {
	var errs []string
	if o.PlainHTTP {
		for flag, set := range map[string]bool{
			"--tls-cert-file": o.TLSCertFile != "", "--client-ca-file": o.ClientCAFile != "", "--token-auth-file": o.TokenAuthFile != "",
			"--authentication-token-webhook-config-file": o.AuthenticationTokenWebhookConfigFile != "",
			"--requestheader-client-ca-file":             o.RequestHeaderClientCAFile != "",
			"--authorization-webhook-config-file":        o.AuthorizationWebhookConfigFile != "",
		} {
			if set {
				errs = append(errs, flag+" needs --plain-http=false: plain HTTP serves without authentication")
			}
		}
	}
	if (o.TLSCertFile == "") != (o.TLSPrivateKeyFile == "") {
		errs = append(errs, "--tls-cert-file and --tls-private-key-file go together")
	}
	for _, m := range o.AuthorizationMode {
		switch m {
		case "AlwaysAllow", "AlwaysDeny", "RBAC":
		case "Webhook":
			if o.AuthorizationWebhookConfigFile == "" {
				errs = append(errs, "--authorization-mode Webhook needs --authorization-webhook-config-file")
			}
		default:
			errs = append(errs, fmt.Sprintf("--authorization-mode %q: write AlwaysAllow, AlwaysDeny, RBAC or Webhook", m))
		}
	}
	if len(o.AuthorizationMode) == 0 {
		errs = append(errs, "--authorization-mode must name at least one authorizer")
	}
	if (o.AuditLogPath == "" && o.AuditWebhook.ConfigFile == "") != (o.AuditPolicyFile == "") {
		errs = append(errs, "--audit-policy-file goes with --audit-log-path or --audit-webhook-config-file")
	}
	errs = append(errs, o.validateOIDC()...)
	return append(errs, o.validateAuditWebhook()...)
}
