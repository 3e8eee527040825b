package flowcontrol

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	flowcontrolapi "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
)

// config is one digest of the FlowSchemas and PriorityLevelConfigurations: the schemas in
// matching order, each with its level, and the levels by name.
type config struct {
	schemas []*schema
	levels  map[string]*level
	// catchAll is where a request no schema matches goes: the catch-all schema and level
	// (kube's mandatory ones, as configured or, when missing, their built-in copies).
	catchAll *schema
}

// schema is a FlowSchema and the level it names.
type schema struct {
	fs    *flowcontrolv1.FlowSchema
	level *level
}

// level is a priority level, its nominal seats and its queue set (shared with the digests
// before it while its seats and queuing parameters stay the same).
type level struct {
	pl    *flowcontrolv1.PriorityLevelConfiguration
	seats int
	set   *queueSet
}

// levelParams are the parts of a PriorityLevelConfiguration the queue set depends on.
func levelParams(pl *flowcontrolv1.PriorityLevelConfiguration) (exempt bool, q queuing) {
	if pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt || pl.Spec.Limited == nil {
		return true, queuing{}
	}
	lr := pl.Spec.Limited.LimitResponse
	if lr.Type == flowcontrolv1.LimitResponseTypeQueue && lr.Queuing != nil {
		return false, queuing{queues: int(lr.Queuing.Queues), handSize: int(lr.Queuing.HandSize), queueLengthLimit: int(lr.Queuing.QueueLengthLimit)}
	}
	return false, queuing{}
}

// shares is a level's nominalConcurrencyShares (kube's default, 30, for a Limited level
// without one).
func shares(pl *flowcontrolv1.PriorityLevelConfiguration) int {
	switch {
	case pl.Spec.Limited != nil:
		if s := pl.Spec.Limited.NominalConcurrencyShares; s != nil {
			return int(*s)
		}
		return int(flowcontrolv1.PriorityLevelConfigurationDefaultNominalConcurrencyShares)
	case pl.Spec.Exempt != nil && pl.Spec.Exempt.NominalConcurrencyShares != nil:
		return int(*pl.Spec.Exempt.NominalConcurrencyShares)
	}
	return 0
}

// digest builds the config of schemas and levels for serverSeats seats in all, reusing
// prev's queue sets for the levels whose parameters did not change. Each Limited level gets
// ceil(serverSeats * shares / sum of every level's shares) seats, as kube's nominal
// concurrency limits. The mandatory exempt and catch-all objects stand in for missing ones.
func digest(fss []*flowcontrolv1.FlowSchema, pls []*flowcontrolv1.PriorityLevelConfiguration, serverSeats int, prev *config) (*config, error) {
	byName := map[string]*flowcontrolv1.PriorityLevelConfiguration{}
	for _, pl := range pls {
		byName[pl.Name] = pl
	}
	for _, pl := range mandatoryLevels {
		if _, ok := byName[pl.Name]; !ok {
			byName[pl.Name] = pl
		}
	}
	sum := 0
	for _, pl := range byName {
		sum += shares(pl)
	}
	c := &config{levels: map[string]*level{}}
	for name, pl := range byName {
		exempt, q := levelParams(pl)
		seats := 0
		if !exempt && sum > 0 {
			seats = int(math.Ceil(float64(serverSeats) * float64(shares(pl)) / float64(sum)))
		}
		l := &level{pl: pl, seats: seats}
		if prev != nil {
			if old, ok := prev.levels[name]; ok && old.set.exempt == exempt && old.set.params == q {
				l.set = old.set
				if old.seats != seats {
					l.set.setLimit(seats)
				}
			}
		}
		if l.set == nil {
			set, err := newQueueSet(seats, exempt, q)
			if err != nil {
				return nil, fmt.Errorf("priority level %s: %w", name, err)
			}
			l.set = set
		}
		c.levels[name] = l
	}
	haveSchema := map[string]bool{}
	for _, fs := range fss {
		haveSchema[fs.Name] = true
	}
	all := slices.Clone(fss)
	for _, fs := range mandatorySchemas {
		if !haveSchema[fs.Name] {
			all = append(all, fs)
		}
	}
	for _, fs := range all {
		l, ok := c.levels[fs.Spec.PriorityLevelConfiguration.Name]
		if !ok { // dangling: skipped, as kube's
			continue
		}
		s := &schema{fs: fs, level: l}
		c.schemas = append(c.schemas, s)
		if fs.Name == flowcontrolv1.FlowSchemaNameCatchAll {
			c.catchAll = s
		}
	}
	slices.SortFunc(c.schemas, func(a, b *schema) int {
		return cmp.Or(cmp.Compare(a.fs.Spec.MatchingPrecedence, b.fs.Spec.MatchingPrecedence), cmp.Compare(a.fs.Name, b.fs.Name))
	})
	if c.catchAll == nil { // the catch-all schema names a missing level: the built-in pair
		c.catchAll = &schema{fs: mandatorySchemas[1], level: c.levels[flowcontrolv1.PriorityLevelConfigurationNameCatchAll]}
	}
	return c, nil
}

// The mandatory and suggested objects of kube's bootstrap configuration, as this API's
// types (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap, whose JSON is the same).
var (
	mandatoryLevels  = convertAll[flowcontrolv1.PriorityLevelConfiguration](bootstrap.MandatoryPriorityLevelConfigurations)
	mandatorySchemas = convertAll[flowcontrolv1.FlowSchema](bootstrap.MandatoryFlowSchemas)
	suggestedLevels  = convertAll[flowcontrolv1.PriorityLevelConfiguration](bootstrap.SuggestedPriorityLevelConfigurations)
	suggestedSchemas = convertAll[flowcontrolv1.FlowSchema](bootstrap.SuggestedFlowSchemas)
)

// convertAll converts k8s.io/api/flowcontrol/v1 objects to this API's through their JSON
// (the same by construction), with this API's defaults set. It panics on a failure: the
// input is a fixed table.
func convertAll[T any, PT interface {
	*T
}, S interface {
	*flowcontrolapi.FlowSchema | *flowcontrolapi.PriorityLevelConfiguration
}](in []S) []PT {
	out := make([]PT, 0, len(in))
	for _, o := range in {
		data, err := json.Marshal(o)
		if err != nil {
			panic(err)
		}
		var t T
		if err := json.Unmarshal(data, &t); err != nil {
			panic(err)
		}
		p := PT(&t)
		switch x := any(p).(type) {
		case *flowcontrolv1.FlowSchema:
			flowcontrolv1.SetObjectDefaults_FlowSchema(x)
		case *flowcontrolv1.PriorityLevelConfiguration:
			flowcontrolv1.SetObjectDefaults_PriorityLevelConfiguration(x)
		}
		out = append(out, p)
	}
	return out
}
