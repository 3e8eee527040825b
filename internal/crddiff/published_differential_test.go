package crddiff

import (
	"testing"
)

// publishedPerKind is how many generated inputs each kind gets in TestPublishedDifferential
// (a quarter under -short: perKind).
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
			diffKind(t, subj, tg, "the published schema", tg.samples(t), nil, tg.generate(uint64(1000+i), perKind(publishedPerKind)), divergences)
		})
	}
}
