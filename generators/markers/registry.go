package markers

import (
	"fmt"
	"sort"
	"strings"
)

// Level says where a marker goes: on a package (its doc.go), a type, a struct field or a
// function, as controller-tools' markers.TargetType. A marker may go on several.
type Level uint8

// The levels of Level, combined with |.
const (
	PackageLevel Level = 1 << iota
	TypeLevel
	FieldLevel
	FuncLevel
)

// String lists the levels, "package", "type", "field" or "func", joined by ", ".
func (l Level) String() string {
	var out []string
	for i, name := range []string{"package", "type", "field", "func"} {
		if l&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return strings.Join(out, ", ")
}

// Definition is one marker a generator registers, as controller-tools' markers.Definition
// made by markers.MakeDefinition and registered in genall.Generator.RegisterMarkers: its name,
// where it goes, which generator owns it, its help, and its grammar.
//
// The owner rule: a marker several generators read (+kubebuilder:validation:Minimum is read by
// the validation, openapi and crd generators) is registered once, by the generator that does
// what the marker is named for in its tool of origin (validation for the value constraints,
// crd for the CRD's names and versions, clientset for client-gen's tags, defaulting for
// defaults, openapi for kube-openapi's list, map and struct types). Registering one name
// twice is an error (Registry.Register).
type Definition struct {
	// Name is the marker without "+" and without arguments, e.g.
	// "kubebuilder:validation:Minimum"; for a Family, the prefix every member starts with.
	Name string
	// Level is where the marker goes.
	Level Level
	// Owner names the generator that registers the marker (its package under generators/,
	// e.g. "crd").
	Owner string
	// Args is the syntax of the marker's arguments or value as written after the name
	// ("=<number>", ":path=<plural>,scope=Namespaced|Cluster", "(<Feature>)=+<marker>",
	// "[=true]" for an optional part); "" for a bare flag.
	Args string
	// Help is one sentence (or two) saying what the marker does, as `apigen markers` prints
	// it after the name, Args and Level.
	Help string
	// Apply parses the marker's value into the model; nil for a marker that is accepted but
	// sets nothing (+k8s:deepcopy-gen=package).
	Apply ApplyFunc
	// Unhonored, when set, says why apigen cannot do what the marker does in its tool of
	// origin: the marker is accepted and each use is a warning at its file:line with this
	// reason; Apply is not called.
	Unhonored string
	// Family marks an open-ended family of markers (+kubebuilder:rbac:groups=...): every
	// marker whose text starts with Name is this one.
	Family bool
}

// Registry holds the marker definitions of every generator: the grammar Parse reads markers
// with and the help `apigen markers` prints, as controller-tools' markers.Registry.
type Registry struct {
	defs     map[string]*Definition
	families []*Definition
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{defs: map[string]*Definition{}} }

// Register adds definitions. Errors: an empty name, owner or help, no level, or a name
// already registered (naming both owners): each marker has one owner.
func (r *Registry) Register(defs ...Definition) error {
	for _, d := range defs {
		switch {
		case d.Name == "" || strings.HasPrefix(d.Name, "+"):
			return fmt.Errorf("marker %q: the name is written without \"+\" and must not be empty", d.Name)
		case d.Owner == "":
			return fmt.Errorf("marker +%s: no owner generator", d.Name)
		case strings.TrimSpace(d.Help) == "":
			return fmt.Errorf("marker +%s (%s): no help", d.Name, d.Owner)
		case d.Level == 0:
			return fmt.Errorf("marker +%s (%s): no level (package, type, field or func)", d.Name, d.Owner)
		}
		if prev, ok := r.defs[d.Name]; ok {
			return fmt.Errorf("marker +%s registered by %s and by %s: a marker has one owner", d.Name, prev.Owner, d.Owner)
		}
		d := d
		r.defs[d.Name] = &d
		if d.Family {
			r.families = append(r.families, &d)
		}
	}
	return nil
}

// MustRegister is Register, panicking on its error: for the registrations of generator
// packages, which are fixed at compile time.
func (r *Registry) MustRegister(defs ...Definition) {
	if err := r.Register(defs...); err != nil {
		panic(err)
	}
}

// Lookup returns the definition registered under name.
func (r *Registry) Lookup(name string) (Definition, bool) {
	d, ok := r.defs[name]
	if !ok {
		return Definition{}, false
	}
	return *d, true
}

// Find returns the definition a marker is read as, given the marker's text without "+"
// ("kubebuilder:validation:Minimum=0", "kubebuilder:rbac:groups=x", "k8s:ifEnabled(X)=+..."):
// the family it belongs to or the longest registered name that prefixes it at a ":" boundary.
func (r *Registry) Find(body string) (Definition, bool) {
	name, _, known := r.lookup(body)
	if !known {
		return Definition{}, false
	}
	return *r.defs[name], true
}

// Definitions returns every definition, sorted by name.
func (r *Registry) Definitions() []Definition {
	out := make([]Definition, 0, len(r.defs))
	for _, d := range r.defs {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// family returns the family body belongs to, or nil.
func (r *Registry) family(body string) *Definition {
	for _, d := range r.families {
		if strings.HasPrefix(body, d.Name) {
			return d
		}
	}
	return nil
}
