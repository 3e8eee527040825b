// Package testapi defines Widget, the small kind the storage conformance suite stores: group
// "test.apigen.dev", version "v1", resource "widgets", with hand-written deep copies, a
// runtime.Scheme, a JSON codec and the label/field attributes selectors match against.
// It is for tests only; a single version serves as both internal and storage version.
package testapi
