// Package fuzzer declares Funcs as Kubernetes' pkg/apis/<group>/fuzzer packages do.
package fuzzer

import runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"

// Funcs returns no fuzzer functions.
var Funcs = func(codecs runtimeserializer.CodecFactory) []interface{} { return nil }
