package json

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
)

// listChunk is how many bytes of a streamed list encodeList gathers before each write.
const listChunk = 32 << 10

// emptyItems is how a list's codec ends a list whose items are empty, not nil.
var emptyItems = []byte(`"items":[]}`)

// itemsFields caches, per list struct type, the index of its Items slice field (-1: none).
var itemsFields sync.Map // reflect.Type -> int

// itemsField returns the struct obj points to and the index of its Items slice field; index
// is -1 when obj is no such list.
func itemsField(obj any) (list reflect.Value, index int) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, -1
	}
	list = v.Elem()
	i, ok := itemsFields.Load(list.Type())
	if !ok {
		i = -1
		if f, found := list.Type().FieldByName("Items"); found && len(f.Index) == 1 && f.Type.Kind() == reflect.Slice {
			i = f.Index[0]
		}
		itemsFields.Store(list.Type(), i)
	}
	return list, i.(int)
}

// encodeList writes obj, a list with items whose codec writes "items" last, the way
// kube-apiserver's streaming collection encoder does (StreamingCollectionEncodingToJSON):
// the list without its items, then one item at a time, in writes of about listChunk bytes,
// so that a list of hundreds of KiB never sits whole in memory. The bytes are those of
// jsoncodec.Marshal(obj) and a newline.
//
// handled is false when encodeList wrote nothing and obj is to be encoded whole: obj is no
// list, has no items (nil items encode as null, not []), has no codec, or its codec does not
// end with the items, or an item the codec cannot write comes before the first write. An
// item it cannot write after that ends the output early with an error, as kube-apiserver's
// streaming encoder does.
func encodeList(obj any, w io.Writer) (handled bool, err error) {
	list, index := itemsField(obj)
	if index < 0 {
		return false, nil
	}
	items := list.Field(index)
	if items.Len() == 0 || items.Type().Elem().Kind() != reflect.Struct {
		return false, nil
	}
	// The list without its items: a shallow copy whose Items is empty (not nil) ends in
	// "items":[]}. obj itself is not touched.
	head := reflect.New(list.Type())
	head.Elem().Set(list)
	head.Elem().Field(index).Set(reflect.MakeSlice(items.Type(), 0, 0))
	bp := buffers.Get().(*[]byte)
	defer buffers.Put(bp)
	buf, ok := jsoncodec.Marshal((*bp)[:0], head.Interface())
	if !ok || !bytes.HasSuffix(buf, emptyItems) {
		return false, nil
	}
	buf = buf[:len(buf)-len("]}")] // ends with "items":[
	written := false
	for i := range items.Len() {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, ok = jsoncodec.Marshal(buf, items.Index(i).Addr().Interface()); !ok {
			if !written {
				return false, nil
			}
			return true, fmt.Errorf("cannot encode item %d of %T", i, obj)
		}
		if len(buf) >= listChunk {
			if _, err := w.Write(buf); err != nil {
				return true, err
			}
			written, buf = true, buf[:0]
		}
	}
	buf = append(buf, "]}\n"...)
	if cap(buf) <= maxPooledBuffer {
		*bp = buf
	}
	_, err = w.Write(buf)
	return true, err
}
