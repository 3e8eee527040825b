package oidc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	authenticationcel "k8s.io/apiserver/pkg/authentication/cel"
	kubeoidc "k8s.io/apiserver/plugin/pkg/authenticator/token/oidc"

	"github.com/apigen-dev/apigen/runtime/request"
)

// errInvalidBearerToken is kube-apiserver's error for a bearer token no authenticator accepts.
var errInvalidBearerToken = errors.New("invalid bearer token")

// healthTimeout bounds how long a reload waits for the new issuers' discovery documents and
// keys before it takes effect anyway (a removed issuer must stop being trusted even when the
// new one is unreachable).
const healthTimeout = 10 * time.Second

// Authenticator authenticates `Authorization: Bearer <JWT>` with the JWT authenticators of an
// AuthenticationConfiguration, as kube-apiserver's JWT token authenticators under its
// bearer-token front: a request without a bearer token is not its kind; a token whose issuer
// ("iss", read unverified) no authenticator has, or an empty one, is "invalid bearer token"
// (the union still lets the token file and webhook accept it); a token of a configured issuer that fails
// verification, a claim rule or a mapping is refused with the reason. On success the header
// is removed, as k8s.io/apiserver's bearertoken.Authenticator. Safe for concurrent use; the
// configuration can be swapped while it serves (NewFromFile).
type Authenticator struct {
	current atomic.Pointer[generation]
	algs    []string
	log     *slog.Logger
}

// generation is one configuration's authenticators and the context that stops their
// background key refreshes.
type generation struct {
	tokens []kubeoidc.AuthenticatorTokenWithHealthCheck
	cancel context.CancelFunc
	data   []byte // the file's content, for NewFromFile
}

// New builds the authenticators of c; their discovery documents and keys are fetched in the
// background until ctx ends. signingAlgs are the accepted JOSE algorithms (empty: RS256, as
// kube's). log receives reload reports (nil: slog.Default()).
func New(ctx context.Context, c *apiserver.AuthenticationConfiguration, signingAlgs []string, log *slog.Logger) (*Authenticator, error) {
	if log == nil {
		log = slog.Default()
	}
	a := &Authenticator{algs: signingAlgs, log: log}
	g, err := a.build(ctx, c)
	if err != nil {
		return nil, err
	}
	a.current.Store(g)
	return a, nil
}

// NewFromFile builds an Authenticator from the AuthenticationConfiguration at path and
// reloads it when the file's content changes, checked every interval, as kube-apiserver
// reloads --authentication-config: a new configuration that does not load or validate is
// logged and the last good one kept; a valid one takes effect once its issuers answer or
// after healthTimeout. The first load's error is returned. Reloading stops when ctx ends.
func NewFromFile(ctx context.Context, path string, interval time.Duration, log *slog.Logger) (*Authenticator, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read --authentication-config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("--authentication-config %s: %w", path, err)
	}
	a, err := New(ctx, c, nil, log)
	if err != nil {
		return nil, fmt.Errorf("--authentication-config %s: %w", path, err)
	}
	a.current.Load().data = data
	go a.watch(ctx, path, interval)
	return a, nil
}

// watch reloads path every interval until ctx ends.
func (a *Authenticator) watch(ctx context.Context, path string, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var failed []byte // the content last refused, not reported twice
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		data, err := os.ReadFile(path)
		if err != nil {
			if failed == nil {
				a.log.Error("cannot reload --authentication-config; keeping the last good one", "path", path, "err", err)
				failed = []byte{}
			}
			continue
		}
		if bytes.Equal(data, a.current.Load().data) || (failed != nil && bytes.Equal(data, failed)) {
			continue
		}
		if err := a.reload(ctx, data); err != nil {
			a.log.Error("invalid --authentication-config; keeping the last good one", "path", path, "err", err)
			failed = data
			continue
		}
		failed = nil
		a.log.Info("reloaded --authentication-config", "path", path)
	}
}

// reload builds data's configuration, waits for its issuers (at most healthTimeout), and
// swaps it in, stopping the previous one.
func (a *Authenticator) reload(ctx context.Context, data []byte) error {
	c, err := ParseConfig(data)
	if err != nil {
		return err
	}
	g, err := a.build(ctx, c)
	if err != nil {
		return err
	}
	g.data = data
	deadline := time.Now().Add(healthTimeout)
	for !g.healthy() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	if ctx.Err() != nil {
		g.cancel()
		return ctx.Err()
	}
	a.current.Swap(g).cancel()
	return nil
}

// build makes the authenticators of c, each with its own lifecycle under ctx.
func (a *Authenticator) build(ctx context.Context, c *apiserver.AuthenticationConfiguration) (*generation, error) {
	ctx, cancel := context.WithCancel(ctx)
	compiler := authenticationcel.NewDefaultCompiler()
	g := &generation{cancel: cancel}
	for i, j := range c.JWT {
		opts := kubeoidc.Options{JWTAuthenticator: j, Compiler: compiler, SupportedSigningAlgs: a.algs}
		if j.Issuer.CertificateAuthority != "" {
			opts.CAContentProvider = staticCA(j.Issuer.CertificateAuthority)
		}
		t, err := kubeoidc.New(ctx, opts)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("jwt[%d]: %w", i, err)
		}
		g.tokens = append(g.tokens, t)
	}
	return g, nil
}

// healthy reports whether every authenticator of g has its issuer's keys.
func (g *generation) healthy() bool {
	for _, t := range g.tokens {
		if t.HealthCheck() != nil {
			return false
		}
	}
	return true
}

// staticCA is a PEM bundle given in the configuration (issuer.certificateAuthority).
type staticCA string

// CurrentCABundleContent implements kubeoidc.CAContentProvider.
func (s staticCA) CurrentCABundleContent() []byte { return []byte(s) }

// HealthCheck reports the first authenticator that has not yet fetched its issuer's keys.
func (a *Authenticator) HealthCheck() error {
	for _, t := range a.current.Load().tokens {
		if err := t.HealthCheck(); err != nil {
			return err
		}
	}
	return nil
}

// AuthenticateRequest implements auth.Authenticator; see Authenticator.
func (a *Authenticator) AuthenticateRequest(r *http.Request) (*request.User, bool, error) {
	scheme, token, found := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return nil, false, nil
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, false, errInvalidBearerToken
	}
	resp, ok, err := a.AuthenticateToken(r.Context(), token)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		// As kube's bearertoken.Authenticator; the union still asks the token file and
		// webhook that follow.
		return nil, false, errInvalidBearerToken
	}
	r.Header.Del("Authorization")
	return resp, true, nil
}

// AuthenticateToken tries token with each JWT authenticator in order, as kube's token union:
// the first that accepts it wins; otherwise the errors of those that refused it, joined, or
// nil, false, nil when none has the token's issuer.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*request.User, bool, error) {
	var errs []error
	for _, t := range a.current.Load().tokens {
		resp, ok, err := t.AuthenticateToken(ctx, token)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return userOf(resp), true, nil
		}
	}
	return nil, false, errors.Join(errs...)
}

// userOf converts kube's user.Info into the runtime's user.
func userOf(resp *authenticator.Response) *request.User {
	u := resp.User
	return &request.User{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
}
