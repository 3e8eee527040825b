// Package compat compares an API with itself at a git ref: the check behind
// `apigen verify --against <ref>`. It reports each change per group, served version, kind
// and field with a severity (Breaking, NeedsMigration, Additive), the file:line of the new
// declaration (or of the removed one, at the ref), and a one-line reason after Kubernetes'
// API change guidelines (contributors/devel/sig-architecture/api_changes.md: an API call that
// worked must keep working, stored objects must stay readable, every served version must
// round-trip), as CRD schema checkers (crdify, openshift's crd-schema-checker) and
// `buf breaking` do for theirs.
//
// # What is compared
//
//   - Groups, versions and kinds: a version removed (or a group), a kind removed from a
//     served version, a kind that stops being served (+kubebuilder:unservedversion), a
//     scope change; when the version was the kind's storage version, the reason says its
//     stored objects could no longer be read. A kind's storage version switched is
//     NeedsMigration: deploy, then create a StorageVersionMigration for the resource.
//   - The effective validation, as apiextensions validates it: each kind's schema in each
//     version served at both, built by generators/crd as controller-gen would (markers of
//     every grammar, on fields and on types, +enum constants, defaults, list, map and struct
//     types, CEL rules), walked property by property, allOf pairs merged. So
//     +kubebuilder:validation:Maximum respelled +k8s:maximum, or moved onto the field's type,
//     is no change. Tightening (a bound raised or lowered, a pattern or format changed, an
//     enum added or a value removed, a field made required, a new required field without a
//     default, a new or changed CEL rule that does not use oldSelf) is Breaking; loosening
//     and new optional fields are Additive. A new rule using oldSelf is a transition rule,
//     which apiextensions runs only on updates of an existing value: Additive.
//   - Renames: a JSON name gone and a new one declared by the same Go field.
//   - Omission: a field turned from pointer to value or back changes what encoding/json
//     writes for an unset value (the schema is the same).
//   - Lossy conversion: a field of the type the server holds a kind in (the internal hub
//     package, or the hub version of a hub-less group) that a served version's type lacks,
//     where it did not lack it at the ref.
//
// Types of other modules (metav1.ObjectMeta, ...) are not walked: their changes are a
// dependency upgrade. Hand-written conversion and validation functions are not read.
//
// # Allowing a change
//
// A Breaking change is accepted by name (compatmarkers.Breaking lists the names) with
// +apigen:allow-breaking=<name>[,<name>...] on its field, on a type (changes to it and its
// fields, and to fields removed from it), on the kind, or in the package comment of the
// version (everything of the version; a removed version: any package of the group); or by
// Allow's names (the --allow flag). Allowed changes are still reported, with AllowedBy.
//
// # Loading the ref
//
// Extract writes the commit's tree into a temporary directory with `git archive`, leaving the
// working tree, index and HEAD alone; Tree.Load loads the same patterns in the same place of
// it with load.Load, after making the module's relative replace directives that lead out of
// the repository absolute. A directory or module the commit lacks gives an empty API, so a
// new API is all Additive. Check does it all and maps positions at the ref back to the
// working tree's files; Result formats the result as JSON records, GitHub Actions workflow
// commands and a GitLab code quality report.
package compat
