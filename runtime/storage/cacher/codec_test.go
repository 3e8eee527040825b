package cacher

import (
	"encoding/json"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// plainWidget is a Widget without a registered codec: jsoncodec.Reader.Value decodes it
// the reference way (sigs.k8s.io/json, strict).
type plainWidget testapi.Widget

// The tests' Widgets get a JSON codec, as every generated type has one (the cache keeps an
// object cold only when its type has): encoding/json's encoding and the reference decode,
// which the generated codecs are held to (runtime/jsoncodec/jsoncodectest).
func init() {
	jsoncodec.Register(func(w *jsoncodec.Writer, in *testapi.Widget) {
		data, err := json.Marshal((*plainWidget)(in))
		if err != nil {
			w.Fail()
			return
		}
		w.Raw(string(data))
	}, func(r *jsoncodec.Reader, out *testapi.Widget) {
		r.Value((*plainWidget)(out))
	})
}
