// Package crddiff holds the differential test of validation and defaulting: a
// kubebuilder marker must mean on apigen what it means in a CRD, that is, what
// controller-gen writes into the CRD's schema for it and what kube-apiserver's CRD handling
// then does with a create. Both are the oracle, run as libraries; apigen's real create path
// is the subject. The package has only tests (its dependencies on controller-tools and
// apiextensions-apiserver are test-only); run them with
//
//	go test ./internal/crddiff
//	go test -run '^$' -fuzz '^FuzzDifferential$' ./internal/crddiff
//
// (make test runs the first, whose TestDifferentialDraws makes 500 of the fuzz target's draws
// from a new seed each run; make fuzz leaves this package out, see TestDifferentialDraws.)
//
// # The oracle
//
// The CRD is sigs.k8s.io/controller-tools v0.23.0's crd.Generator run through genall
// (ForRoots, Run, an in-memory OutputRule) on the Go packages of the kinds, as
// `controller-gen crd` writes it, then validated as the API server validates a CRD
// (v1 defaults, conversion to the internal version,
// apiextensions/validation.ValidateCustomResourceDefinition). A create request body then
// goes through k8s.io/apiextensions-apiserver v0.37's calls, in the order its crdHandler,
// codec and registry make them (oracle_test.go):
//
//   - the version's serving set-up (getOrCreateServingInfoFor): apihelpers.GetSchemaForVersion
//     and GetSubresourcesForVersion, schema.NewStructural, defaulting.PruneDefaults,
//     apiserver/validation.NewSchemaValidator (also for status), and
//     registry/customresource.NewStrategy, which compiles the CEL rules (schema/cel, with the
//     per-call cost limit);
//   - decoding (unstructuredNegotiatedSerializer with the strict JSON serializer of
//     fieldValidation=Strict): k8s.io/apimachinery's json.Serializer into Unstructured, then
//     unstructuredSchemaCoercer.apply: objectmeta.GetObjectMetaWithOptions,
//     pruning.PruneWithOptions (unknown fields reported), defaulting.PruneNonNullableNullsWithoutDefaults,
//     objectmeta.CoerceWithOptions, objectmeta.SetObjectMeta; then the versioning codec's
//     defaulting.Default; strict errors are 400 in handlers.transformDecodeError's words;
//   - handlers.createHandler and genericregistry.Store.Create: rest.WipeObjectMetaSystemFields,
//     rest.FillObjectMetaSystemFields, then rest.BeforeCreate with the strategy:
//     PrepareForCreate (status dropped when the kind has the status subresource, generation
//     1), customResourceStrategy.Validate (type and object meta,
//     apiserver/validation.ValidateCustomResource, whose kube-openapi messages are the
//     reference, the scale subresource's replicas, embedded object meta,
//     listtype.ValidateListSetsAndMaps, and the CEL validator with the runtime cost budget,
//     unless a blocking error skips it), then ValidateObjectMetaAccessor.
//
// Left out, as they do not act on validation or defaulting of a create: mutating and
// validating admission (none is configured on either side), the field manager, the dry-run
// storage copy (an encode and decode through the same coercion) and the response encoding.
//
// # The subject
//
// One apigen server per test binary (subject_test.go): runtime/server with the generated
// groups of the kinds (install.NewAPIGroupInfo) on one embedded etcd (etcdtest.Run). Each
// input is POSTed to the server's http.Handler in process with dryRun=All (nothing is stored,
// so names may repeat and tests run in parallel) and fieldValidation=Strict: the handler
// chain, routing, the generated JSON decoding, defaulting and conversion, the registry's
// PrepareForCreate, metadata validation and the generated declarative validation all run
// as for a client over the network; a socket would add only transport. The answer is read
// back as a created object or a metav1.Status.
//
// # Inputs
//
// Per kind: its committed samples (example-api/config/samples) and generatedPerKind objects
// from a seeded generator driven by the structural schema (generate_test.go): 40% valid
// objects (types, enums, formats, patterns through github.com/lucasjones/reggen, lengths,
// bounds, multiples, list types, optional fields left out so defaults apply), the others a
// valid object with one or two mutations aimed at a constraint (mutate_test.go: required
// keys removed, enum, pattern, format, length, bound, multipleOf, item and property counts
// violated, list-map keys and set items repeated, unknown fields, nulls, wrong JSON types,
// values under CEL rules drawn anew). The test fails when the oracle accepts or rejects fewer
// than 10% of a kind's generated inputs.
//
// # Comparison and normalisations
//
// compare_test.go compares the outcomes: accepted or not; both created objects, key by key;
// or the rejections: the HTTP code and reason, each cause's field path and message (as a
// set), or the message of a rejection without causes. A 422 with causes on one side against
// an acceptance on the other is compared cause by cause. The normalisations, and nothing
// else: the metadata each server draws or that only one side's path writes (uid,
// creationTimestamp, managedFields, resourceVersion; generation is compared) are removed from
// both objects; JSON numbers compare by value (1 and 1.0); the unknown fields a strict
// decoding error lists compare in any order (pruning reports them in map order).
//
// # The extensions server
//
// TestExtensionsDifferential (extensions_test.go) compares a second subject with the same
// oracle: apigen's extensions server (runtime/apiextensions behind a typed runtime/server,
// on its own embedded etcd) with Gateway API v1.6.3's release CRDs (config/crd/standard of
// the module go.mod requires; the ValidatingAdmissionPolicy file is skipped) created through
// its handler as a user creates them, and its controllers' post-start hook run, which serves
// them before it returns. The oracle serves the same CRD (kindUnderTest.crd) in each served
// version. Inputs per served version: the release's examples of that kind and version (sent
// to their own namespace), the cases users reported (extensionsCases), and generated inputs
// (1,000 per CRD, shared by its served versions; a quarter add a changed copy of a list item,
// a sibling, to reach the rules on lists). Requests, comparison and normalisations are
// TestDifferential's; the differences must be rows of extensionsDivergences. FuzzDifferential
// draws from these targets too (kinds past those of kinds).
//
// # Gateway API's types
//
// TestGatewayTypedDifferential (gatewaytyped_test.go) compares a third subject: the typed
// server apigen generates from Gateway API's own Go types (apis/v1 and apis/v1beta1 of the
// module go.mod requires), which scaffold's TestGatewayAPIServedUnchanged builds and starts,
// then runs this test against, naming its kubeconfig in CRDDIFF_GATEWAY_KUBECONFIG (the test
// is skipped without it). Requests go over HTTPS with the kubeconfig's client certificate
// (remoteSubject); the namespaces the examples name are created first. The oracle serves
// controller-gen's CRD of the same packages (with the release's api-approved annotation); the
// inputs are TestExtensionsDifferential's; differences must be rows of divergences, the
// typed server's table.
//
// # Divergences
//
// A difference is either explained by a row of the divergences table (divergences_test.go:
// category, reason and, for those the required/presence work in the validation generator is
// expected to remove, that note) or fails the test; the test logs how many inputs of each
// kind each row explains. Another kind (Gateway API's, once apigen serves them) is one more
// row of kinds: group, version, kind, Go package and generated group builder.
//
// # The published schema
//
// What the served OpenAPI states, the server enforces (published_test.go, constraints_test.go,
// enforced_test.go, published_differential_test.go). A second oracle schema is the one the
// subject publishes for each kind of publishedKinds (kinds, and example-api's db/v1alpha1
// Database): the definition of its /openapi/v3/apis/<group>/<version> document, fetched from
// the same in-process server, that names the kind in x-kubernetes-group-version-kind, with
// every $ref inlined (a reference's siblings merged in; resource.Quantity's
// `oneOf: [string, number]` written as x-kubernetes-int-or-string, with the grammar its
// description states as controller-gen's pattern), metadata as `type: object` as in a CRD,
// converted to apiextensions' JSONSchemaProps (a key it cannot hold fails the test) and set
// into controller-gen's CRD of the kind (names, scope and subresources, checked against the
// subject's discovery) in place of controller-gen's schema; newOracle validates that CRD as
// the API server does.
//
// TestPublishedSchemaEnforced walks that schema and lists every constraint it states (types,
// formats, enums, patterns, lengths, bounds, multiples, item and property counts, unique
// items, list-type sets and maps with their keys, required keys, CEL rules, nullable). It
// breaks each alone in a valid object (every optional field present, lists and maps not
// empty, accepted by both sides) with a mutation of mutate_test.go's or of extraMutations,
// and sends it: as a create; under status, when the kind has the status subresource, as a
// status update of a stored object; for a transition rule (oldSelf), as an update changing
// the value. The published schema read as a CRD's must refuse the input with a cause at the
// place (else the input does not break what is published), and apigen must refuse it with a
// cause at the place and the same message, unless a row of constraintRows explains otherwise
// (a constraint only a typed decoding error reaches; a zero defaulted before validation).
// Each kind logs, per kind of constraint, how many are stated, exercised and enforced.
//
// TestPublishedDifferential is TestDifferential with the published schema as the oracle's:
// samples and generated inputs drawn from it, compared in full, the differences explained by
// the rows of divergences.
package crddiff
