// Package fuzzer declares no Funcs: a warning.
package fuzzer

// FuzzerFuncs is not the name the generated round-trip test uses.
var FuzzerFuncs = 1
