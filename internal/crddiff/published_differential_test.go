package crddiff

import (
	"strings"
	"testing"
)

// publishedPerKind is how many generated inputs each kind gets in TestPublishedDifferential.
const publishedPerKind = 600

// TestPublishedDifferential is TestDifferential with the schema the subject publishes for each
// kind as the oracle's (newPublishedTarget), on every kind of publishedKinds: samples and
// publishedPerKind generated inputs, drawn from the published schema, through both sides; a
// difference no row of divergences explains fails the test. (Every difference found so far is
// one the controller-gen differential has too: no row is the published schema's own.)
func TestPublishedDifferential(t *testing.T) {
	subj := startSubject(t, groupBuilders()...)
	for i, k := range publishedKinds {
		t.Run(k.name(), func(t *testing.T) {
			t.Parallel()
			tg, _ := newPublishedTarget(t, subj, k)
			samples := tg.samples(t)
			generated := tg.generate(uint64(1000+i), publishedPerKind)
			rows := map[int]int{}
			var failures []string
			accepted, agree := 0, 0
			for j, in := range append(samples, generated...) {
				tg.run(subj, &in)
				if j >= len(samples) && in.oracle.accepted {
					accepted++
				}
				if len(in.diffs) == 0 {
					agree++
				}
				if bad := in.unexplained(rows); len(bad) > 0 {
					failures = append(failures, in.describe()+"\n  unexplained:\n    "+strings.ReplaceAll(summary(bad), "\n", "\n    "))
				}
			}
			t.Logf("%s: %d samples and %d generated inputs; the published schema accepted %d and rejected %d of the generated; "+
				"%d inputs came out the same on both sides", k.name(), len(samples), len(generated), accepted, len(generated)-accepted, agree)
			for r, dv := range divergences {
				if n := rows[r]; n > 0 {
					t.Logf("%5d inputs differ as %q: %s", n, dv.category, short(dv.reason))
				}
			}
			if accepted < len(generated)/10 || len(generated)-accepted < len(generated)/10 {
				t.Errorf("a degenerate mix: the published schema accepted %d of %d generated inputs; each side must be at least 10%%", accepted, len(generated))
			}
			for _, f := range failures[:min(len(failures), 10)] {
				t.Errorf("an unexplained divergence:\n%s", f)
			}
			if len(failures) > 10 {
				t.Errorf("... and %d more inputs with unexplained divergences", len(failures)-10)
			}
		})
	}
}
