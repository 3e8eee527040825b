package endpoints

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// checkCopyBudget refuses, before json-patch copies anything, a JSON patch whose copy
// operations certainly add more than the copy limit (json-patch's AccumulatedCopySizeLimit,
// see limitJSONPatchCopies) to doc, with json-patch's own AccumulatedCopySizeError. json-patch
// checks the limit only after each copy, having encoded the copied value: a patch of a few
// dozen copies, each doubling the document, still costs it tens of MiB and most of 100 ms
// before the limit stops it. This check replays the patch on a tree of sizes in which a copy
// shares the copied subtree instead of encoding it, so it costs about what the patch and doc
// are. Sizes are lower bounds of what json-patch counts (compact JSON, strings unescaped), so
// a patch it refuses would also be refused by json-patch; a patch it cannot follow (an
// operation json-patch would fail, a negative array index) is left to json-patch. A patch
// without copy operations is not replayed.
func checkCopyBudget(doc []byte, patch jsonpatch.Patch) error {
	limit := jsonpatch.AccumulatedCopySizeLimit
	if limit <= 0 || !hasCopy(patch) {
		return nil
	}
	root, err := parseSizes(json.NewDecoder(bytes.NewReader(doc)))
	if err != nil {
		return nil
	}
	var copied int64
	for _, op := range patch {
		var ok bool
		if root, ok = replay(root, op, &copied); !ok {
			return nil
		}
		if copied > limit {
			return jsonpatch.NewAccumulatedCopySizeError(limit, copied)
		}
	}
	return nil
}

func hasCopy(patch jsonpatch.Patch) bool {
	for _, op := range patch {
		if op.Kind() == "copy" {
			return true
		}
	}
	return false
}

// sizeNode is a JSON value's size, and its members or items when it is an object or array.
// Nodes are never changed once built: an operation rebuilds the path it changes, so a copy
// may share a subtree.
type sizeNode struct {
	size  int64
	obj   map[string]*sizeNode // non-nil for an object
	arr   []*sizeNode          // for an array (isArr)
	isArr bool
}

// parseSizes reads one JSON value from dec into a sizeNode.
func parseSizes(dec *json.Decoder) (*sizeNode, error) {
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &sizeNode{}
		if t == '[' {
			n.isArr = true
			for dec.More() {
				item, err := parseSizes(dec)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, item)
			}
		} else {
			n.obj = map[string]*sizeNode{}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := parseSizes(dec)
				if err != nil {
					return nil, err
				}
				n.obj[key.(string)] = val
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		n.resize()
		return n, nil
	case string:
		return &sizeNode{size: int64(len(t)) + 2}, nil
	case json.Number:
		return &sizeNode{size: int64(len(t))}, nil
	case bool:
		return &sizeNode{size: int64(len(strconv.FormatBool(t)))}, nil
	}
	return &sizeNode{size: 4}, nil // null
}

// resize recomputes a container's size from its members: braces, commas, quoted keys, colons.
func (n *sizeNode) resize() {
	size := int64(2)
	if n.isArr {
		for _, item := range n.arr {
			size += item.size + 1
		}
		if len(n.arr) > 0 {
			size--
		}
		n.size = size
		return
	}
	for key, val := range n.obj {
		size += int64(len(key)) + 3 + val.size + 1
	}
	if len(n.obj) > 0 {
		size--
	}
	n.size = size
}

// clone returns a shallow copy of a container whose members may be replaced.
func (n *sizeNode) clone() *sizeNode {
	c := &sizeNode{size: n.size, isArr: n.isArr}
	if n.isArr {
		c.arr = append([]*sizeNode(nil), n.arr...)
	} else if n.obj != nil {
		c.obj = make(map[string]*sizeNode, len(n.obj))
		for k, v := range n.obj {
			c.obj[k] = v
		}
	}
	return c
}

// index parses an array index that must be in [0, max]; negative ones are not followed.
func index(key string, max int) (int, bool) {
	i, err := strconv.Atoi(key)
	return i, err == nil && i >= 0 && i <= max
}

// child returns the member key of a container.
func (n *sizeNode) child(key string) (*sizeNode, bool) {
	if n.isArr {
		i, ok := index(key, len(n.arr)-1)
		if !ok {
			return nil, false
		}
		return n.arr[i], true
	}
	c, ok := n.obj[key]
	return c, ok && n.obj != nil
}

// pointer splits a JSON pointer into its parent's tokens and its last token, as json-patch's
// findObject does; ok is false for the root or a malformed pointer.
func pointer(path string) (parents []string, key string, ok bool) {
	split := strings.Split(path, "/")
	if len(split) < 2 || split[0] != "" {
		return nil, "", false
	}
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	for i := range split {
		split[i] = unescape.Replace(split[i])
	}
	return split[1 : len(split)-1], split[len(split)-1], true
}

// get returns the value at path.
func get(root *sizeNode, path string) (*sizeNode, bool) {
	parents, key, ok := pointer(path)
	if !ok {
		return nil, false
	}
	n := root
	for _, p := range append(parents, key) {
		if n, ok = n.child(p); !ok {
			return nil, false
		}
	}
	return n, true
}

// edit returns root with fn applied to the container at path's parent (fn gets a clone it may
// change, and path's last token), every container on the way rebuilt.
func edit(root *sizeNode, path string, fn func(c *sizeNode, key string) bool) (*sizeNode, bool) {
	parents, key, ok := pointer(path)
	if !ok {
		return nil, false
	}
	var rebuild func(n *sizeNode, parts []string) (*sizeNode, bool)
	rebuild = func(n *sizeNode, parts []string) (*sizeNode, bool) {
		if !n.isArr && n.obj == nil {
			return nil, false // not a container
		}
		c := n.clone()
		if len(parts) == 0 {
			if !fn(c, key) {
				return nil, false
			}
		} else {
			child, ok := c.child(parts[0])
			if !ok {
				return nil, false
			}
			if child, ok = rebuild(child, parts[1:]); !ok {
				return nil, false
			}
			if c.isArr {
				i, _ := index(parts[0], len(c.arr)-1)
				c.arr[i] = child
			} else {
				c.obj[parts[0]] = child
			}
		}
		c.resize()
		return c, true
	}
	return rebuild(root, parents)
}

// add sets key of c to v, as json-patch's add: a member, or an array item inserted at an
// index or appended ("-").
func add(v *sizeNode) func(c *sizeNode, key string) bool {
	return func(c *sizeNode, key string) bool {
		if !c.isArr {
			c.obj[key] = v
			return true
		}
		i, ok := len(c.arr), key == "-"
		if !ok {
			if i, ok = index(key, len(c.arr)); !ok {
				return false
			}
		}
		c.arr = append(c.arr[:i], append([]*sizeNode{v}, c.arr[i:]...)...)
		return true
	}
}

// set replaces key of c, which must exist, with v, as json-patch's replace.
func set(v *sizeNode) func(c *sizeNode, key string) bool {
	return func(c *sizeNode, key string) bool {
		if _, ok := c.child(key); !ok {
			return false
		}
		if c.isArr {
			i, _ := index(key, len(c.arr)-1)
			c.arr[i] = v
		} else {
			c.obj[key] = v
		}
		return true
	}
}

// remove deletes key of c, which must exist.
func remove(c *sizeNode, key string) bool {
	if _, ok := c.child(key); !ok {
		return false
	}
	if c.isArr {
		i, _ := index(key, len(c.arr)-1)
		c.arr = append(c.arr[:i], c.arr[i+1:]...)
	} else {
		delete(c.obj, key)
	}
	return true
}

// replay applies op to root, adding to copied what a copy copies. ok is false when op does
// not apply as modelled.
func replay(root *sizeNode, op jsonpatch.Operation, copied *int64) (*sizeNode, bool) {
	path, err := op.Path()
	if err != nil {
		return nil, false
	}
	switch op.Kind() {
	case "test":
		return root, true
	case "remove":
		return edit(root, path, remove)
	case "add", "replace":
		raw, ok := op["value"]
		if !ok || raw == nil {
			return nil, false
		}
		v, err := parseSizes(json.NewDecoder(bytes.NewReader(*raw)))
		if err != nil {
			return nil, false
		}
		if op.Kind() == "replace" {
			return edit(root, path, set(v))
		}
		return edit(root, path, add(v))
	case "copy", "move":
		from, err := op.From()
		if err != nil {
			return nil, false
		}
		v, ok := get(root, from)
		if !ok {
			return nil, false
		}
		if op.Kind() == "move" {
			if root, ok = edit(root, from, remove); !ok {
				return nil, false
			}
		} else {
			*copied += v.size
		}
		return edit(root, path, add(v))
	}
	return nil, false
}
