package crddiff

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// exercise is what became of one stated constraint: the input that broke it, how it was
// sent, and both answers.
type exercise struct {
	constraint
	// mutation made the input from a valid object; route is "create" (a POST), "status" (a
	// PUT of the status subresource), "update of create" or "update of status" (a PUT of the
	// stored object, or of its status, for a transition rule), each with dryRun=All.
	mutation mutation
	route    string
	// input is the object sent.
	input map[string]any
	// published is the answer of the published schema read as a CRD's (create and status
	// routes; a status input is checked as the object of a CRD without the status
	// subresource); apigen is the subject's.
	published, apigen outcome
	// problem says why the constraint counts as not exercised or not enforced ("" when it
	// is enforced); row is the reasoned row that explains it, if any.
	problem string
	row     *constraintRow
	// field is the name of the nearest property at or above the mutated place (a map key or
	// list index is not one); zeroDefaulted is set when the input had a zero where the schema
	// gives a default.
	field         string
	zeroDefaulted bool
	// defaultValue is the schema's default at the mutated place, if any.
	defaultValue any
	// further is the second input of a bound whose first was a defaulted zero.
	further *exercise
}

// constraintRow is a reasoned way a stated constraint is enforced other than by a field cause.
type constraintRow struct {
	category, reason string
	match            func(e *exercise) bool
}

// constraintRows are the reasoned rows of TestPublishedSchemaEnforced.
var constraintRows = []constraintRow{
	{
		category: "typed decoding",
		reason: "apigen decodes into Go types: a value of the wrong JSON type, an integer outside its int32 or int64 " +
			"format, a date-time metav1.Time cannot parse or a string resource.ParseQuantity refuses (the grammar the " +
			"published Quantity states) fails the decoding with 400 BadRequest, where a CRD reports a 422 cause; the " +
			"constraint is enforced, but the request never reaches validation. encoding/json's message names the " +
			"field (the nearest property: a map key or list index is not named); metav1.Time's and resource.Quantity's " +
			"own errors name none, as kube-apiserver's typed decoding gives them",
		match: func(e *exercise) bool {
			switch e.kind {
			case "type", "format", "pattern":
			default:
				return false
			}
			msg := e.apigen.message
			return e.apigen.code == http.StatusBadRequest && e.apigen.reason == metav1.StatusReasonBadRequest &&
				(strings.Contains(msg, "."+e.field+" of type ") || strings.Contains(msg, "parsing time ") ||
					strings.Contains(msg, "quantities must match the regular expression"))
		},
	},
	{
		category: "typed defaulting",
		reason: "a present zero in an omitempty field with a default is defaulted before validation (the Go value " +
			"cannot tell it from a key left out, and the stored object could not hold it: encoding/json drops it), " +
			"where the published schema read as a CRD's validates it; a bound is then broken again one step further " +
			"from it, by a value that is not zero, which must be refused with a cause (for other constraints the " +
			"zero is the only value that breaks them at that place: a string or list one shorter than a minimum of 1)",
		match: func(e *exercise) bool {
			if !e.apigen.accepted || !e.zeroDefaulted {
				return false
			}
			v, present, _ := (&input{object: e.apigen.object}).at(renderPath(e.mutation.path))
			return present && sameJSON(v, e.defaultValue)
		},
	},
}

// enforcer exercises the constraints of one kind's published schema on the subject.
type enforcer struct {
	t    testing.TB
	subj *subject
	tg   *target
	// statusOracle is tg's oracle without the status subresource, which validates status
	// on create; nil when the kind has none.
	statusOracle *oracle
	g            *generator
	// base is a valid create body with every optional field present; stored is the object
	// the subject stored from it, with base's status set through the status subresource.
	base, stored map[string]any
	// objectPath is the stored object's path.
	objectPath string
}

// newEnforcer draws a valid object for tg, stores it on the subject under name and sets its
// status.
func newEnforcer(t testing.TB, subj *subject, tg *target, crd *apiextensionsv1.CustomResourceDefinition, name string) *enforcer {
	t.Helper()
	e := &enforcer{t: t, subj: subj, tg: tg, objectPath: tg.path + "/" + name}
	if sub := crd.Spec.Versions[0].Subresources; sub != nil && sub.Status != nil {
		crd = crd.DeepCopy()
		crd.Spec.Versions[0].Subresources.Status = nil
		o, err := newOracle(crd, tg.version)
		if err != nil {
			t.Fatal(err)
		}
		e.statusOracle = o
	}
	for seed := uint64(1); seed <= 20 && e.base == nil; seed++ {
		e.g = newGenerator(seed)
		e.base = e.validBase(name)
	}
	if e.base == nil {
		t.Fatalf("%s: no valid object in 20 draws", tg.name())
	}
	e.store(name)
	return e
}

// validBase draws a full object (fullValue) both sides accept, dropping the optional fields
// apigen alone refuses (a hand-written hook's; logged), or returns nil.
func (e *enforcer) validBase(name string) map[string]any {
	s := e.tg.oracle.structural
	obj := e.g.fullValue(s).(map[string]any)
	obj["apiVersion"], obj["kind"] = e.tg.group+"/"+e.tg.version, e.tg.kind
	md := map[string]any{"name": name}
	if e.tg.namespace != "" {
		md["namespace"] = e.tg.namespace
	}
	obj["metadata"] = md
	for range 5 {
		body, _ := json.Marshal(obj)
		check := e.tg.oracle
		if e.statusOracle != nil {
			check = e.statusOracle
		}
		if o := check.create(body, e.tg.namespace); !o.accepted {
			return nil
		}
		a := e.subj.create(e.tg.path, body)
		if a.accepted {
			return obj
		}
		if !e.dropOptional(obj, a) {
			return nil
		}
	}
	return nil
}

// dropOptional removes from obj the fields of a's causes when none is required (the CEL gate's
// notice aside), and reports whether it did.
func (e *enforcer) dropOptional(obj map[string]any, a outcome) bool {
	if len(a.causes) == 0 {
		return false
	}
	var causes []cause
	for _, c := range a.causes {
		if c.Field == "<nil>" && strings.Contains(c.Message, notChecked) {
			continue // the CEL gate's notice
		}
		path := splitPath(c.Field)
		if len(path) == 0 || e.requiredAt(path) {
			return false
		}
		causes = append(causes, c)
	}
	for _, c := range causes {
		path := splitPath(c.Field)
		if parent, ok := lookupPath(obj, path[:len(path)-1]).(map[string]any); ok {
			delete(parent, fmt.Sprint(path[len(path)-1]))
		}
		e.t.Logf("the valid object leaves out %s, which apigen alone refuses: %s", c.Field, c.Message)
	}
	return true
}

// requiredAt reports whether the field at path is a required key of its parent's schema.
func (e *enforcer) requiredAt(path []any) bool {
	key, ok := path[len(path)-1].(string)
	parent := schemaAt(e.tg.oracle.structural, path[:len(path)-1])
	if !ok || parent == nil {
		return true
	}
	for _, r := range valueValidation(parent).Required {
		if r == key {
			return true
		}
	}
	return false
}

// store creates e.base on the subject (not a dry run) and sets its status through the status
// subresource, keeping the object stored as e.stored.
func (e *enforcer) store(name string) {
	body, _ := json.Marshal(e.base)
	code, resp := e.subj.do(http.MethodPost, e.tg.path, body)
	if code != http.StatusCreated {
		e.t.Fatalf("cannot store %s: %d %s", name, code, resp)
	}
	e.stored = decodeObject(e.t, resp)
	if e.statusOracle == nil {
		return
	}
	e.stored["status"] = runtime.DeepCopyJSONValue(e.base["status"])
	body, _ = json.Marshal(e.stored)
	code, resp = e.subj.do(http.MethodPut, e.objectPath+"/status", body)
	if code != http.StatusOK {
		e.t.Fatalf("cannot set the status of %s: %d %s", name, code, resp)
	}
	e.stored = decodeObject(e.t, resp)
}

// sameCause reports whether apigen gives a cause at ex's place with a message the published
// schema gives there (map keys in paths written alike): the input was refused for breaking the
// constraint, not another one.
func (ex *exercise) sameCause() bool {
	path, kind := ex.mutation.path, ex.mutation.kind
	for _, p := range ex.published.causes {
		for _, a := range ex.apigen.causes {
			if causeAt(p.Field, path, kind) && causeAt(a.Field, path, kind) && dotted(p.Field) == dotted(a.Field) &&
				strings.ReplaceAll(p.Message, p.Field, dotted(p.Field)) == strings.ReplaceAll(a.Message, a.Field, dotted(a.Field)) {
				return true
			}
		}
	}
	return false
}

// causeAt reports whether o has a cause at path (causeAt), or one kube-openapi reports without
// a field for a number outside its format, naming the place in its message.
func (o outcome) causeAt(path []any, mutationKind string) bool {
	for _, c := range o.causes {
		if causeAt(c.Field, path, mutationKind) ||
			(c.Field == "<nil>" && strings.HasSuffix(c.Message, " in "+dotted(renderPath(path)))) {
			return true
		}
	}
	return false
}

// decodeObject decodes a JSON object as the generic JSON of the comparison (int64 numbers).
func decodeObject(t testing.TB, data []byte) map[string]any {
	var obj map[string]any
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		t.Fatalf("cannot decode %s: %v", data, err)
	}
	return obj
}

// underStatus reports whether path is status or below it.
func underStatus(path string) bool {
	return path == "status" || strings.HasPrefix(path, "status.") || strings.HasPrefix(path, "status[")
}

// exercise breaks c in a copy of a valid object and sends it: on create, or, under the status
// subresource, as a status update; a transition rule as an update of the stored object.
func (e *enforcer) exercise(c constraint) *exercise {
	ex := &exercise{constraint: c, route: "create"}
	root := e.base
	if e.statusOracle != nil && underStatus(c.path) {
		ex.route, root = "status", e.stored
	}
	if c.transition {
		return e.transition(ex)
	}
	m, ok := e.find(c, root)
	if !ok {
		ex.problem = "no mutation of the valid object breaks it (never exercised)"
		return ex
	}
	ex.mutation = m
	candidates := 1
	if c.kind == "rule" {
		candidates = 30 // a rule is broken by a value drawn anew, when one is
	}
	for range candidates {
		e.send(ex, root)
		if c.kind != "rule" || ex.published.causeAt(m.path, m.kind) {
			break
		}
	}
	e.judge(ex)
	if ex.row != nil && ex.row.category == "typed defaulting" {
		e.further(ex, root)
	}
	return ex
}

// further breaks the bound of ex, whose input was a defaulted zero, one step further from it
// with a value that is not zero: ex is enforced when that input is, and fails (no row) when it
// is not. Other constraints keep the row.
func (e *enforcer) further(ex *exercise, root map[string]any) {
	s := schemaAt(e.tg.oracle.structural, ex.mutation.path)
	vv := valueValidation(s)
	var v any
	switch ex.kind {
	case "minimum":
		v = number(s, *vv.Minimum-2)
	case "maximum":
		v = number(s, *vv.Maximum+2)
	default:
		return
	}
	f := &exercise{constraint: ex.constraint, route: ex.route, mutation: valueMutation(ex.kind, ex.mutation.path, v)}
	e.send(f, root)
	e.judge(f)
	ex.further = f
	ex.problem = f.problem
	if f.problem != "" {
		ex.row = nil
		ex.problem = "a zero is defaulted, and one step further: " + f.problem
	}
}

// valueMutation sets the value at path to v.
func valueMutation(kind string, path []any, v any) mutation {
	path = append([]any(nil), path...)
	return mutation{kind: kind, path: path, apply: func(root map[string]any) {
		set(lookupPath(root, path[:len(path)-1]), path[len(path)-1], v)
	}}
}

// nearestProperty is the name of the nearest property of an object schema at or above path
// in an object of schema s ("" for none).
func nearestProperty(s *structuralschema.Structural, path []any) string {
	name := ""
	for _, el := range path {
		if s == nil {
			break
		}
		k, ok := el.(string)
		if _, isProp := s.Properties[k]; ok && isProp {
			name = k
		}
		if ok {
			s = childSchema(s, k)
		} else {
			s = s.Items
		}
	}
	return name
}

// find returns the first mutation of root (mutate_test.go's, then extraMutations') that aims
// at c's kind at c's place.
func (e *enforcer) find(c constraint, root map[string]any) (mutation, bool) {
	all := e.g.mutations(root, e.tg.oracle.structural)
	for kind, ms := range extraMutations(root, e.tg.oracle.structural) {
		all[kind] = append(all[kind], ms...)
	}
	for _, kind := range mutationKinds[c.kind] {
		for _, m := range all[kind] {
			p := schemaPath(e.tg.oracle.structural, m.path)
			if p == c.path {
				return e.exact(m), true
			}
		}
	}
	return mutation{}, false
}

// exact returns m, or, for m breaking a length bound of a string with a pattern, a mutation to
// a string of the same length that matches the pattern (when 200 draws find one), so that the
// input breaks the bound alone.
func (e *enforcer) exact(m mutation) mutation {
	vv := valueValidation(schemaAt(e.tg.oracle.structural, m.path))
	n := 0
	switch {
	case vv.Pattern == "":
		return m
	case m.kind == "minLength":
		n = int(*vv.MinLength) - 1
	case m.kind == "maxLength":
		n = int(*vv.MaxLength) + 1
	default:
		return m
	}
	for range 10 {
		if v, ok := e.g.matching(vv.Pattern, n, n); ok {
			return valueMutation(m.kind, m.path, v)
		}
	}
	return m
}

// send applies ex's mutation to a copy of root and sends it on ex's route, setting ex's input
// and the answers: the published schema's (none for an update) and apigen's.
func (e *enforcer) send(ex *exercise, root map[string]any) {
	ex.input = runtime.DeepCopyJSONValue(root).(map[string]any)
	ex.mutation.apply(ex.input)
	body, _ := json.Marshal(ex.input)
	switch ex.route {
	case "create":
		ex.published, ex.apigen = e.tg.oracle.create(body, e.tg.namespace), e.subj.create(e.tg.path, body)
	case "status":
		ex.published, ex.apigen = e.statusOracle.create(body, e.tg.namespace), e.subj.update(e.objectPath+"/status", body)
	case "update of create":
		ex.apigen = e.subj.update(e.objectPath, body)
	case "update of status":
		ex.apigen = e.subj.update(e.objectPath+"/status", body)
	}
}

// transition breaks the transition rule of ex by updating the stored object with another
// value at the rule's place (the first value drawn that differs), on the main resource or
// its status subresource.
func (e *enforcer) transition(ex *exercise) *exercise {
	path := splitPath(strings.ReplaceAll(ex.path, "[*]", "[0]"))
	old, present, _ := (&input{object: e.stored}).at(renderPath(path))
	s := schemaAt(e.tg.oracle.structural, path)
	if !present || s == nil {
		ex.problem = "the valid object has no value there (never exercised)"
		return ex
	}
	for range 20 {
		v := e.g.value(s, 2)
		if sameJSON(v, old) {
			continue
		}
		ex.mutation = valueMutation("transition", path, v)
		ex.route = "update of " + ex.route
		e.send(ex, e.stored)
		e.judge(ex)
		return ex
	}
	ex.problem = "no other value drawn (never exercised)"
	return ex
}

// judge sets ex.problem unless apigen refused ex's input with a cause at the mutated place
// (accepted it, for nullable), and checks the input does break the constraint as published
// (the published schema, where the route has it, refuses it there); then the rows explain.
func (e *enforcer) judge(ex *exercise) {
	at := func(o outcome) bool { return o.causeAt(ex.mutation.path, ex.mutation.kind) }
	ex.field = nearestProperty(e.tg.oracle.structural, ex.mutation.path)
	if s := schemaAt(e.tg.oracle.structural, ex.mutation.path); s != nil && s.Default.Object != nil {
		v, present, _ := (&input{object: ex.input}).at(renderPath(ex.mutation.path))
		ex.zeroDefaulted, ex.defaultValue = present && zeroJSON(v), s.Default.Object
	}
	if !strings.HasPrefix(ex.route, "update") && ex.kind != "nullable" && ex.published.accepted {
		ex.problem = "the published schema accepts the input: the mutation does not break the constraint"
		return
	}
	if !strings.HasPrefix(ex.route, "update") && ex.kind != "nullable" && !at(ex.published) && ex.published.code != http.StatusBadRequest {
		ex.problem = "the published schema refuses the input elsewhere: " + ex.published.String()
		return
	}
	switch {
	case ex.kind == "nullable" && ex.apigen.accepted:
	case ex.kind != "nullable" && ex.apigen.code == http.StatusUnprocessableEntity && at(ex.apigen):
		if !strings.HasPrefix(ex.route, "update") && !ex.sameCause() {
			ex.problem = "refused at the field for another reason than the published schema's: apigen " +
				ex.apigen.String() + "; published " + ex.published.String()
		}
	default:
		ex.problem = "not enforced: apigen " + ex.apigen.String()
		for i := range constraintRows {
			if constraintRows[i].match(ex) {
				ex.row = &constraintRows[i]
				break
			}
		}
	}
}

// TestPublishedSchemaEnforced walks the schema the subject publishes for each kind of
// publishedKinds and, for every constraint it states (statedConstraints), breaks it in a copy
// of a valid object with every optional field present and checks that apigen refuses the input
// with a cause at that field; the published schema, read as a CRD's, must refuse the same input
// there (the input breaks what is published). A constraint never exercised, or not enforced
// and not explained by a row of constraintRows, fails the test; each kind logs, per kind of
// constraint, how many its schema states, how many were exercised and how they came out.
func TestPublishedSchemaEnforced(t *testing.T) {
	subj := startSubject(t, groupBuilders()...)
	for _, k := range publishedKinds {
		t.Run(k.name(), func(t *testing.T) {
			t.Parallel()
			tg, crd := newPublishedTarget(t, subj, k)
			e := newEnforcer(t, subj, tg, crd, "published-"+strings.ToLower(k.kind)+"-"+k.version)
			stated := statedConstraints(tg.oracle.structural)
			tallies := map[string]*tally{}
			total := &tally{}
			for _, c := range stated {
				ex := e.exercise(c)
				if tallies[c.kind] == nil {
					tallies[c.kind] = &tally{}
				}
				for _, tl := range []*tally{tallies[c.kind], total} {
					tl.count(ex)
				}
				switch {
				case ex.row != nil:
					t.Logf("%s: %s: %s", ex.row.category, c, ex.apigen)
				case ex.problem != "":
					t.Errorf("%s, by %s on %s: %s\n  published: %s", c, ex.mutation, ex.route, ex.problem, ex.published)
				}
			}
			for _, kind := range sortedKeys(tallies) {
				t.Logf("%-13s %s", kind, tallies[kind])
			}
			t.Logf("%-13s %s (%s)", "all", total, k.name())
		})
	}
}

// tally counts the constraints of one kind: stated, exercised (an input was sent), refused
// with a cause at the field (enforced), and explained by each row.
type tally struct {
	stated, exercised, enforced int
	rows                        map[string]int
}

// count adds ex to the tally.
func (tl *tally) count(ex *exercise) {
	tl.stated++
	if ex.mutation.apply != nil {
		tl.exercised++
	}
	if ex.problem == "" {
		tl.enforced++
	}
	if ex.row != nil {
		if tl.rows == nil {
			tl.rows = map[string]int{}
		}
		tl.rows[ex.row.category]++
	}
}

// String renders the tally in one line.
func (tl *tally) String() string {
	s := fmt.Sprintf("%3d stated, %3d exercised, %3d refused with a cause at the field", tl.stated, tl.exercised, tl.enforced)
	for _, r := range sortedKeys(tl.rows) {
		s += fmt.Sprintf("; %d %s", tl.rows[r], r)
	}
	return s
}
