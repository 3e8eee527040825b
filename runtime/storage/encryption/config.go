// Package encryption reads kube-apiserver's EncryptionConfiguration
// (apiserver.config.k8s.io/v1, --encryption-provider-config) into one value.Transformer per
// resource, for etcd3.SetTransformer: encryption at rest with kube's own providers
// (identity, aescbc, aesgcm, secretbox, KMS v2) and wire format, so etcd holds exactly what
// kube-apiserver writes ("k8s:enc:aescbc:v1:<key>:", "k8s:enc:kms:v2:<name>:", ...).
//
// It mirrors k8s.io/apiserver/pkg/server/options/encryptionconfig, which cannot be imported
// (it drags the server framework in), and uses the transformers under
// k8s.io/apiserver/pkg/storage/value themselves: leaf libraries that are the reference for
// the wire format.
package encryption

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	"k8s.io/apiserver/pkg/storage/value/encrypt/secretbox"
	"sigs.k8s.io/yaml"
)

// The prefixes of kube-apiserver's providers (encryptionconfig's constants).
const (
	aesCBCPrefix    = "k8s:enc:aescbc:v1:"
	aesGCMPrefix    = "k8s:enc:aesgcm:v1:"
	secretboxPrefix = "k8s:enc:secretbox:v1:"
	kmsV2Prefix     = "k8s:enc:kms:v2:"
)

// anyGroupAnyResource is the "*.*" rule.
var anyGroupAnyResource = schema.GroupResource{Group: "*", Resource: "*"}

// Transformers are the transformers of an EncryptionConfiguration by resource, as
// encryptionconfig.StaticTransformers.
type Transformers map[schema.GroupResource]value.Transformer

// TransformerFor returns the transformer of resource, as kube-apiserver's
// transformerFromOverrides: the rule naming it, else its group's "*.<group>", else "*.*",
// else identity (which refuses to read encrypted values). Never nil.
func (t Transformers) TransformerFor(resource schema.GroupResource) value.Transformer {
	for _, gr := range []schema.GroupResource{resource, {Group: resource.Group, Resource: "*"}, anyGroupAnyResource} {
		if tr := t[gr]; tr != nil {
			return tr
		}
	}
	return identity.NewEncryptCheckTransformer()
}

// Options tune what LoadFile starts for KMS providers.
type Options struct {
	// KMSStatusInterval is how often a KMS v2 plugin's Status is polled for a new key ID
	// (a DEK rotation then). Zero: kube-apiserver's one minute.
	KMSStatusInterval time.Duration
	// APIServerID names this server to KMS plugins (the DEK's annotations and metrics), as
	// kube-apiserver's --apiserver-id... identity; may be empty.
	APIServerID string
	// KMSHealth, when not nil, receives the probe of every KMS v2 provider built, for the
	// server's "kms-providers" health check.
	KMSHealth *KMSHealth
}

// LoadFile reads the EncryptionConfiguration at path and returns its transformers. KMS
// plugins are dialed and primed once (a plugin not up yet is retried in the background, as
// kube-apiserver does); their status polls run until ctx ends. Errors name the file and
// the offending entry, in kube-apiserver's words where it has them.
func LoadFile(ctx context.Context, path string, opts Options) (Transformers, error) {
	cfg, err := ParseFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Build(ctx, cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("error while parsing file %q: %w", path, err)
	}
	return t, nil
}

// ParseFile reads and parses (Parse) the EncryptionConfiguration at path, without building
// its providers: what a server checks among its flags before it starts. Errors name the file.
func ParseFile(path string) (*apiserverv1.EncryptionConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("error reading encryption provider configuration file %q: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("encryption provider configuration file %q is empty", path)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("error decoding encryption provider configuration file %q: %w", path, err)
	}
	return cfg, nil
}

// Parse decodes an apiserver.config.k8s.io/v1 EncryptionConfiguration (YAML or JSON,
// unknown fields rejected), defaults it as kube does, and checks what kube's validation
// checks of its shape.
func Parse(data []byte) (*apiserverv1.EncryptionConfiguration, error) {
	var cfg apiserverv1.EncryptionConfiguration
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return nil, err
	}
	if cfg.APIVersion != apiserverv1.SchemeGroupVersion.String() || cfg.Kind != "EncryptionConfiguration" {
		return nil, fmt.Errorf("got unexpected config type: %s, %s (want %s, EncryptionConfiguration)",
			cfg.APIVersion, cfg.Kind, apiserverv1.SchemeGroupVersion)
	}
	apiserverv1.SetObjectDefaults_EncryptionConfiguration(&cfg)
	if len(cfg.Resources) == 0 {
		return nil, errors.New("resources: Required value: EncryptionConfiguration.Resources must contain at least one resource")
	}
	for i, rc := range cfg.Resources {
		if len(rc.Resources) == 0 {
			return nil, fmt.Errorf("resources[%d].resources: Required value: at least one resource", i)
		}
		if len(rc.Providers) == 0 {
			return nil, fmt.Errorf("resources[%d].providers: Required value: at least one provider", i)
		}
		for j, p := range rc.Providers {
			n := 0
			for _, set := range []bool{p.AESGCM != nil, p.AESCBC != nil, p.Secretbox != nil, p.Identity != nil, p.KMS != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				return nil, fmt.Errorf("resources[%d].providers[%d]: Invalid value: more than one provider specified in a single element, should split into different list elements", i, j)
			}
		}
	}
	return &cfg, nil
}

// Build makes the transformers of cfg, as kube-apiserver's
// getTransformerOverridesAndKMSPluginProbes: each resource rule's providers, in order, as
// one prefix transformer (the first writes; any reads the values with its prefix, a value
// read by a provider other than the first is stale), a rule masked by an earlier "*.group"
// or "*.*" rejected.
func Build(ctx context.Context, cfg *apiserverv1.EncryptionConfiguration, opts Options) (Transformers, error) {
	byResource := map[schema.GroupResource][]value.PrefixTransformer{}
	for _, rc := range cfg.Resources {
		prefixes, err := providerTransformers(ctx, rc, opts)
		if err != nil {
			return nil, err
		}
		for _, resource := range rc.Resources {
			gr := schema.ParseGroupResource(resource)
			for _, mask := range []schema.GroupResource{{Group: gr.Group, Resource: "*"}, anyGroupAnyResource} {
				if _, masked := byResource[mask]; masked {
					return nil, fmt.Errorf("resource %q is masked by earlier rule %q", grYAMLString(gr), grYAMLString(mask))
				}
			}
			byResource[gr] = append(byResource[gr], prefixes...)
		}
	}
	out := make(Transformers, len(byResource))
	for gr, list := range byResource {
		out[gr] = value.NewPrefixTransformers(errors.New("no matching prefix found"), list...)
	}
	return out, nil
}

// providerTransformers returns the prefix transformers of rc's providers, in order.
func providerTransformers(ctx context.Context, rc apiserverv1.ResourceConfiguration, opts Options) ([]value.PrefixTransformer, error) {
	var out []value.PrefixTransformer
	for _, p := range rc.Providers {
		var (
			t   value.PrefixTransformer
			err error
		)
		switch {
		case p.AESGCM != nil:
			t, err = aesTransformer(p.AESGCM, aestransformer.NewGCMTransformer, aesGCMPrefix)
		case p.AESCBC != nil:
			t, err = aesTransformer(p.AESCBC, func(b cipher.Block) (value.Transformer, error) {
				return aestransformer.NewCBCTransformer(b), nil
			}, aesCBCPrefix)
		case p.Secretbox != nil:
			t, err = secretboxTransformer(p.Secretbox)
		case p.KMS != nil:
			t, err = kmsTransformer(ctx, p.KMS, opts)
		case p.Identity != nil:
			t = value.PrefixTransformer{Transformer: identity.NewEncryptCheckTransformer(), Prefix: []byte{}}
		default:
			return nil, errors.New("provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// keyedTransformer is the transformer of named keys behind prefix: the first key writes,
// "<prefix><name>:" selects the key that reads, as kube's aes and secretbox providers.
func keyedTransformer(provider, prefix string, keys []apiserverv1.Key, make func(key []byte) (value.Transformer, error)) (value.PrefixTransformer, error) {
	if len(keys) == 0 {
		return value.PrefixTransformer{}, fmt.Errorf("%s provider has no valid keys", provider)
	}
	for _, key := range keys {
		if key.Name == "" {
			return value.PrefixTransformer{}, errors.New("key with invalid name provided")
		}
		if key.Secret == "" {
			return value.PrefixTransformer{}, fmt.Errorf("key %v has no provided secret", key.Name)
		}
	}
	var list []value.PrefixTransformer
	for _, key := range keys {
		secret, err := base64.StdEncoding.DecodeString(key.Secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("could not obtain secret for named key %s: %w", key.Name, err)
		}
		t, err := make(secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("error while creating transformer for named key %s: %w", key.Name, err)
		}
		list = append(list, value.PrefixTransformer{Transformer: t, Prefix: []byte(key.Name + ":")})
	}
	return value.PrefixTransformer{
		Transformer: value.NewPrefixTransformers(fmt.Errorf("no matching key was found for the provided %s transformer", provider), list...),
		Prefix:      []byte(prefix),
	}, nil
}

// aesTransformer is kube's aesPrefixTransformer.
func aesTransformer(cfg *apiserverv1.AESConfiguration, fn func(cipher.Block) (value.Transformer, error), prefix string) (value.PrefixTransformer, error) {
	return keyedTransformer("aes", prefix, cfg.Keys, func(key []byte) (value.Transformer, error) {
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return fn(block)
	})
}

// secretboxTransformer is kube's secretboxPrefixTransformer.
func secretboxTransformer(cfg *apiserverv1.SecretboxConfiguration) (value.PrefixTransformer, error) {
	return keyedTransformer("secretbox", secretboxPrefix, cfg.Keys, func(key []byte) (value.Transformer, error) {
		if len(key) != 32 {
			return nil, fmt.Errorf("expected key size 32 for secretbox provider, got %v", len(key))
		}
		var k [32]byte
		copy(k[:], key)
		return secretbox.NewSecretboxTransformer(k), nil
	})
}

// grYAMLString is how kube's errors write a resource rule.
func grYAMLString(gr schema.GroupResource) string {
	if gr.Group == "" && gr.Resource == "*" {
		return "*."
	}
	return gr.String()
}
