// Package fuzzer declares Funcs without the CodecFactory parameter of apimachinery's
// fuzzer.FuzzerFuncs: an error.
package fuzzer

// Funcs returns no fuzzer functions.
func Funcs() []interface{} { return nil }
