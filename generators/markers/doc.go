// Package markers parses the comment markers of API types into model.Markers, with the
// grammar the generators register.
//
// Registration: as controller-tools' generators register their markers
// (genall.Generator.RegisterMarkers with markers.MakeDefinition), each apigen generator
// registers the markers it owns in a Registry, from a package beside it
// (generators/crd/crdmarkers, generators/validation/validationmarkers, ...; the generator's
// RegisterMarkers method calls it): a Definition names the marker, where it goes (Level), its
// owner, its arguments and help, and its grammar (an ApplyFunc made with this package's
// Flag, String, Float, ... or one of its marker-specific functions). A marker several
// generators read is registered once, by its owner (Definition's owner rule). Accepted but
// unhonoured markers are registered with their warning (Definition.Unhonored); open-ended
// families with Family. RegisterUnowned registers the ecosystem's markers no generator owns.
// generators/markerset assembles every registration; Registry.Parse reads markers with it
// and Registry.WriteHelp and Markdown print its help (`apigen markers`, the README's list).
//
// Four grammars are accepted verbatim (DESIGN.md section 4), so API types written for
// Kubernetes' code-generator or for kubebuilder work unchanged. A marker is a comment line
// whose text, after "//" and spaces, begins with "+":
//
//	marker      = "+" body .
//	body        = gengo | codetag | ctools | openapi .
//	gengo       = ident [ "=" rawvalue ] .                      // +optional, +groupName=db.example.com, +default=1
//	codetag     = "k8s:" ident [ "(" args ")" ] [ "=" value ] .  // +k8s:minimum=0, +k8s:ifEnabled(X)=+k8s:maxItems=10 (gengo codetags' grammar)
//	ctools      = ns { ":" ident } [ ( ":" | "=" ) arguments ] .  // +kubebuilder:validation:Minimum=0
//	openapi     = "k8s:validation:" ident "=" value .             // +k8s:validation:maxLength=63
//	ns          = "kubebuilder" | "k8s" | "genclient" .
//	arguments   = value | arg { "," arg } .
//	arg         = ident "=" value .                               // path=dbs,scope=Cluster
//	value       = list | scalar .
//	list        = "{" [ scalar { "," scalar } ] "}" | scalar { ";" scalar } .  // {a,b} or a;b
//	scalar      = quoted | backquoted | bare .                    // "Engine", `.spec.engine`, 10Gi
//
// A marker's name is the longest registered name that prefixes it (so
// "+kubebuilder:subresource:scale:specpath=.spec.replicas" is the marker
// kubebuilder:subresource:scale with the argument specpath). The wrappers
// "+k8s:ifEnabled(Feature)=", "+k8s:ifDisabled(Feature)=" and "+k8s:beta(since: ...)=" are
// unwrapped: the inner marker applies unconditionally, as apigen serves no feature gates;
// "+k8s:alpha(...)=" is not (Kubernetes shadows alpha declarative validation by default).
//
// Function-style +k8s: tags (every +k8s: marker but code-generator's key=value families
// deepcopy-gen, conversion-gen, defaulter-gen, openapi-gen, openapi-model-package,
// prerelease-lifecycle-gen, protobuf and kube-openapi's k8s:validation:) are also parsed by
// gengo's codetags (k8s.io/gengo/v2/codetags), Kubernetes' reference parser for them: a tag
// it rejects is an error, and the arguments of +k8s:unionMember(union: "u", memberName: "M"),
// +k8s:zeroOrOneOfMember and +k8s:unionDiscriminator(union: "u") come from it. A
// differential test checks that codetags and the lookup here read the same name, argument
// and value for every such tag of the corpus.
//
// client-gen's tags: +genclient, +genclient:nonNamespaced, noStatus, noVerbs, readonly,
// onlyVerbs=<verbs>, skipVerbs=<verbs> (verbs of ClientVerbs) and
// method=<Name>,verb=<verb>[,subresource=<path>][,input=<type>][,result=<type>], with
// client-gen's errors; +groupGoName=. controller-tools' version markers on a root type:
// +kubebuilder:skipversion, +kubebuilder:unservedversion,
// +kubebuilder:deprecatedversion[:warning="..."], and
// +kubebuilder:metadata:annotations=<key=value>,labels=<key=value> (lists; the metadata of the
// kind's CustomResourceDefinition, generators/crd).
//
// Validation beyond the value constraints: +k8s:immutable, +k8s:update=<constraint>,
// +k8s:maxBytes, +k8s:neq=<value>, +k8s:unique=set|map, +k8s:forbidden,
// +k8s:eachVal=+<marker>, +k8s:eachKey=+<marker>, +kubebuilder:validation:items:<Marker>
// (both into Validation.Items / Keys), +k8s:unionMember, +k8s:zeroOrOneOfMember,
// +k8s:unionDiscriminator, +nullable, +enum and +k8s:enum (the type's constants, filled in by
// the loader), +mapType and +structType; controller-tools' type-level
// +kubebuilder:validation:AtMostOneOf, ExactlyOneOf and AtLeastOneOf become the CEL rules and
// messages controller-tools writes (Validation.Rules, after the XValidation rules).
//
// Accepted but not honoured: the markers registered with Definition.Unhonored (+patchStrategy,
// +kubebuilder:rbac, +k8s:prerelease-lifecycle-gen, +k8s:item, ...) are warnings at their
// file:line naming the marker and saying why; so is a code-generator switch turned off
// (+k8s:deepcopy-gen=false, +k8s:openapi-gen=false, +kubebuilder:object:generate=false), since
// apigen generates that code for every type.
//
// Synonyms land on one model field:
//
//	+kubebuilder:validation:Minimum=0, +k8s:minimum=0, +k8s:validation:minimum=0    -> Validation.Minimum
//	+required, +kubebuilder:validation:Required, +k8s:required                      -> Required
//	+k8s:required (validation-gen's: the value is not zero either)                 -> NonZero
//	+optional, +kubebuilder:validation:Optional, +k8s:optional                      -> Optional
//	+default=<json>, +kubebuilder:default=<marker value>                            -> Default (JSON)
//	+listType=map, +k8s:listType=map; +listMapKey=type, +k8s:listMapKey=type         -> ListType, ListMapKey
//	+mapType=atomic|granular; +structType=atomic|granular                            -> MapType; StructType
//
// client-gen's +genclient:onlyVerbs=create,get is parsed into OnlyVerbs: onlyVerbs=create
// alone makes a create-only kind (generators/install), as Kubernetes' review kinds; other
// verb lists are a warning at the type (apigen serves every verb its storage has).
//
// Defaults are normalised to JSON: +kubebuilder:default=10Gi and +kubebuilder:default="10Gi"
// both give `"10Gi"`; 1 gives `1`; true gives `true`; {a,b} gives `["a","b"]`; {a: 1}
// gives `{"a":1}`. +default= takes JSON as gengo's defaulter-gen does.
//
// Warnings (each a model.Diagnostic at the marker's file:line; `apigen generate --strict`
// makes them errors):
//
//   - an unknown marker in the kubebuilder namespace, which apigen owns, or one in the k8s and
//     genclient namespaces or a bare marker that is a near miss of a known one; the nearest
//     known marker is named when the spelling is close: "unknown marker
//     +kubebuilder:validaton:Minimum (did you mean +kubebuilder:validation:Minimum?)";
//   - a marker apigen accepts but cannot honour (Definition.Unhonored).
//
// The marker families of the ecosystem that generate nothing server-side are accepted without
// a word (families of RegisterUnowned: the kubebuilder book's +kubebuilder:docs-gen,
// kubebuilder's +kubebuilder:scaffold, operator-sdk's +operator-sdk:csv). controller-tools'
// ":=" form ("+kubebuilder:default:=Allow", "+kubebuilder:validation:Minimum:=1") reads as
// "=".
//
// Errors (each a model.Diagnostic at the marker's file:line):
//
//   - a value of the wrong type: "+kubebuilder:validation:Minimum=abc: cannot parse abc as a number";
//   - two different values for one field ("+kubebuilder:validation:Minimum=1 conflicts with +k8s:minimum=2");
//   - a default on a required field;
//   - +optional and +required (or their synonyms) on one field, as openapi-gen rejects them.
//
// Registry.GluedToFunc tells the loader which markers in a function's doc comment to warn about.
//
// Markers of other namespaces (+protobuf, +x-kubernetes-...) are ignored.
package markers
