package jsoncodectest

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"testing"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/randfill"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
)

// MaxMutations is how many mutations of each document Check tries at most: a deterministic
// sample (seeded by the document) when there are more.
const MaxMutations = 16

// Check compares obj's registered codec with the reference libraries: jsoncodec.Marshal(obj)
// must succeed with encoding/json.Marshal(obj)'s bytes exactly, or fail exactly when
// encoding/json fails; jsoncodec.Unmarshal of those bytes must succeed where the reference
// does (CheckDecode with mustAccept), and agree with the reference, or fail, on up to
// MaxMutations mutations of them (CheckDecode).
// obj is a pointer to a value of a type with a registered codec.
func Check(t testing.TB, obj any) {
	t.Helper()
	if !jsoncodec.Registered(obj) {
		t.Fatalf("%T has no registered JSON codec", obj)
	}
	want, werr := json.Marshal(obj)
	got, ok := jsoncodec.Marshal(nil, obj)
	switch {
	case werr != nil && ok:
		t.Errorf("%T: the fast path wrote %s where encoding/json fails: %v", obj, got, werr)
		return
	case werr != nil:
		return
	case !ok:
		t.Errorf("%T: the fast path failed to write what encoding/json writes:\n%s", obj, want)
		return
	case !bytes.Equal(got, want):
		t.Errorf("%T: the fast path wrote\n%s\nencoding/json writes\n%s", obj, got, want)
		return
	}
	CheckDecode(t, want, obj, true)
	muts := mutationBuilders(want) // only the MaxMutations tried are built
	if len(muts) > MaxMutations {
		h := fnv.New64a()
		h.Write(want)
		r := rand.New(rand.NewPCG(h.Sum64(), 0))
		r.Shuffle(len(muts), func(i, j int) { muts[i], muts[j] = muts[j], muts[i] })
		muts = muts[:MaxMutations]
	}
	for _, build := range muts {
		CheckDecode(t, build(), obj, false)
	}
}

// CheckDecode decodes data into a new zero value of the type obj points to, with
// jsoncodec.Unmarshal and with sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts. When the
// fast path accepts data, the reference must too, without strict-decoding errors (unknown or
// duplicate fields), into a reflect.DeepEqual value, which the fast path must encode as
// encoding/json does. When it refuses data, its value must be left zero; with mustAccept it
// must not refuse a document the reference decodes without (strict) errors.
func CheckDecode(t testing.TB, data []byte, obj any, mustAccept bool) {
	t.Helper()
	typ := reflect.TypeOf(obj).Elem()
	fast := reflect.New(typ).Interface()
	ok := jsoncodec.Unmarshal(data, fast)
	if !ok {
		if !reflect.DeepEqual(fast, reflect.New(typ).Interface()) {
			t.Errorf("%T: a refused document left the value non-zero: %s", obj, data)
		}
		if mustAccept {
			strict, err := kjson.UnmarshalStrict(data, reflect.New(typ).Interface(), kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
			if err == nil && len(strict) == 0 {
				t.Errorf("%T: the fast path refused what encoding/json writes and the reference reads:\n%s", obj, data)
			}
		}
		return
	}
	ref := reflect.New(typ).Interface()
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, ref); err != nil {
		t.Errorf("%T: the fast path accepted a document the reference refuses (%v):\n%s", obj, err, data)
		return
	}
	strict, err := kjson.UnmarshalStrict(data, reflect.New(typ).Interface(), kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil || len(strict) > 0 {
		t.Errorf("%T: the fast path accepted a document with strict-decoding errors (%v, %v):\n%s", obj, err, strict, data)
	}
	if !reflect.DeepEqual(fast, ref) {
		t.Errorf("%T: decoded values differ for\n%s\nfast path: %#v\nreference: %#v", obj, data, fast, ref)
		return
	}
	want, werr := json.Marshal(fast)
	got, gok := jsoncodec.Marshal(nil, fast)
	if werr == nil && (!gok || !bytes.Equal(got, want)) {
		t.Errorf("%T: after decoding %s the fast path wrote (ok %v)\n%s\nencoding/json writes\n%s", obj, data, gok, got, want)
	}
}

// CheckPackage runs Check on n objects (a tenth of n, at least one, in -short mode), filled at
// random by filler, of every type of the package at pkgPath that has a registered codec, one
// subtest per type. It fails when the package has none.
func CheckPackage(t *testing.T, pkgPath string, n int, filler *randfill.Filler) {
	t.Helper()
	if testing.Short() {
		n = max(n/10, 1)
	}
	found := false
	for _, typ := range jsoncodec.RegisteredTypes() {
		if typ.PkgPath() != pkgPath {
			continue
		}
		found = true
		t.Run(typ.Name(), func(t *testing.T) {
			for range n {
				obj := reflect.New(typ).Interface()
				filler.Fill(obj)
				Check(t, obj)
				if t.Failed() {
					return
				}
			}
		})
	}
	if !found {
		t.Errorf("no type of %s has a registered JSON codec", pkgPath)
	}
}
