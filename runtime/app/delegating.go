package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/authorization"
)

// DelegatingOptions delegate authentication and authorization to a Kubernetes cluster, as
// k8s.io/apiserver's DelegatingAuthenticationOptions and DelegatingAuthorizationOptions
// (sample-apiserver's and metrics-server's flags): the server of an APIService behind
// kube-apiserver trusts the cluster's client CA and front proxy, and asks the cluster about
// bearer tokens (TokenReview) and about what a user may do (SubjectAccessReview).
type DelegatingOptions struct {
	// Kubeconfig is the cluster (--kubeconfig); it is the default of the two below. When all
	// three are empty, a server running in a pod uses its in-cluster configuration, and any
	// other server delegates nothing.
	Kubeconfig string
	// AuthenticationKubeconfig reaches the cluster's tokenreviews.authentication.k8s.io and
	// its kube-system/extension-apiserver-authentication ConfigMap.
	AuthenticationKubeconfig string
	// AuthorizationKubeconfig reaches the cluster's subjectaccessreviews.authorization.k8s.io.
	AuthorizationKubeconfig string
	// AuthenticationSkipLookup does not read the client CA and front-proxy settings from the
	// cluster's ConfigMap (only bearer tokens are delegated).
	AuthenticationSkipLookup bool
	// TokenWebhookCacheTTL is how long an answer about a bearer token, authenticated or not,
	// is reused (--authentication-token-webhook-cache-ttl, 10s as k8s.io/apiserver's
	// DelegatingAuthenticationOptions.CacheTTL; 0 asks every time): the cluster's TokenReview
	// answers, and those of --authentication-token-webhook-config-file (kube-apiserver's own
	// default there is 2m; apigen has one flag for both, with the delegated default).
	TokenWebhookCacheTTL time.Duration
	// AuthorizedTTL and UnauthorizedTTL are how long SubjectAccessReview answers are reused,
	// allowed ones and the others apart (--authorization-webhook-cache-authorized-ttl and
	// -unauthorized-ttl, 10s each as DelegatingAuthorizationOptions' AllowCacheTTL and
	// DenyCacheTTL; 0 asks every time): the cluster's, and those of
	// --authorization-webhook-config-file (kube-apiserver's own defaults there are 5m and
	// 30s; apigen has one pair of flags for both, with the delegated defaults).
	AuthorizedTTL, UnauthorizedTTL time.Duration
	// AlwaysAllowPaths are allowed without asking the cluster (--authorization-always-allow-paths,
	// /healthz, /readyz, /livez): a kubelet's probes need no SubjectAccessReview.
	AlwaysAllowPaths []string
}

// newDelegatingOptions returns k8s.io/apiserver's defaults.
func newDelegatingOptions() DelegatingOptions {
	return DelegatingOptions{TokenWebhookCacheTTL: auth.DefaultTokenReviewCacheTTL,
		AuthorizedTTL: authorization.DefaultAuthorizedTTL, UnauthorizedTTL: authorization.DefaultUnauthorizedTTL,
		AlwaysAllowPaths: []string{"/healthz", "/readyz", "/livez"}}
}

// AddFlags registers the options on fs under k8s.io/apiserver's names.
func (o *DelegatingOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig of the Kubernetes cluster this server is an aggregated API server of: the default of --authentication-kubeconfig and --authorization-kubeconfig (in a pod, empty uses the in-cluster configuration)")
	fs.StringVar(&o.AuthenticationKubeconfig, "authentication-kubeconfig", o.AuthenticationKubeconfig, "kubeconfig of the cluster whose tokenreviews.authentication.k8s.io authenticate bearer tokens and whose kube-system/extension-apiserver-authentication ConfigMap gives the client CA and front-proxy settings")
	fs.StringVar(&o.AuthorizationKubeconfig, "authorization-kubeconfig", o.AuthorizationKubeconfig, "kubeconfig of the cluster whose subjectaccessreviews.authorization.k8s.io authorize requests")
	fs.BoolVar(&o.AuthenticationSkipLookup, "authentication-skip-lookup", o.AuthenticationSkipLookup, "do not read the client CA and front-proxy settings from the cluster's extension-apiserver-authentication ConfigMap")
	fs.DurationVar(&o.TokenWebhookCacheTTL, "authentication-token-webhook-cache-ttl", o.TokenWebhookCacheTTL, "how long an answer about a bearer token (the cluster's TokenReview or --authentication-token-webhook-config-file) is reused; 0 asks every time")
	fs.DurationVar(&o.AuthorizedTTL, "authorization-webhook-cache-authorized-ttl", o.AuthorizedTTL, "how long 'authorized' SubjectAccessReview answers (the cluster's or --authorization-webhook-config-file's) are reused; 0 asks every time")
	fs.DurationVar(&o.UnauthorizedTTL, "authorization-webhook-cache-unauthorized-ttl", o.UnauthorizedTTL, "how long 'unauthorized' SubjectAccessReview answers (the cluster's or --authorization-webhook-config-file's) are reused; 0 asks every time")
	fs.StringSliceVar(&o.AlwaysAllowPaths, "authorization-always-allow-paths", o.AlwaysAllowPaths, "paths allowed without asking the cluster (a trailing * is a prefix)")
}

// delegation is the cluster a delegating server asks: its clients, the authenticators and
// authorizer they make, and the controller that follows the cluster's
// extension-apiserver-authentication ConfigMap.
type delegation struct {
	// authn reaches the cluster's TokenReviews and ConfigMaps, authz its
	// SubjectAccessReviews: client-go's typed clients (not its whole Clientset, some 40 MB
	// of binary).
	authn *clusterClients
	authz *clusterClients
	o     *DelegatingOptions
	log   *slog.Logger
	// fromConfigMap authenticates client certificates and front-proxy requests with the
	// ConfigMap's current settings; nil until read.
	fromConfigMap atomic.Pointer[auth.Authenticator]
}

// newDelegation returns the cluster o names, or nil when it names none and the server does
// not run in a pod. Errors: a kubeconfig that cannot be read.
func newDelegation(o *DelegatingOptions, log *slog.Logger) (*delegation, error) {
	authnPath, authzPath := o.AuthenticationKubeconfig, o.AuthorizationKubeconfig
	if authnPath == "" {
		authnPath = o.Kubeconfig
	}
	if authzPath == "" {
		authzPath = o.Kubeconfig
	}
	if authnPath == "" && authzPath == "" && os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		return nil, nil
	}
	d := &delegation{o: o, log: log}
	var err error
	if d.authn, err = clusterClient(authnPath, "--authentication-kubeconfig"); err != nil {
		return nil, err
	}
	if d.authz, err = clusterClient(authzPath, "--authorization-kubeconfig"); err != nil {
		return nil, err
	}
	return d, nil
}

// clusterClients are the typed clients of a cluster a delegating server uses.
type clusterClients struct {
	core           corev1client.CoreV1Interface
	authentication authenticationv1client.AuthenticationV1Interface
	authorization  authorizationv1client.AuthorizationV1Interface
}

// clusterClient returns the clients of the cluster in the kubeconfig at path, or of the
// in-cluster configuration when path is empty.
func clusterClient(path, flag string) (*clusterClients, error) {
	var cfg *rest.Config
	var err error
	if path == "" {
		cfg, err = rest.InClusterConfig()
	} else {
		cfg, err = clientcmd.BuildConfigFromFlags("", path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot load %s: %w", flag, err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "apigen-delegating-authentication"
	c := &clusterClients{}
	if c.core, err = corev1client.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.authentication, err = authenticationv1client.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.authorization, err = authorizationv1client.NewForConfig(cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// authenticators returns what the cluster authenticates: client certificates and front-proxy
// requests as its ConfigMap says (unless --authentication-skip-lookup), and bearer tokens
// through its TokenReview API.
func (d *delegation) authenticators() []auth.Authenticator {
	out := []auth.Authenticator{}
	if !d.o.AuthenticationSkipLookup {
		out = append(out, auth.Dynamic(func() auth.Authenticator {
			if a := d.fromConfigMap.Load(); a != nil {
				return *a
			}
			return nil
		}))
	}
	return append(out, auth.BearerToken(auth.NewTokenReviewer(d.authn.authentication.TokenReviews(), d.o.TokenWebhookCacheTTL)))
}

// authorizer asks the cluster's SubjectAccessReview API.
func (d *delegation) authorizer() authorization.Authorizer {
	return authorization.NewSubjectAccessReviewer(d.authz.authorization.SubjectAccessReviews(), d.o.AuthorizedTTL, d.o.UnauthorizedTTL)
}

// run follows the cluster's extension-apiserver-authentication ConfigMap with an informer
// until ctx ends, rebuilding the client-certificate and front-proxy authenticators whenever
// it changes, as k8s.io/apiserver's ConfigMapCAController: a new front-proxy CA is trusted
// without a restart. It waits for the first list up to 10s (a cluster that cannot be reached
// is logged, and followed as it comes back).
func (d *delegation) run(ctx context.Context) {
	if d.o.AuthenticationSkipLookup {
		return
	}
	lw := cache.NewListWatchFromClient(d.authn.core.RESTClient(), "configmaps", ClusterAuthenticationNamespace,
		fields.OneTermEqualSelector("metadata.name", ClusterAuthenticationName))
	informer := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	update := func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == ClusterAuthenticationName {
			d.load(cm)
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    update,
		UpdateFunc: func(_, obj any) { update(obj) },
	}); err != nil {
		d.log.Error("cannot follow the cluster's authentication ConfigMap", "err", err)
		return
	}
	go informer.Run(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		d.log.Warn("cannot read the cluster's authentication ConfigMap yet; client certificates and front-proxy requests are not trusted until it is read",
			"configmap", ClusterAuthenticationNamespace+"/"+ClusterAuthenticationName)
	}
}

// load rebuilds the authenticators from cm: client-ca-file verifies client certificates,
// requestheader-* configure the front proxy, as kube-apiserver publishes them.
func (d *delegation) load(cm *corev1.ConfigMap) {
	var as []auth.Authenticator
	if pool, err := cert.NewPoolFromBytes([]byte(cm.Data[ClientCAKey])); err == nil {
		as = append(as, auth.ClientCert(pool))
	}
	if pool, err := cert.NewPoolFromBytes([]byte(cm.Data[RequestHeaderClientCAKey])); err == nil {
		cfg := auth.RequestHeaderConfig{ClientCA: pool}
		for key, into := range map[string]*[]string{
			RequestHeaderAllowedNamesKey:       &cfg.AllowedNames,
			RequestHeaderUsernameHeadersKey:    &cfg.UsernameHeaders,
			RequestHeaderGroupHeadersKey:       &cfg.GroupHeaders,
			RequestHeaderExtraHeadersPrefixKey: &cfg.ExtraHeaderPrefixes,
		} {
			if v := cm.Data[key]; v != "" {
				if err := json.Unmarshal([]byte(v), into); err != nil {
					d.log.Warn("the cluster's authentication ConfigMap has an invalid value", "key", key, "err", err)
				}
			}
		}
		// The front proxy first, as kube-apiserver orders them.
		as = append([]auth.Authenticator{auth.RequestHeader(cfg)}, as...)
	}
	a := auth.Union(as...)
	d.fromConfigMap.Store(&a)
	d.log.Info("read the cluster's authentication ConfigMap", "resourceVersion", cm.ResourceVersion,
		"clientCA", cm.Data[ClientCAKey] != "", "frontProxyCA", cm.Data[RequestHeaderClientCAKey] != "")
}
