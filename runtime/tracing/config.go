package tracing

import (
	"fmt"
	"os"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/install"
	tracingapi "k8s.io/component-base/tracing/api/v1"
)

// configCodecs decodes every registered version of apiserver.config.k8s.io
// (v1, v1beta1, v1alpha1) strictly, as kube-apiserver's tracing options do. Built at the first
// configuration read: a server without --tracing-config-file never builds its scheme.
var configCodecs = sync.OnceValue(func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict)
})

// ReadConfiguration reads the apiserver.config.k8s.io TracingConfiguration file at path
// (YAML or JSON; v1, v1beta1 or v1alpha1) and validates it, as kube-apiserver's
// ReadTracingConfiguration and ValidateTracingConfiguration: the endpoint, when set, is a
// host:port or URL, the sampling rate is between 0 and 1,000,000. Errors name the file
// and what is wrong with it.
func ReadConfiguration(path string) (*tracingapi.TracingConfiguration, error) {
	if path == "" {
		return nil, fmt.Errorf("tracing config file was empty")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read tracing configuration from %q: %w", path, err)
	}
	return ParseConfiguration(data, path)
}

// ParseConfiguration is ReadConfiguration of data, the contents of the file named name.
func ParseConfiguration(data []byte, name string) (*tracingapi.TracingConfiguration, error) {
	internal := &apiserver.TracingConfiguration{}
	if err := runtime.DecodeInto(configCodecs().UniversalDecoder(), data, internal); err != nil {
		return nil, fmt.Errorf("unable to decode tracing configuration data in %q: %w", name, err)
	}
	// The feature gate argument is unused by the validation (kube passes its own gates).
	if errs := tracingapi.ValidateTracingConfiguration(&internal.TracingConfiguration, nil, nil); len(errs) > 0 {
		return nil, fmt.Errorf("failed to validate tracing configuration in %q: %w", name, errs.ToAggregate())
	}
	return &internal.TracingConfiguration, nil
}
