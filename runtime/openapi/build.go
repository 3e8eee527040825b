package openapi

import (
	"fmt"
	"sort"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/common/restfuladapter"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Config says how to build a server's documents.
type Config struct {
	// Title and Version fill the documents' info object, e.g. "example-apiserver", "v0.1.0";
	// both are required by OpenAPI, so "" means "apigen API server" and "unversioned".
	Title   string
	Version string
	// Namer names definitions; nil keeps kube-openapi's ToRESTFriendlyName for every type and
	// adds no group-version-kind extensions.
	Namer *DefinitionNamer
	// Definitions returns the schema of every Go type the routes read or write and of every
	// type those reach, keyed by Go type name (see MergeDefinitions to combine groups').
	Definitions common.GetOpenAPIDefinitions
}

// Documents are a server's OpenAPI documents.
type Documents struct {
	// V2 is the Swagger 2.0 document of every route.
	V2 *spec.Swagger
	// V3 holds one OpenAPI 3.0 document per group version, keyed by the path the /openapi/v3
	// index lists: "apis/<group>/<version>" ("api/<version>" for the legacy core group).
	V3 map[string]*spec3.OpenAPI
}

// Build builds the documents of webServices, as kube-apiserver does once its groups are
// installed: BuildV2 and BuildV3. It returns an error when a route reads or writes a type
// Definitions does not describe.
func Build(webServices []*restful.WebService, cfg Config) (*Documents, error) {
	v2, err := BuildV2(webServices, cfg)
	if err != nil {
		return nil, err
	}
	v3, err := BuildV3(webServices, cfg)
	if err != nil {
		return nil, err
	}
	return &Documents{V2: v2, V3: v3}, nil
}

// BuildV2 builds the Swagger 2.0 document of every route of webServices. Errors: as Build.
func BuildV2(webServices []*restful.WebService, cfg Config) (*spec.Swagger, error) {
	info, getName, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	v2, err := builder.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(webServices), &common.Config{
		Info:                           info,
		GetDefinitions:                 cfg.Definitions,
		GetDefinitionName:              getName,
		GetOperationIDAndTagsFromRoute: operationIDAndTags,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot build OpenAPI v2 document: %w", err)
	}
	for name, def := range v2.Definitions {
		dropNullable(&def)
		v2.Definitions[name] = def
	}
	return v2, nil
}

// BuildV3 builds one OpenAPI 3.0 document per group version, of the WebServices rooted at it
// ("/apis/<group>/<version>" or "/api/<version>"), keyed as Documents.V3 is; WebServices
// rooted elsewhere appear in none. Errors: as Build.
func BuildV3(webServices []*restful.WebService, cfg Config) (map[string]*spec3.OpenAPI, error) {
	info, getName, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	byGV := map[string][]*restful.WebService{}
	for _, ws := range webServices {
		if key, ok := groupVersionPath(ws.RootPath()); ok {
			byGV[key] = append(byGV[key], ws)
		}
	}
	out := map[string]*spec3.OpenAPI{}
	for key, wss := range byGV {
		doc, err := builder3.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(wss), &common.OpenAPIV3Config{
			Info:                           info,
			GetDefinitions:                 cfg.Definitions,
			GetDefinitionName:              getName,
			GetOperationIDAndTagsFromRoute: operationIDAndTags,
		})
		if err != nil {
			return nil, fmt.Errorf("cannot build OpenAPI v3 document of %s: %w", key, err)
		}
		out[key] = doc
	}
	return out, nil
}

// prepare checks cfg and returns the documents' info object and definition namer.
func (cfg Config) prepare() (*spec.Info, func(string) (string, spec.Extensions), error) {
	if cfg.Definitions == nil {
		return nil, nil, fmt.Errorf("cannot build OpenAPI documents: no definitions")
	}
	namer := cfg.Namer
	if namer == nil {
		namer = &DefinitionNamer{}
	}
	info := &spec.Info{InfoProps: spec.InfoProps{Title: cfg.Title, Version: cfg.Version}}
	if info.Title == "" {
		info.Title = "apigen API server"
	}
	if info.Version == "" {
		info.Version = "unversioned"
	}
	return info, namer.GetDefinitionName, nil
}

// MergeDefinitions returns the union of the definitions each of fns returns; for a type
// several describe, the last wins (the schemas of a shared type, such as metav1.ObjectMeta,
// are identical).
func MergeDefinitions(fns ...common.GetOpenAPIDefinitions) common.GetOpenAPIDefinitions {
	return func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		out := map[string]common.OpenAPIDefinition{}
		for _, fn := range fns {
			if fn == nil {
				continue
			}
			for name, def := range fn(ref) {
				out[name] = def
			}
		}
		return out
	}
}

// operationIDAndTags makes operation IDs unique across groups and versions as kube-apiserver's
// GetOperationIDAndTags does: the route's "readNamespacedDatabase" under
// /apis/db.example.com/v1 becomes "readDbExampleComV1NamespacedDatabase", tagged
// "dbExampleCom_v1". A name that starts with no known verb is kept as it is.
func operationIDAndTags(r common.Route) (string, []string, error) {
	op := r.OperationName()
	segments := strings.Split(strings.TrimPrefix(r.Path(), "/"), "/")
	var group, version string
	switch {
	case len(segments) >= 3 && segments[0] == "apis":
		group, version = segments[1], segments[2]
	case len(segments) >= 2 && segments[0] == "api":
		group, version = "core", segments[1]
	default:
		return op, []string{strings.Join(segments, "/")}, nil
	}
	tag := operationIDPart(group, false) + "_" + operationIDPart(version, false)
	verb := operationVerb(op)
	if verb == "" {
		// Not a resource operation (a hand-made route): keep its name; the builder still
		// rejects duplicates.
		return op, []string{tag}, nil
	}
	return verb + operationIDPart(group, true) + operationIDPart(version, true) + op[len(verb):], []string{tag}, nil
}

// operationVerbs are the verbs operation names start with, longest first so that
// "deletecollection" wins over "delete".
var operationVerbs = []string{"deletecollection", "replace", "create", "delete", "watch", "patch", "read", "list", "get"}

// operationVerb returns the verb op starts with, or "".
func operationVerb(op string) string {
	for _, v := range operationVerbs {
		if strings.HasPrefix(op, v) {
			return v
		}
	}
	return ""
}

// operationIDPart turns a group or version into an operation-ID fragment, as
// k8s.io/apiserver's ToValidOperationID: "db.example.com" -> "DbExampleCom" (capitalised) or
// "dbExampleCom", dropping every character that is not a letter or digit.
func operationIDPart(s string, capitalize bool) string {
	var b strings.Builder
	upper := capitalize
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			if upper {
				b.WriteString(strings.ToUpper(string(c)))
				upper = false
			} else {
				b.WriteRune(c)
			}
		default:
			upper = true
		}
	}
	return b.String()
}

// groupVersionPath returns the /openapi/v3 key of a WebService root path that is a group
// version: "/apis/g/v" -> "apis/g/v", "/api/v1" -> "api/v1".
func groupVersionPath(root string) (string, bool) {
	segments := strings.Split(strings.Trim(root, "/"), "/")
	switch {
	case len(segments) == 3 && segments[0] == "apis":
	case len(segments) == 2 && segments[0] == "api":
	default:
		return "", false
	}
	return strings.Join(segments, "/"), true
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// dropNullable clears nullable (an OpenAPI 3 property, from +nullable) in s and the schemas it
// holds: Swagger 2.0 has no such property, as kube-openapi's spec.Schema.ToGnostic leaves it
// out of v2; the v3 documents keep it.
func dropNullable(s *spec.Schema) {
	s.Nullable = false
	for name, p := range s.Properties {
		dropNullable(&p)
		s.Properties[name] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		dropNullable(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		dropNullable(s.AdditionalProperties.Schema)
	}
}
