// Package structural implements structural schemas for CustomResourceDefinitions: checking a CRD version's
// openAPIV3Schema ([New]), and validating ([Structural.Validate]), pruning ([Structural.Prune]) and defaulting
// ([Structural.Default]) custom resources against it, with the semantics of k8s.io/apiextensions-apiserver's
// pkg/apiserver/schema (structural schema, pruning, defaulting, objectmeta, listtype and cel validation).
//
// The input is the schema as decoded generic JSON (map[string]any, []any, string, bool, and numbers as float64 or
// int64), so the package does not depend on any Go CRD type. Custom resources are generic JSON too; an "integer"
// is an int64 or a float64 without fraction.
//
// # Checks of New
//
// Structural rules (upstream's ValidateStructural): a type on every node ("must not be empty at the root", "... for
// specified array items", "... for specified object fields") except under x-kubernetes-int-or-string or
// x-kubernetes-preserve-unknown-fields; "must be object at the root"; items "must be specified" for arrays;
// additionalProperties "must not be used at the root"; x-kubernetes-embedded-resource needs type object, no
// additionalProperties, and properties unless it preserves unknown fields; kind and apiVersion "must be string" at
// the root and in embedded resources; root metadata "must not specify anything other than name and generateName";
// x-kubernetes-int-or-string excludes preserve-unknown-fields and embedded-resource; allOf/anyOf/oneOf/not may not
// set type, default, title, description, nullable, additionalProperties, x-kubernetes-* or properties[metadata]
// (except the int-or-string anyOf patterns); patterns must compile.
//
// CRD schema rules (upstream's CRD validation): $ref, $schema, id, definitions, dependencies, patternProperties and
// additionalItems are not supported; items must not be an array; "additionalProperties and properties are mutual
// exclusive"; "additionalProperties cannot be set to false"; uniqueItems true is forbidden; types are one of array,
// boolean, integer, number, object, string; x-kubernetes-preserve-unknown-fields "must be true or undefined";
// x-kubernetes-list-type is atomic, set or map, on arrays only, map with x-kubernetes-list-map-keys naming item
// properties of object items; every default validates against its schema and "must not have unknown fields";
// every x-kubernetes-validations rule compiles ("compilation failed: ..."). [CheckStatusRoot] adds the rule for CRDs
// with the status subresource.
//
// Every property and items a junctor of the root speaks about must be specified in the structural schema
// ("because it is defined in ..."), as upstream's validateStructuralCompleteness.
//
// Not checked (yet): CEL cost estimates and the declared types of upstream's rule compilation (self is a map or a
// list of dyn here, so a rule naming a property the schema lacks compiles; rules are limited per call at run time
// instead, without upstream's cost budget per object), the x-kubernetes-validations fieldPath against the schema,
// list-type set items being scalars or atomic, and the list-map keys being required or defaulted.
//
// # Validation
//
// Value validations run through k8s.io/kube-openapi's validator, as in kube-apiserver, so messages match
// ("spec.replicas in body must be of type integer: \"string\"", "spec.cronSpec in body should match '^...'").
// Formats are kube-openapi's strfmt.Default registry: bsonobjectid, uri, email, hostname, ipv4, ipv6, cidr, mac,
// uuid, uuid3, uuid4, uuid5, isbn, isbn10, isbn13, creditcard, ssn, hexcolor, rgbcolor, byte, password, date,
// date-time, duration; integers with format int32 or int64 must fit; other formats are accepted without checks.
//
// CEL rules use runtime/validation/cel with self declared from the node's type (string, int, double, bool,
// list(dyn), map(string, dyn), or dyn for int-or-string and preserve-unknown-fields nodes), and cel.PerCallLimit.
// Values are bound to CEL as upstream binds them, by k8s.io/apiserver/pkg/cel/common.UnstructuredToVal over the
// node's schema (cel.JSON's Schema): property names that are not CEL identifiers are escaped (self.__namespace__),
// a null property is absent, list-type set and map lists compare in any order, date-time, date, duration and byte
// strings are timestamps, durations and bytes, and the root (as embedded resources) shows only apiVersion, kind
// and metadata's name and generateName. Numbers are typed by their schema first, as upstream's: a "number" is a
// double even when integral, other integral numbers are ints, whether decoded as int64 or float64. A failed rule
// reports no value for an object or array and the value itself otherwise; an evaluation error reports the node's
// type ("spec: Invalid value: \"object\": no such key: ..."); a rule on the root is reported at "<nil>", as
// upstream. As apiextensions' customResourceStrategy, the rules run only when the other errors have none of the
// blocking types (Required, NotSupported, TooLong, TooMany, TypeInvalid); otherwise they are replaced by
// cel.NotCheckedMessage at no field.
//
// # Pruning and defaulting
//
// Prune follows upstream's pruning.Prune (with the root treated as a resource); Default follows upstream's
// PruneNonNullableNullsWithoutDefaults followed by defaulting.Default. additionalProperties: true keeps the values
// it covers whole, where upstream would prune inside them.
package structural
