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

// sizeSampleEvery is how often a cache measures an event's object (sizeOf) rather than
// assuming the mean size measured so far: the history's byte bound is an estimate, and a
// JSON encoding per write would cost the write path more than the bound is worth.
const sizeSampleEvery = 16

// sizer estimates objects' sizes for a cache's history bound: it measures the first
// sizeSampleEvery objects and every sizeSampleEvery-th after, and gives the others the mean
// of the measured ones. Used by the reflector's goroutine only.
type sizer struct {
	seen, measured, total int
}

// size returns obj's estimated size in bytes.
func (z *sizer) size(obj runtime.Object) int {
	z.seen++
	if z.measured < sizeSampleEvery || z.seen%sizeSampleEvery == 0 {
		n := sizeOf(obj)
		z.measured++
		z.total += n
		return n
	}
	return z.total / z.measured
}
