package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/spf13/pflag"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/auth/oidc"
)

// authenticationConfigReload is how often --authentication-config is checked for changes.
// kube-apiserver reacts to the file within about a minute; a stat and a read of a small file
// every few seconds costs nothing and makes a change visible sooner.
var authenticationConfigReload = 5 * time.Second

// addOIDCFlags registers --authentication-config and kube-apiserver's --oidc-* flags.
func (o *SecureOptions) addOIDCFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.AuthenticationConfig, "authentication-config", o.AuthenticationConfig,
		"apiserver.config.k8s.io AuthenticationConfiguration: JWT issuers, audiences, claim validation rules and claim mappings; reloaded when it changes (mutually exclusive with --oidc-*)")
	l := &o.OIDC
	fs.StringVar(&l.IssuerURL, "oidc-issuer-url", l.IssuerURL, "https URL of the OpenID issuer whose ID tokens are accepted as bearer tokens")
	fs.StringVar(&l.ClientID, "oidc-client-id", l.ClientID, "the audience ID tokens must carry; required with --oidc-issuer-url")
	fs.StringVar(&l.CAFile, "oidc-ca-file", l.CAFile, "PEM bundle verifying the issuer's certificate; empty uses the host's roots")
	fs.StringVar(&l.UsernameClaim, "oidc-username-claim", "sub", "the claim naming the user")
	fs.StringVar(&l.UsernamePrefix, "oidc-username-prefix", l.UsernamePrefix, `prefix of user names; empty is the issuer URL and "#" for claims other than email; "-" is none`)
	fs.StringVar(&l.GroupsClaim, "oidc-groups-claim", l.GroupsClaim, "the claim listing the user's groups (a string or an array of strings)")
	fs.StringVar(&l.GroupsPrefix, "oidc-groups-prefix", l.GroupsPrefix, "prefix of each group")
	fs.StringToStringVar(&l.RequiredClaims, "oidc-required-claim", l.RequiredClaims, "key=value: a claim ID tokens must carry with this value; repeat for more")
	fs.StringSliceVar(&l.SigningAlgs, "oidc-signing-algs", []string{"RS256"}, "JOSE signing algorithms accepted")
}

// validateOIDC reports the flags' conflicts, as kube-apiserver's.
func (o *SecureOptions) validateOIDC() []string {
	var errs []string
	if o.AuthenticationConfig != "" && o.OIDC.Enabled() {
		errs = append(errs, "authentication-config file and oidc-* flags are mutually exclusive")
	}
	if o.PlainHTTP && (o.AuthenticationConfig != "" || o.OIDC.Enabled()) {
		errs = append(errs, "--authentication-config and --oidc-* need --plain-http=false: plain HTTP serves without authentication")
	}
	if o.OIDC.Enabled() && (o.OIDC.IssuerURL == "" || o.OIDC.ClientID == "") {
		errs = append(errs, "--oidc-issuer-url and --oidc-client-id must be specified together")
	}
	return errs
}

// buildJWTAuthenticator is the JWT authenticator of --authentication-config (reloaded until
// ctx ends) or of the --oidc-* flags, or nil when neither is given.
func buildJWTAuthenticator(ctx context.Context, o *SecureOptions, log *slog.Logger) (auth.Authenticator, error) {
	switch {
	case o.AuthenticationConfig != "":
		return oidc.NewFromFile(ctx, o.AuthenticationConfig, authenticationConfigReload, log)
	case o.OIDC.Enabled():
		c, err := o.OIDC.Config()
		if err != nil {
			return nil, err
		}
		return oidc.New(ctx, c, o.OIDC.SigningAlgs, log)
	}
	return nil, nil
}
