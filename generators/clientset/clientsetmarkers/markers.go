// Package clientsetmarkers registers the markers the clientset generator
// (generators/clientset) owns: client-gen's +genclient tags and +groupGoName, and apigen's
// +apigen:clients. The listers, informers and applyconfigurations generators read the same
// markers from the model; by the owner rule (markers.Definition) they are registered here
// only. It is a package of its own, beside the generator, so that the loader can read the
// registrations without importing the generator (whose tests load API packages).
package clientsetmarkers

import (
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Owner is the generator these markers belong to.
const Owner = "clientset"

// Register registers the clientset generator's markers in reg.
func Register(reg *markers.Registry) {
	typ := markers.TypeLevel
	reg.MustRegister(
		markers.Definition{Name: "genclient", Level: typ, Owner: Owner, Apply: markers.Genclient,
			Help: "The kind gets a typed client, lister, informer and apply configuration, and is served."},
		markers.Definition{Name: "genclient:nonNamespaced", Level: typ, Owner: Owner,
			Apply: markers.Flag("nonNamespaced", func(m *model.Markers) *bool { return &m.NonNamespaced }),
			Help:  "The kind is cluster-scoped."},
		markers.Definition{Name: "genclient:noStatus", Level: typ, Owner: Owner,
			Apply: markers.Flag("noStatus", func(m *model.Markers) *bool { return &m.NoStatus }),
			Help:  "The client has no UpdateStatus or ApplyStatus."},
		markers.Definition{Name: "genclient:noVerbs", Level: typ, Owner: Owner,
			Apply: markers.Flag("noVerbs", func(m *model.Markers) *bool { return &m.NoVerbs }),
			Help:  "The client has no methods."},
		markers.Definition{Name: "genclient:readonly", Level: typ, Owner: Owner,
			Apply: markers.Flag("readonly", func(m *model.Markers) *bool { return &m.ReadOnly }),
			Help:  "The client has only get, list and watch."},
		markers.Definition{Name: "genclient:onlyVerbs", Level: typ, Owner: Owner,
			Apply: markers.ClientVerbList("onlyVerbs", func(m *model.Markers) *[]string { return &m.OnlyVerbs }),
			Args:  "=<verb>,...", Help: "The client has only these verbs; onlyVerbs=create alone makes a create-only kind."},
		markers.Definition{Name: "genclient:skipVerbs", Level: typ, Owner: Owner,
			Apply: markers.ClientVerbList("skipVerbs", func(m *model.Markers) *[]string { return &m.SkipVerbs }),
			Args:  "=<verb>,...", Help: "The client has every verb but these."},
		markers.Definition{Name: "genclient:method", Level: typ, Owner: Owner, Apply: markers.ClientMethod,
			Args: "=<Name>,verb=<verb>[,subresource=<path>][,input=<type>][,result=<type>]", Help: "An extra client method (repeatable)."},
		markers.Definition{Name: "groupGoName", Level: markers.PackageLevel, Owner: Owner,
			Apply: markers.String("groupGoName", func(m *model.Markers) *string { return &m.GroupGoName }),
			Args:  "=<Name>", Help: "The group's Go name in generated clients (DB for DBV1())."},
		markers.Definition{Name: "apigen:clients", Level: markers.PackageLevel, Owner: Owner,
			Apply: markers.Choice("clients", []string{"all"}, func(m *model.Markers) *string { return &m.Clients }),
			Args:  "=all", Help: "Every root kind of the API root gets typed clients, as if marked +genclient."},
		markers.Definition{Name: "kubebuilder:ac:", Level: markers.PackageLevel | typ, Owner: Owner, Family: true,
			Unhonored: "controller-gen's apply configuration options are not read; apigen generates apply configurations for +genclient kinds",
			Help:      "controller-gen's apply configuration options; accepted with a warning."},
	)
}
