package app

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/util/cert"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/server"
)

// anonymousPaths are the only paths anonymous requests may reach.
var anonymousPaths = []string{"/healthz", "/livez", "/readyz", "/version"}

// security is what SecureOptions build: the TLS configuration, the kubeconfig's CA and admin
// credential, and the handler chain's authenticator, authorizer and audit.
type security struct {
	tls *tls.Config // nil for plain HTTP
	// caFile is the CA the kubeconfig trusts, adminCert and adminKey its credential; empty
	// when the serving certificate was given (the kubeconfig then uses the system roots and
	// carries no credential).
	caFile, adminCert, adminKey string
	authn                       auth.Authenticator
	authz                       authorization.Authorizer
	auditPolicy                 *audit.Policy
	auditLog                    *audit.Log
	closers                     []io.Closer
}

// apply puts the authenticator, authorizer and audit into cfg.
func (s *security) apply(cfg *server.Config) {
	cfg.Authenticator, cfg.Authorizer, cfg.AuditPolicy, cfg.AuditLog = s.authn, s.authz, s.auditPolicy, s.auditLog
}

// Close closes the audit log file.
func (s *security) Close() error {
	for _, c := range s.closers {
		if err := c.Close(); err != nil {
			return err
		}
	}
	return nil
}

// buildSecurity builds what o asks for. bindAddress is the IP the serving certificate must
// name. Errors: unreadable files, a bad policy, certificates that cannot be made.
func buildSecurity(o *SecureOptions, dataDir, bindAddress string, log *slog.Logger) (*security, error) {
	s := &security{}
	if err := s.buildAudit(o, log); err != nil {
		return nil, err
	}
	if o.PlainHTTP {
		return s, nil
	}
	clientCAs := x509.NewCertPool()
	serving := tls.Certificate{}
	if o.TLSCertFile != "" {
		pair, err := tls.LoadX509KeyPair(o.TLSCertFile, o.TLSPrivateKeyFile)
		if err != nil {
			return nil, fmt.Errorf("cannot load --tls-cert-file: %w", err)
		}
		serving = pair
	} else {
		dir := o.CertDir
		if dir == "" {
			dir = filepath.Join(dataDir, "pki")
		}
		b, err := certs.EnsureSelfSigned(dir, []string{"localhost"}, []net.IP{net.ParseIP(bindAddress)})
		if err != nil {
			return nil, err
		}
		pair, err := tls.LoadX509KeyPair(b.CertFile(certs.ServingName), b.KeyFile(certs.ServingName))
		if err != nil {
			return nil, err
		}
		serving, clientCAs = pair, b.CAPool
		s.caFile, s.adminCert, s.adminKey = b.CertFile(certs.CAName), b.CertFile(certs.AdminName), b.KeyFile(certs.AdminName)
	}
	if o.ClientCAFile != "" {
		extra, err := cert.CertsFromFile(o.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read --client-ca-file: %w", err)
		}
		for _, c := range extra {
			clientCAs.AddCert(c)
		}
	}
	s.tls = &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{serving},
		// Certificates are verified by the authenticators (client CA or front-proxy CA).
		ClientAuth: tls.RequestClientCert,
	}
	authn, err := buildAuthenticator(o, clientCAs)
	if err != nil {
		return nil, err
	}
	s.authn = authn
	if s.authz, err = buildAuthorizer(o); err != nil {
		return nil, err
	}
	return s, nil
}

// buildAuthenticator is the union of the enabled authenticators, as kube-apiserver's: front
// proxy, client certificates, bearer tokens (file, then webhook); authenticated users get
// system:authenticated; a request with no credentials is anonymous on anonymousPaths only.
func buildAuthenticator(o *SecureOptions, clientCAs *x509.CertPool) (auth.Authenticator, error) {
	var as []auth.Authenticator
	if o.RequestHeaderClientCAFile != "" {
		pool, err := cert.NewPool(o.RequestHeaderClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read --requestheader-client-ca-file: %w", err)
		}
		as = append(as, auth.RequestHeader(auth.RequestHeaderConfig{
			ClientCA: pool, AllowedNames: o.RequestHeaderAllowedNames, UsernameHeaders: o.RequestHeaderUsernameHeaders,
			GroupHeaders: o.RequestHeaderGroupHeaders, ExtraHeaderPrefixes: o.RequestHeaderExtraHeadersPrefix,
		}))
	}
	as = append(as, auth.ClientCert(clientCAs))
	if o.TokenAuthFile != "" {
		tokens, err := auth.LoadTokenFile(o.TokenAuthFile)
		if err != nil {
			return nil, err
		}
		as = append(as, auth.BearerToken(tokens))
	}
	if o.AuthenticationTokenWebhookConfigFile != "" {
		wh, err := auth.NewTokenWebhook(o.AuthenticationTokenWebhookConfigFile, 0)
		if err != nil {
			return nil, err
		}
		as = append(as, auth.BearerToken(wh))
	}
	a := auth.WithAuthenticatedGroup(auth.Union(as...))
	if o.AnonymousAuth {
		a = auth.FailOnError(a, auth.AnonymousFor(anonymousPaths...))
	}
	return a, nil
}

// buildAuthorizer is the union of --authorization-mode, in order.
func buildAuthorizer(o *SecureOptions) (authorization.Authorizer, error) {
	var zs []authorization.Authorizer
	for _, m := range o.AuthorizationMode {
		switch m {
		case "AlwaysAllow":
			zs = append(zs, authorization.AlwaysAllow())
		case "AlwaysDeny":
			zs = append(zs, authorization.AlwaysDeny())
		case "RBAC":
			// The RBAC API is not served yet: the policy is the bootstrap one.
			zs = append(zs, rbac.Authorizer((*rbac.StaticPolicy)(rbac.Bootstrap())))
		case "Webhook":
			wh, err := authorization.NewWebhook(o.AuthorizationWebhookConfigFile)
			if err != nil {
				return nil, err
			}
			zs = append(zs, wh)
		}
	}
	return authorization.Union(zs...), nil
}

// buildAudit opens the audit log and reads the policy.
func (s *security) buildAudit(o *SecureOptions, log *slog.Logger) error {
	if o.AuditLogPath == "" {
		return nil
	}
	policy, err := audit.LoadPolicy(o.AuditPolicyFile)
	if err != nil {
		return err
	}
	var out io.Writer = os.Stdout
	if o.AuditLogPath != "-" {
		f, err := os.OpenFile(o.AuditLogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("cannot open --audit-log-path: %w", err)
		}
		s.closers = append(s.closers, f)
		out = f
	}
	s.auditPolicy, s.auditLog = policy, audit.NewLog(out, log)
	return nil
}
