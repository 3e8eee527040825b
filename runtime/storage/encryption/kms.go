package encryption

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/storage/value"
	kmsv2 "k8s.io/apiserver/pkg/storage/value/encrypt/envelope/kmsv2"
	kmstypes "k8s.io/apiserver/pkg/storage/value/encrypt/envelope/kmsv2/v2"
	kmsservice "k8s.io/kms/pkg/service"
)

// kube-apiserver's KMS v2 timings (encryptionconfig): the status poll when healthy and
// when not, and how long a DEK may still encrypt after the plugin stops answering.
const (
	kmsStatusInterval       = time.Minute
	kmsStatusRetryInterval  = time.Second
	kmsWriteDEKSourceMaxTTL = 3 * time.Minute
)

// The API versions: of a plugin's Status answer, and of a kms provider's configuration.
const (
	kmsAPIVersionV2      = "v2"
	kmsAPIVersionV2beta1 = "v2beta1"
	kmsConfigV1          = "v1"
	kmsConfigV2          = "v2"
)

// kmsTransformer is kube-apiserver's kmsPrefixTransformer for apiVersion v2: kube's kmsv2
// envelope transformer (a DEK or KDF seed encrypted by the plugin, cached by its encrypted
// form, values under "k8s:enc:kms:v2:<name>:"), whose current DEK a probe keeps: primed
// now, replaced whenever the plugin's Status reports a new key ID. KMS v1 is refused, as
// kube-apiserver refuses it without its deprecated feature gate.
func kmsTransformer(ctx context.Context, cfg *apiserverv1.KMSConfiguration, opts Options) (value.PrefixTransformer, error) {
	switch cfg.APIVersion {
	case kmsConfigV2:
		if cfg.CacheSize != nil {
			return value.PrefixTransformer{}, fmt.Errorf("kms provider %q: cachesize is not supported in v2", cfg.Name)
		}
	case kmsConfigV1:
		return value.PrefixTransformer{}, fmt.Errorf("KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead (kms provider %q)", cfg.Name)
	default:
		return value.PrefixTransformer{}, fmt.Errorf("could not configure KMS plugin %q, unsupported KMS API version %q", cfg.Name, cfg.APIVersion)
	}
	if cfg.Name == "" {
		return value.PrefixTransformer{}, fmt.Errorf("kms provider has no name")
	}
	timeout := 3 * time.Second
	if cfg.Timeout != nil && cfg.Timeout.Duration > 0 {
		timeout = cfg.Timeout.Duration
	}
	svc, err := kmsv2.NewGRPCService(ctx, cfg.Endpoint, cfg.Name, timeout)
	if err != nil {
		return value.PrefixTransformer{}, fmt.Errorf("could not configure KMSv2-Plugin's probe %q, error: %w", cfg.Name, err)
	}
	p := &kmsProbe{name: cfg.Name, service: svc, apiServerID: opts.APIServerID}
	p.state.Store(&kmsv2.State{KMSProviderName: cfg.Name})
	interval := opts.KMSStatusInterval
	if interval <= 0 {
		interval = kmsStatusInterval
	}
	p.start(ctx, interval)
	if opts.KMSHealth != nil {
		opts.KMSHealth.add(p)
	}
	return value.PrefixTransformer{
		Transformer: kmsv2.NewEnvelopeTransformer(svc, cfg.Name, p.current, opts.APIServerID),
		Prefix:      []byte(kmsV2Prefix + cfg.Name + ":"),
	}, nil
}

// kmsProbe keeps a KMS v2 plugin's current DEK source, as kube-apiserver's
// kmsv2PluginProbe: Status, and a new DEK (GenerateTransformer, one Encrypt call) when the
// key ID it reports is not the one the current DEK was encrypted with.
type kmsProbe struct {
	name, apiServerID string
	service           kmsservice.Service
	mu                sync.Mutex // serializes checks
	version           string     // the plugin's API version at its first answer
	state             atomic.Pointer[kmsv2.State]
}

// start primes the probe inline (a plugin not answering yet is retried every second in the
// background, as kube does) and polls Status every interval until ctx ends.
func (p *kmsProbe) start(ctx context.Context, interval time.Duration) {
	primed := p.check(ctx) == nil
	go func() {
		wait := interval
		if !primed {
			wait = kmsStatusRetryInterval
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			wait = interval
			if err := p.check(ctx); err != nil {
				slog.Default().Error("kms plugin failed health check probe", "name", p.name, "err", err)
				wait = kmsStatusRetryInterval
			}
			t.Reset(wait)
		}
	}()
}

// check asks the plugin's Status and rotates the DEK on a new key ID, as kube's
// isKMSv2ProviderHealthyAndMaybeRotateDEK.
func (p *kmsProbe) check(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, err := p.service.Status(ctx)
	if err != nil {
		return fmt.Errorf("failed to perform status section of the healthz check for KMS Provider %s, error: %w", p.name, err)
	}
	if st.Healthz != "ok" {
		return fmt.Errorf("kmsv2 Provider %s is not healthy: got unexpected healthz status: %s", p.name, st.Healthz)
	}
	if st.Version != kmsAPIVersionV2 && st.Version != kmsAPIVersionV2beta1 {
		return fmt.Errorf("kmsv2 Provider %s: expected KMSv2 API version %s, got %s", p.name, kmsAPIVersionV2, st.Version)
	}
	if p.version == "" {
		p.version = st.Version
	} else if p.version != st.Version {
		return fmt.Errorf("kmsv2 Provider %s: KMSv2 API version should not change after the initial status response version %s, got %s", p.name, p.version, st.Version)
	}
	if _, err := kmsv2.ValidateKeyID(st.KeyID); err != nil {
		return fmt.Errorf("kmsv2 Provider %s: got invalid KMSv2 KeyID hash %q: %w", p.name, kmsv2.GetHashIfNotEmpty(st.KeyID), err)
	}
	return p.rotateOnKeyIDChange(ctx, st.KeyID)
}

// rotateOnKeyIDChange is kube's rotateDEKOnKeyIDChange (with the KDF seed, kube's default):
// the same key ID extends the current DEK's write expiry; a new one generates a new DEK
// source, kept only when the plugin encrypted it under that key ID. On failure the current
// state stays, valid for reads indefinitely and for writes until it expires.
func (p *kmsProbe) rotateOnKeyIDChange(ctx context.Context, keyID string) error {
	state, stateErr := p.current()
	expiry := time.Now().Add(kmsWriteDEKSourceMaxTTL)
	if stateErr == nil && state.EncryptedObjectKeyID == keyID {
		state.ExpirationTimestamp = expiry
		p.state.Store(&state)
		return nil
	}
	uid := string(uuid.NewUUID())
	t, enc, cacheKey, err := kmsv2.GenerateTransformer(ctx, uid, p.service, true)
	if err == nil && enc != nil && enc.KeyID == keyID {
		p.state.Store(&kmsv2.State{
			Transformer:                           t,
			EncryptedObjectKeyID:                  enc.KeyID,
			EncryptedObjectEncryptedDEKSource:     enc.EncryptedDEKSource,
			EncryptedObjectAnnotations:            enc.Annotations,
			EncryptedObjectEncryptedDEKSourceType: enc.EncryptedDEKSourceType,
			UID:                                   uid,
			ExpirationTimestamp:                   expiry,
			CacheKey:                              cacheKey,
			KMSProviderName:                       p.name,
		})
		return nil
	}
	if err == nil {
		err = fmt.Errorf("the plugin encrypted the DEK under key ID hash %q, not Status's %q", kmsv2.GetHashIfNotEmpty(enc.KeyID), kmsv2.GetHashIfNotEmpty(keyID))
	}
	return fmt.Errorf("failed to rotate DEK uid=%q for KMS provider %s: %w", uid, p.name, err)
}

// current is the envelope transformer's StateFunc, as kube's getCurrentState: the state of
// the last rotation, or an error before the first.
func (p *kmsProbe) current() (kmsv2.State, error) {
	state := *p.state.Load()
	if state.Transformer == nil {
		return kmsv2.State{}, fmt.Errorf("got unexpected nil transformer")
	}
	check := kmstypes.EncryptedObject{
		KeyID:                  state.EncryptedObjectKeyID,
		EncryptedDEKSource:     state.EncryptedObjectEncryptedDEKSource,
		Annotations:            state.EncryptedObjectAnnotations,
		EncryptedDEKSourceType: state.EncryptedObjectEncryptedDEKSourceType,
		EncryptedData:          []byte{0},
	}
	if err := kmsv2.ValidateEncryptedObject(&check); err != nil {
		return kmsv2.State{}, fmt.Errorf("got invalid EncryptedObject: %w", err)
	}
	return state, nil
}

// KMSHealth is the health of a configuration's KMS v2 plugins, as kube-apiserver's
// "kms-providers" check of /healthz, /livez and /readyz: each plugin answers Status healthy
// with a valid key ID (a new one rotates the DEK, as the background poll does). The zero
// value has no plugins and is healthy. Safe for concurrent use.
type KMSHealth struct {
	mu     sync.Mutex
	probes []*kmsProbe
}

func (h *KMSHealth) add(p *kmsProbe) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probes = append(h.probes, p)
}

// Empty reports whether no KMS plugin is configured (no check to install).
func (h *KMSHealth) Empty() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.probes) == 0
}

// Check returns nil when every plugin is healthy, else the first plugin's failure, in
// kube-apiserver's words.
func (h *KMSHealth) Check(ctx context.Context) error {
	h.mu.Lock()
	probes := append([]*kmsProbe(nil), h.probes...)
	h.mu.Unlock()
	for _, p := range probes {
		if err := p.check(ctx); err != nil {
			return err
		}
	}
	return nil
}
