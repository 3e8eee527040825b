package load

import (
	"fmt"

	"github.com/apigen-dev/apigen/generators/model"
)

// restStorage checks the kinds of g whose REST the user writes (+apigen:storage=rest): each
// version's kind of that name carries the marker, the kind has no status or scale
// subresource and is not create-only (the user's REST serves the resource alone), and the
// hand-written files of the install package declare the constructor the generated
// NewAPIGroupInfo calls, new<Kind>REST (generators/install.RESTFunc). Each failure is an
// error at the kind saying what to write.
func (b *builder) restStorage(g *model.Group) {
	rest := map[string]bool{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if k.UserStorage == "rest" {
				rest[k.Name] = true
			}
		}
	}
	checked := map[string]bool{}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if !rest[k.Name] {
				continue
			}
			if k.UserStorage != "rest" {
				b.errorf(k.Pos, "%s of %s/%s is served by the user's REST in another version (+apigen:storage=rest): "+
					"mark it +apigen:storage=rest in every version", k.Name, g.Name, v.Name)
				continue
			}
			switch {
			case k.CreateOnly:
				b.errorf(k.Pos, "+apigen:storage=rest on %s: a create-only kind (+genclient:onlyVerbs=create) is served by the "+
					"generated CreateOnlyStore; remove one of the two", k.Name)
			case k.StatusSubresource:
				b.errorf(k.Pos, "+apigen:storage=rest on %s: the user's REST serves the resource only, not a status subresource; "+
					"remove +kubebuilder:subresource:status (or, for a Status field under +genclient, add +genclient:noStatus)", k.Name)
			case k.Scale != nil:
				b.errorf(k.Pos, "+apigen:storage=rest on %s: the user's REST serves the resource only, not a scale subresource; "+
					"remove +kubebuilder:subresource:scale", k.Name)
			}
			if checked[k.Name] {
				continue
			}
			checked[k.Name] = true
			fn := "new" + k.Name + "REST"
			if g.HandInstall != nil {
				if _, ok := g.HandInstall.Funcs[fn]; ok {
					continue
				}
			}
			b.errorf(k.Pos, "+apigen:storage=rest on %s: the generated NewAPIGroupInfo calls %s; write, in a hand-written "+
				"file of %s (package install), %s", k.Name, fn, g.InstallDir, restSignature(k.Name))
		}
	}
}

// restSignature is the signature of the constructor of a +apigen:storage=rest kind's REST,
// with the import paths of its types: the result implements rest.Getter and any of List,
// rest.Watcher, rest.Creater, rest.Updater, rest.GracefulDeleter, rest.CollectionDeleter
// (runtime/registry.UserREST); group holds the group's other resources, already built.
func restSignature(kind string) string {
	return fmt.Sprintf("func new%sREST(scheme *runtime.Scheme, group *registry.APIGroupInfo) (rest.Getter, error) "+
		"(runtime %q, registry %q, rest %q)", kind, runtimePath,
		"github.com/apigen-dev/apigen/runtime/registry", "github.com/apigen-dev/apigen/runtime/rest")
}
