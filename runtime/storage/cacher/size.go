package cacher

import (
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
)

// sizeBuffers recycles the buffers sizeOf encodes into.
var sizeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// sizeOf estimates the bytes obj holds by the length of its JSON (with the generated codec
// when its type has one, else encoding/json), the measure of the history's byte bound.
func sizeOf(obj runtime.Object) int {
	bp := sizeBuffers.Get().(*[]byte)
	defer sizeBuffers.Put(bp)
	if data, ok := jsoncodec.Marshal((*bp)[:0], obj); ok {
		if cap(data) <= 64<<10 {
			*bp = data[:0]
		}
		return len(data)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return 0
	}
	return len(data)
}
