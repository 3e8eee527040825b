package install

import (
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
)

// serverVerbs returns the verbs the resource path (sub "" for the resource, "status" or
// "scale") of a kind whose +genclient tags limit its verbs serves, in kube's names and order,
// as registry.APIGroupInfo.Verbs wants them:
//
//	resource: get, list, watch, create, update, delete from the same client verbs; patch from
//	          patch or apply (a server-side apply is a PATCH); deletecollection from deleteCollection
//	status:   get from get; update from updateStatus; patch from patch or applyStatus
//	scale:    get from get, update from update, patch from patch, and get or update from a
//	          +genclient:method of that verb on the scale subresource
//
// +genclient:noVerbs leaves no verb.
func serverVerbs(c *model.Client, sub string) []string {
	if c.NoVerbs {
		return []string{}
	}
	has := c.HasVerb
	method := func(verb string) bool {
		return slices.ContainsFunc(c.Methods, func(m model.ClientMethod) bool { return m.Subresource == sub && m.Verb == verb })
	}
	var allowed map[string]bool
	switch sub {
	case "":
		allowed = map[string]bool{"get": has("get"), "list": has("list"), "watch": has("watch"), "create": has("create"),
			"update": has("update"), "patch": has("patch") || has("apply"), "delete": has("delete"), "deletecollection": has("deleteCollection")}
	case "status":
		allowed = map[string]bool{"get": has("get"), "update": has("updateStatus"), "patch": has("patch") || has("applyStatus")}
	default:
		allowed = map[string]bool{"get": has("get") || method("get"), "update": has("update") || method("update"), "patch": has("patch")}
	}
	out := []string{}
	for _, v := range []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"} {
		if allowed[v] {
			out = append(out, v)
		}
	}
	return out
}

// servedKind returns the kind called name in v when v serves it (declared and not
// +kubebuilder:unservedversion), else nil.
func servedKind(v *model.Version, name string) *model.Kind {
	if k := v.Kind(name); k != nil && !k.Unserved {
		return k
	}
	return nil
}

// byVersion returns one `"<version>": {...}` entry per version of g whose served kinds give
// entries, for a map[version]map[resource]... field of registry.APIGroupInfo.
func byVersion(g *model.Group, rs []*resource, entries func(k *model.Kind) []jen.Code) []jen.Code {
	var versions []jen.Code
	for _, v := range g.Versions {
		var items []jen.Code
		for _, r := range rs {
			if k := servedKind(v, r.kind.Name); k != nil {
				items = append(items, entries(k)...)
			}
		}
		if len(items) > 0 {
			versions = append(versions, jen.Lit(v.Name).Op(":").Custom(multi, items...))
		}
	}
	return versions
}

// verbsField renders the Verbs of registry.APIGroupInfo for the kinds of g whose client tags
// limit their verbs, or nil when none does.
func verbsField(g *model.Group, rs []*resource) jen.Code {
	versions := byVersion(g, rs, func(k *model.Kind) []jen.Code {
		if k.Client == nil || !k.Client.Limited || k.UserStorage == "rest" {
			return nil // a user's REST: registry.UserREST.Verbs, served by userRESTServe
		}
		var paths []jen.Code
		for _, sub := range subresources(k) {
			path := k.Plural
			if sub != "" {
				path += "/" + sub
			}
			verbs := serverVerbs(k.Client, sub)
			lits := make([]jen.Code, len(verbs))
			for i, vb := range verbs {
				lits[i] = jen.Lit(vb)
			}
			paths = append(paths, jen.Lit(path).Op(":").Index().String().Values(lits...))
		}
		return paths
	})
	if len(versions) == 0 {
		return nil
	}
	return jen.Id("Verbs").Op(":").Map(jen.String()).Map(jen.String()).Index().String().Custom(multi, versions...)
}

// subresources lists the resource paths of k below its resource: "" (the resource itself),
// "status" and "scale" when it has them.
func subresources(k *model.Kind) []string {
	subs := []string{""}
	if k.StatusSubresource {
		subs = append(subs, "status")
	}
	if k.Scale != nil {
		subs = append(subs, "scale")
	}
	return subs
}

// deprecationField renders the DeprecationWarnings of registry.APIGroupInfo for the kinds of
// g marked +kubebuilder:deprecatedversion, or nil when none is.
func deprecationField(g *model.Group, rs []*resource) jen.Code {
	versions := byVersion(g, rs, func(k *model.Kind) []jen.Code {
		if k.DeprecationWarning == "" {
			return nil
		}
		return []jen.Code{jen.Lit(k.Plural).Op(":").Lit(k.DeprecationWarning)}
	})
	if len(versions) == 0 {
		return nil
	}
	return jen.Id("DeprecationWarnings").Op(":").Map(jen.String()).Map(jen.String()).String().Custom(multi, versions...)
}

// servedVersions are the versions of g that serve at least one kind, or declare none: a
// version whose every kind is +kubebuilder:unservedversion is not served, as a CRD version
// with served: false is not.
func servedVersions(g *model.Group) []*model.Version {
	var out []*model.Version
	for _, v := range g.Versions {
		served := len(v.Kinds) == 0
		for _, k := range v.Kinds {
			served = served || !k.Unserved
		}
		if served {
			out = append(out, v)
		}
	}
	return out
}
