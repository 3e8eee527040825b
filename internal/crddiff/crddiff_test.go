package crddiff

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"sigs.k8s.io/yaml"

	dbinstall "github.com/apigen-dev/apigen/example-api/apis/db/install"
	robotsinstall "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/api/v1/install"
	"github.com/apigen-dev/apigen/runtime/app"
)

// kindUnderTest is one row of kinds: a kind served by apigen, compared in one version.
type kindUnderTest struct {
	group, version, kind string
	// pkg is the Go package of the version's types, which controller-gen reads.
	pkg string
	// build builds the apigen group serving it (a generated install.NewAPIGroupInfo).
	build app.GroupBuilder
	// samples are committed objects of the kind (YAML files, paths from the module root).
	samples []string
	// crd is the CRD the oracle serves the kind from; nil means controller-gen's CRD of pkg.
	crd *apiextensionsv1.CustomResourceDefinition
}

// The Go packages of the kinds under test.
const (
	dbV1     = "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	robotsV1 = "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/api/v1"
)

// kinds are the kinds under test; another kind is one more row.
var kinds = []kindUnderTest{
	{group: "db.example.com", version: "v1", kind: "Database", pkg: dbV1, build: dbinstall.NewAPIGroupInfo,
		samples: []string{"example-api/config/samples/db_v1_database.yaml"}},
	{group: "db.example.com", version: "v1", kind: "DatabaseClass", pkg: dbV1, build: dbinstall.NewAPIGroupInfo,
		samples: []string{"example-api/config/samples/db_v1_databaseclass.yaml"}},
	{group: "db.example.com", version: "v1", kind: "Backup", pkg: dbV1, build: dbinstall.NewAPIGroupInfo,
		samples: []string{"example-api/config/samples/db_v1_backup.yaml"}},
	{group: "robots.example.com", version: "v1", kind: "Robot", pkg: robotsV1, build: robotsinstall.NewAPIGroupInfo},
	{group: "robots.example.com", version: "v1", kind: "Factory", pkg: robotsV1, build: robotsinstall.NewAPIGroupInfo},
}

// generatedPerKind is how many generated inputs each kind gets (a quarter under -short:
// perKind).
const generatedPerKind = 1200

// shortShare divides the generated inputs of each differential (generatedPerKind,
// extensionsPerKind, publishedPerKind) under go test -short: the inner loop (make test-short)
// checks every kind, its samples, examples and cases and a quarter of the generated inputs
// (the first quarter: the same seeds), for 6 CPU-s where half of them took 11; make test
// sends all of them. (A fifth was too few: Gateway v1beta1's first 100 inputs fail the 10%
// mix check; its first 125 pass it.)
const shortShare = 4

// perKind is n generated inputs, or n/shortShare under -short.
func perKind(n int) int {
	if testing.Short() {
		return n / shortShare
	}
	return n
}

// name is "<group>/<version> <Kind>".
func (k kindUnderTest) name() string { return k.group + "/" + k.version + "/" + k.kind }

// groupBuilders returns the builder of every group of kinds, once each.
func groupBuilders() []app.GroupBuilder {
	seen := map[string]bool{}
	var out []app.GroupBuilder
	for _, k := range kinds {
		if !seen[k.group] {
			seen[k.group] = true
			out = append(out, k.build)
		}
	}
	return out
}

// target is one kind made ready: its oracle, the collection path apigen serves it at and
// the namespace of its objects ("" when cluster-scoped).
type target struct {
	kindUnderTest
	oracle    *oracle
	path      string
	namespace string
}

// newTarget sets up k from its CRD: k.crd, or controller-gen's.
func newTarget(t testing.TB, k kindUnderTest) *target {
	t.Helper()
	crd := k.crd
	if crd == nil {
		crds, err := generatedCRDs()
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		if crd, ok = crds[k.group+"/"+k.kind]; !ok {
			t.Fatalf("controller-gen wrote no CRD for %s", k.name())
		}
	}
	o, err := newOracle(crd, k.version)
	if err != nil {
		t.Fatal(err)
	}
	tg := &target{kindUnderTest: k, oracle: o, path: fmt.Sprintf("/apis/%s/%s/%s", k.group, k.version, crd.Spec.Names.Plural)}
	if o.namespaced {
		tg.namespace = "default"
		tg.path = fmt.Sprintf("/apis/%s/%s/namespaces/default/%s", k.group, k.version, crd.Spec.Names.Plural)
	}
	return tg
}

// input is one create request body and where it came from.
type input struct {
	name string
	body []byte
	// mutations are what was done to a valid object to make it (none for valid ones).
	mutations []mutation

	// Set by run: the body decoded, the kind's schema, both outcomes and their differences.
	object         map[string]any
	schema         *structuralschema.Structural
	oracle, apigen outcome
	diffs          []difference
	// table is the divergences table unexplained classifies with (a field, so that a row
	// may consult the others without an initialization cycle); divergences when nil.
	table []divergence
}

// samples reads k's committed samples.
func (tg *target) samples(t testing.TB) []input {
	var out []input
	for _, p := range tg.kindUnderTest.samples {
		data, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Fatal(err)
		}
		body, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, input{name: p, body: body})
	}
	return out
}

// generate draws n inputs for tg from seed: 40% valid objects, the others a valid object
// with one mutation (a second one a fifth of the time).
func (tg *target) generate(seed uint64, n int) []input {
	g := newGenerator(seed)
	out := make([]input, 0, n)
	for i := range n {
		mutations := 0
		if !g.chance(0.4) {
			mutations = 1 + b2i(g.chance(0.2))
		}
		in := tg.draw(g, i, mutations)
		in.name = fmt.Sprintf("generated #%d (seed %d)", i, seed)
		out = append(out, in)
	}
	return out
}

// draw draws a valid object named gen-<i> and applies up to mutations mutations to it.
func (tg *target) draw(g *generator, i, mutations int) input {
	obj := tg.validObject(g, i)
	var in input
	for range mutations {
		if m, ok := g.pick(g.mutations(obj, tg.oracle.structural)); ok {
			m.apply(obj)
			in.mutations = append(in.mutations, m)
		}
	}
	in.body, _ = json.Marshal(obj)
	return in
}

// validObject draws an object of tg's kind named gen-<i>.
func (tg *target) validObject(g *generator, i int) map[string]any {
	obj := g.object(tg.oracle.structural, 4)
	obj["apiVersion"] = tg.group + "/" + tg.version
	obj["kind"] = tg.kind
	md := map[string]any{"name": fmt.Sprintf("gen-%d", i)}
	if tg.namespace != "" {
		md["namespace"] = tg.namespace
	}
	if g.chance(0.2) {
		md["labels"] = map[string]any{"app": g.word(1, 8)}
	}
	obj["metadata"] = md
	return obj
}

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// run sends in through both sides and compares the outcomes, filling in's outcome fields.
func (tg *target) run(subj *subject, in *input) {
	in.schema = tg.oracle.structural
	in.object = nil
	_ = json.Unmarshal(in.body, &in.object)
	in.oracle = tg.oracle.create(in.body, tg.namespace)
	in.apigen = subj.create(tg.path, in.body)
	in.diffs = compare(in.oracle, in.apigen)
}

// unexplained returns the differences of in that no row of in.table (divergences when
// unset) matches, and counts the rows that match the others in rows (by row index; nil to
// skip counting).
func (in *input) unexplained(rows map[int]int) []difference {
	var out []difference
	seen := map[int]bool{}
	if in.table == nil {
		in.table = divergences
	}
	for _, d := range in.diffs {
		row := -1
		for i, dv := range in.table {
			if dv.match(in, d) {
				row = i
				break
			}
		}
		if row < 0 {
			out = append(out, d)
		} else if !seen[row] && rows != nil {
			seen[row] = true
			rows[row]++ // inputs per row, not differences
		}
	}
	return out
}

// describe renders in for a failure message: where it came from, the body and the outcomes.
func (in *input) describe() string {
	return fmt.Sprintf("%s %v\n  body:   %s\n  oracle: %s\n  apigen: %s", in.name, in.mutations, in.body, in.oracle, in.apigen)
}

// TestDifferential sends every kind's samples and generatedPerKind generated inputs through
// the oracle and through apigen's create path, and fails on any difference that the
// divergences table does not explain, or when the oracle accepted or rejected fewer than 10%
// of the generated inputs (a generator that no longer exercises both sides).
func TestDifferential(t *testing.T) {
	subj := startSubject(t, groupBuilders()...)
	for i, k := range kinds {
		t.Run(k.name(), func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, k)
			diffKind(t, subj, tg, "the oracle", tg.samples(t), nil, tg.generate(uint64(i+1), perKind(generatedPerKind)), divergences)
		})
	}
}

// diffKind runs the inputs of tg through subj and tg's oracle (oracleName in messages): first
// fixed, the committed samples or examples (each sent to namespaces[j] when namespaces is not
// nil), which the oracle must accept unless the input's name starts with "case: " (a
// hand-written case), each logged; then generated. It fails t on a difference no row of table
// explains (the first ten in full) and on a degenerate mix (the oracle accepting or rejecting
// fewer than 10% of the generated inputs), and logs the counts and the rows that explained
// differences.
func diffKind(t *testing.T, subj *subject, tg *target, oracleName string, fixed []input, namespaces []string, generated []input, table []divergence) {
	rows := map[int]int{}
	var failures []string
	accepted, agree := 0, 0
	for j, in := range append(fixed, generated...) {
		in.table = table
		if j < len(fixed) {
			at := tg
			if namespaces != nil {
				at = tg.inNamespace(namespaces[j])
			}
			at.run(subj, &in)
			t.Logf("%s: oracle %s; apigen %s; %d differences", in.name, in.oracle, in.apigen, len(in.diffs))
			if !in.oracle.accepted && !strings.HasPrefix(in.name, "case: ") {
				t.Errorf("%s rejects %s: %s", oracleName, in.name, in.oracle)
			}
		} else {
			tg.run(subj, &in)
			if in.oracle.accepted {
				accepted++
			}
		}
		if len(in.diffs) == 0 {
			agree++
		}
		if bad := in.unexplained(rows); len(bad) > 0 {
			failures = append(failures, in.describe()+"\n  unexplained:\n    "+strings.ReplaceAll(summary(bad), "\n", "\n    "))
		}
	}
	t.Logf("%s: %d samples, examples and cases and %d generated inputs; %s accepted %d and rejected %d of the "+
		"generated; %d inputs came out the same on both sides", tg.name(), len(fixed), len(generated), oracleName, accepted,
		len(generated)-accepted, agree)
	for row, dv := range table {
		if n := rows[row]; n > 0 {
			t.Logf("%5d inputs differ as %q: %s", n, dv.category, short(dv.reason))
		}
	}
	if accepted < len(generated)/10 || len(generated)-accepted < len(generated)/10 {
		t.Errorf("a degenerate mix: %s accepted %d of %d generated inputs; each side must be at least 10%%", oracleName, accepted, len(generated))
	}
	for _, f := range failures[:min(len(failures), 10)] {
		t.Errorf("an unexplained divergence:\n%s", f)
	}
	if len(failures) > 10 {
		t.Errorf("... and %d more inputs with unexplained divergences", len(failures)-10)
	}
}

// short is the first clause of a reason, for logs.
func short(reason string) string {
	if i := strings.IndexAny(reason, ":;("); i > 0 {
		return reason[:i]
	}
	return reason
}

// FuzzDifferential is TestDifferential's check for inputs the fuzzer chooses: a kind, the
// seed of the generator and a number of mutations (0 to 3) draw one input, which must come
// out the same on both sides up to the divergences table. Kinds past those of kinds are
// TestExtensionsDifferential's (extensionsFuzz). make test makes the same draws without the
// fuzzer (TestDifferentialDraws). Skipped under -short, as TestDifferentialDraws is.
func FuzzDifferential(f *testing.F) {
	if testing.Short() {
		f.Skip("starts two servers to check its seed inputs, as TestDifferentialDraws does; make test runs them")
	}
	d := newDraws(f, f.Add)
	f.Fuzz(func(t *testing.T, kind uint8, seed uint64, mutations uint8) {
		d.check(t, int(kind), seed, mutations)
	})
}

// drawsPerRun is how many inputs TestDifferentialDraws draws: as many as make fuzz gave
// FuzzDifferential before it moved out of the fuzz pass.
const drawsPerRun = 500

// drawsSeed repeats a run of TestDifferentialDraws.
var drawsSeed = flag.Uint64("crddiff.draws-seed", 0, "the seed of TestDifferentialDraws (0: a new one each run, logged)")

// TestDifferentialDraws makes FuzzDifferential's check for drawsPerRun inputs drawn at random
// from a seed new each run (logged; -crddiff.draws-seed repeats a run). FuzzDifferential's
// inputs only seed the generator, so coverage guidance steers little of what an input
// holds, while the fuzzer's instrumented build of this package's ~1,400 dependencies cost
// make fuzz as much CPU as its other nine targets together (498 CPU-s against 644
// on a cold cache). make test draws the inputs here instead; go test -fuzz still runs
// FuzzDifferential for as long as one wants.
func TestDifferentialDraws(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers and sends 500 inputs through both sides")
	}
	t.Parallel()
	seed := *drawsSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (repeat with go test -run TestDifferentialDraws ./internal/crddiff -crddiff.draws-seed=%d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 0))
	d := newDraws(t, nil)
	for range drawsPerRun {
		d.check(t, r.IntN(d.kinds()), r.Uint64(), uint8(r.UintN(8)))
	}
}

// draws is the differential of drawn inputs, FuzzDifferential's and TestDifferentialDraws':
// the kinds of kinds on apigen's subject, then the extensions server's (extensionsFuzz).
type draws struct {
	subj    *subject
	targets []*target
	ext     *extensionsFuzz
}

// newDraws starts both subjects; add, when not nil, receives three seed inputs per kind (a
// fuzz target's corpus).
func newDraws(t testing.TB, add func(args ...any)) *draws {
	d := &draws{subj: startSubject(t, groupBuilders()...)}
	for i, k := range kinds {
		d.targets = append(d.targets, newTarget(t, k))
		if add != nil {
			add(uint8(i), uint64(i+1), uint8(0))
			add(uint8(i), uint64(i+100), uint8(1))
			add(uint8(i), uint64(i+200), uint8(2))
		}
	}
	d.ext = newExtensionsFuzz(t, len(d.targets), add) // Gateway API's release CRDs on the extensions server
	return d
}

// kinds is how many kinds check draws from.
func (d *draws) kinds() int { return len(d.targets) + len(d.ext.targets) }

// check draws one input of kind number kind (modulo kinds) from seed with mutations%4
// mutations (and, for the extensions server's kinds, a sibling when mutations&4 is set), and
// fails t on a difference the divergences table does not explain.
func (d *draws) check(t *testing.T, kind int, seed uint64, mutations uint8) {
	i := kind % d.kinds()
	if i >= len(d.targets) {
		d.ext.check(t, i-len(d.targets), seed, mutations)
		return
	}
	tg := d.targets[i]
	in := tg.draw(newGenerator(seed), 0, int(mutations%4))
	in.name = fmt.Sprintf("%s seed %d", tg.name(), seed)
	tg.run(d.subj, &in)
	if bad := in.unexplained(nil); len(bad) > 0 {
		t.Errorf("an unexplained divergence:\n%s\n  unexplained:\n    %s", in.describe(), strings.ReplaceAll(summary(bad), "\n", "\n    "))
	}
}
