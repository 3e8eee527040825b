package crddiff

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// serverSetMetadata are the metadata fields normalize removes from both sides' created
// objects: values each server draws itself (uid, creationTimestamp), or that only one side's
// create path writes for reasons outside validation and defaulting (managedFields: apigen's
// create handler records the field manager, which the oracle, built from the registry and
// decoder alone, does not run; resourceVersion: empty in a dry run on both, removed in case).
var serverSetMetadata = []string{"uid", "creationTimestamp", "managedFields", "resourceVersion"}

// normalize removes serverSetMetadata from obj's metadata, in place, and returns obj.
// generation stays: both servers set it to 1 on create.
func normalize(obj map[string]any) map[string]any {
	if md, ok := obj["metadata"].(map[string]any); ok {
		for _, f := range serverSetMetadata {
			delete(md, f)
		}
	}
	return obj
}

// difference is one way apigen's outcome of an input differs from the oracle's.
type difference struct {
	// what is one of:
	//	verdict  one side accepted the input, the other rejected it without field causes (a
	//	         422 with causes on one side and an acceptance on the other is compared cause
	//	         by cause instead: every cause is missing or extra)
	//	code     both rejected it with different HTTP codes (reasons)
	//	message  both rejected it without field causes, with different messages
	//	cause    both rejected it; a field has different messages on the two sides
	//	missing  a cause of the oracle that apigen does not report (field and message)
	//	extra    a cause apigen reports that the oracle does not
	//	object   both accepted it; the created objects differ at path
	what string
	// path is the field (cause, missing, extra) or the object path (object).
	path string
	// oracle and apigen are what each side has there: messages, values (object; absent is
	// a nil with present false) or the outcomes (verdict, code).
	oracle, apigen any
	// oraclePresent and apigenPresent tell absent values (object) from null.
	oraclePresent, apigenPresent bool
}

// String renders d in one line.
func (d difference) String() string {
	switch d.what {
	case "object":
		return fmt.Sprintf("object at %s: oracle %s, apigen %s", d.path, showValue(d.oracle, d.oraclePresent), showValue(d.apigen, d.apigenPresent))
	case "missing", "extra", "cause":
		return fmt.Sprintf("%s at %s: oracle %v | apigen %v", d.what, d.path, d.oracle, d.apigen)
	}
	return fmt.Sprintf("%s: oracle %v | apigen %v", d.what, d.oracle, d.apigen)
}

// showValue renders a JSON value, or <absent>.
func showValue(v any, present bool) string {
	if !present {
		return "<absent>"
	}
	return fmt.Sprintf("%#v", v)
}

// compare lists the differences between the oracle's outcome and apigen's.
func compare(oracle, apigen outcome) []difference {
	switch {
	case oracle.accepted && invalid(apigen):
		return compareCauses(nil, apigen.causes)
	case apigen.accepted && invalid(oracle):
		return compareCauses(oracle.causes, nil)
	case oracle.accepted != apigen.accepted:
		return []difference{{what: "verdict", oracle: oracle, apigen: apigen}}
	case oracle.accepted:
		var diffs []difference
		diffValues("", normalize(oracle.object), normalize(apigen.object), true, true, &diffs)
		return diffs
	case oracle.code != apigen.code || oracle.reason != apigen.reason:
		return []difference{{what: "code", oracle: oracle, apigen: apigen}}
	case len(oracle.causes) == 0 && len(apigen.causes) == 0:
		if strictOrder(oracle.message) != strictOrder(apigen.message) {
			return []difference{{what: "message", oracle: oracle.message, apigen: apigen.message}}
		}
		return nil
	}
	return compareCauses(oracle.causes, apigen.causes)
}

// invalid reports whether o is a 422 Invalid with field causes: a rejection the comparison
// can read cause by cause.
func invalid(o outcome) bool { return !o.accepted && o.code == 422 && len(o.causes) > 0 }

// strictOrder sorts the errors a "strict decoding error: " message lists: apiextensions'
// pruning reports unknown fields in map iteration order, so their order is not part of what
// a client can rely on (a normalisation; see the package documentation).
func strictOrder(msg string) string {
	const marker = "strict decoding error: "
	i := strings.Index(msg, marker)
	if i < 0 {
		return msg
	}
	errs := strings.Split(msg[i+len(marker):], ", ")
	sort.Strings(errs)
	return msg[:i+len(marker)] + strings.Join(errs, ", ")
}

// compareCauses pairs the causes of both sides: equal ones cancel; a field with one
// remaining cause on each side is a "cause" difference; the rest are missing or extra.
func compareCauses(oracle, apigen []cause) []difference {
	count := map[cause]int{}
	for _, c := range oracle {
		count[c]++
	}
	for _, c := range apigen {
		count[c]--
	}
	byField := map[string][2][]string{}
	for c, n := range count {
		e := byField[c.Field]
		for ; n > 0; n-- {
			e[0] = append(e[0], c.Message)
		}
		for ; n < 0; n++ {
			e[1] = append(e[1], c.Message)
		}
		byField[c.Field] = e
	}
	var diffs []difference
	for _, f := range sortedKeys(byField) {
		o, a := byField[f][0], byField[f][1]
		sort.Strings(o)
		sort.Strings(a)
		if len(o) == 1 && len(a) == 1 {
			diffs = append(diffs, difference{what: "cause", path: f, oracle: o[0], apigen: a[0]})
			continue
		}
		for _, m := range o {
			diffs = append(diffs, difference{what: "missing", path: f, oracle: m})
		}
		for _, m := range a {
			diffs = append(diffs, difference{what: "extra", path: f, apigen: m})
		}
	}
	return diffs
}

// diffValues appends the differences between o and a, the values at path (present or
// not). Objects are compared key by key, lists item by item when their lengths agree;
// numbers compare by value, whether int64 or float64.
func diffValues(path string, o, a any, oOK, aOK bool, diffs *[]difference) {
	om, oIsMap := o.(map[string]any)
	am, aIsMap := a.(map[string]any)
	if oOK && aOK && oIsMap && aIsMap {
		keys := map[string]bool{}
		for k := range om {
			keys[k] = true
		}
		for k := range am {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			ov, oHas := om[k]
			av, aHas := am[k]
			diffValues(joinPath(path, k), ov, av, oHas, aHas, diffs)
		}
		return
	}
	ol, oIsList := o.([]any)
	al, aIsList := a.([]any)
	if oOK && aOK && oIsList && aIsList && len(ol) == len(al) {
		for i := range ol {
			diffValues(fmt.Sprintf("%s[%d]", path, i), ol[i], al[i], true, true, diffs)
		}
		return
	}
	if oOK == aOK && sameJSON(o, a) {
		return
	}
	*diffs = append(*diffs, difference{what: "object", path: path, oracle: o, apigen: a, oraclePresent: oOK, apigenPresent: aOK})
}

// joinPath appends the key k to path.
func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// sameJSON compares two JSON values, numbers by value.
func sameJSON(o, a any) bool {
	of, oNum := asNumber(o)
	af, aNum := asNumber(a)
	if oNum && aNum {
		return of == af
	}
	return reflect.DeepEqual(o, a)
}

// asNumber returns a JSON number as float64.
func asNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// summary renders differences, one per line.
func summary(diffs []difference) string {
	lines := make([]string, len(diffs))
	for i, d := range diffs {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}
