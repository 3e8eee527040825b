// Package samples generates one sample object per served kind and version of every group that
// gets CustomResourceDefinitions: <root>/config/samples/generated/<group>_<version>_<kind>.yaml
// (model.Group.SamplesDir), below the samples a user writes in config/samples (kubebuilder's
// <group>_<version>_<kind>.yaml), which it never touches.
//
// A sample is the smallest object the kind's schema (the CRD version's openAPIV3Schema, as
// generators/crd builds it) accepts: apiVersion, kind, metadata.name <kind>-sample, spec, and
// every required property below it, recursively. Each value is, in order of preference, the
// field's default, the first value of its enum, a value of its format, a string matching its
// pattern (github.com/lucasjones/reggen, with a fixed seed, checked against the pattern and the
// lengths), else the value nearest zero within minimum, maximum and multipleOf, or "sample"
// fitted to minLength and maxLength. Lists get minItems items, distinct where the list is a set
// or a map; objects get optional properties or map keys up to minProperties. Optional fields
// are left out: the server defaults them.
//
// The samples are valid by construction for every check but x-kubernetes-validations (CEL)
// rules, which are not solved: a kind whose rules the smallest object breaks needs a
// hand-written sample. A required value that cannot be made (a pattern no drawn string
// matches) is a warning at the kind.
//
// The scaffolded repository's test (templates/init/main_test.go.tmpl) creates, for each kind,
// the user's sample of that group, version and kind when there is one, else this one.
package samples
