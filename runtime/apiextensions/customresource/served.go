package customresource

import (
	"sort"

	"github.com/apigen-dev/apigen/runtime/registry"
)

// ServedResource is one custom resource the Handler serves, for in-process controllers (the
// garbage collector) that read and write its objects without HTTP.
type ServedResource struct {
	// Group and Plural name the resource ("stable.example.com", "crontabs"); Kind its
	// objects' kind ("CronTab").
	Group, Plural, Kind string
	// Namespaced reports whether its objects live in namespaces.
	Namespaced bool
	// Versions are its served versions, preferred first (kube's version priority).
	Versions []string
	// Store serves its objects (as *unstructured.Unstructured in the storage version) through
	// the preferred version's strategy: the same Store requests to that version use.
	Store *registry.Store
}

// ServedResources returns the custom resources served now, sorted by group and plural.
func (h *Handler) ServedResources() []ServedResource {
	var out []ServedResource
	for _, g := range *h.served.Load() {
		for plural, r := range g.resources {
			versions := make([]string, 0, len(r.def.Versions))
			for _, v := range r.def.Versions {
				versions = append(versions, v.Name)
			}
			sortVersions(versions)
			out = append(out, ServedResource{Group: r.def.Group, Plural: plural, Kind: r.def.Names.Kind,
				Namespaced: r.def.Namespaced, Versions: versions, Store: r.stores[versions[0]]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Plural < out[j].Plural
	})
	return out
}

// OnChange registers f, called (without locks held) after every Set and Remove that changed
// what is served, so that a controller can pick up new resources at once. f must not block.
func (h *Handler) OnChange(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.listeners = append(h.listeners, f)
}

// notify calls the OnChange listeners.
func (h *Handler) notify() {
	h.mu.Lock()
	listeners := append([]func(){}, h.listeners...)
	h.mu.Unlock()
	for _, f := range listeners {
		f()
	}
}
