package app

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/spf13/pflag"
)

// FeatureServerSideApply is the feature gate of field management and server-side apply,
// named as kube-apiserver's (on by default; locked on there since it went GA).
const FeatureServerSideApply = "ServerSideApply"

// FeatureGates are kube-apiserver's --feature-gates, "<name>=true|false" pairs, for the
// features apigen can turn off: only FeatureServerSideApply, which a benchmark turns off to
// measure field management's cost (example-api/bench/loadgen -field-management=false).
type FeatureGates struct {
	// Gates maps a feature's name to "true" or "false".
	Gates map[string]string
}

// AddFlags registers --feature-gates on fs.
func (g *FeatureGates) AddFlags(fs *pflag.FlagSet) {
	fs.StringToStringVar(&g.Gates, "feature-gates", g.Gates,
		"features to turn on or off, <name>=true|false comma-separated; known: "+FeatureServerSideApply+" (default true)")
}

// validate reports unknown features and values that are not booleans.
func (g *FeatureGates) validate() []string {
	var errs []string
	names := make([]string, 0, len(g.Gates))
	for name := range g.Gates {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name != FeatureServerSideApply {
			errs = append(errs, fmt.Sprintf("--feature-gates: unrecognized feature gate: %s", name))
		} else if _, err := strconv.ParseBool(g.Gates[name]); err != nil {
			errs = append(errs, fmt.Sprintf("--feature-gates: invalid value of %s: %s, err: %v", name, g.Gates[name], err))
		}
	}
	return errs
}

// Enabled reports whether feature is on: the value given, else true.
func (g *FeatureGates) Enabled(feature string) bool {
	v, ok := g.Gates[feature]
	if !ok {
		return true
	}
	on, err := strconv.ParseBool(v)
	return err != nil || on
}
