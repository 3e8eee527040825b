package jsoncodectest

import "fmt"

// span is the byte range [start, end) of one value in a document.
type span struct{ start, end int }

// node is an object member or array element found by scan: key is the member's quoted name
// (empty for an element), val its value, and prev the end of the previous sibling's value
// (-1 for the first), next the start of the next sibling's key or value (-1 for the last).
type node struct {
	key, val   span
	prev, next int
}

// Mutations returns variants of data, a valid JSON document: for every object member and
// array element, the document with it removed, set to null, set to a value of another JSON
// type and repeated; for members also renamed to an unknown name, with the key's first
// character written as a \u escape, and with whitespace around it; for the document, leading
// and trailing whitespace and a trailing garbage byte.
func Mutations(data []byte) [][]byte {
	builds := mutationBuilders(data)
	res := make([][]byte, len(builds))
	for i, build := range builds {
		res[i] = build()
	}
	return res
}

// mutationBuilders returns Mutations' variants in the same order, each built only when its
// function is called: a document of n members and elements has about 7n variants, each a
// copy of the whole document, of which Check tries MaxMutations.
func mutationBuilders(data []byte) []func() []byte {
	var nodes []node
	s := &scanner{data: data}
	s.value(&nodes)
	d := string(data)
	out := []func() []byte{concat(" \n\t", d, "\r\n "), concat(d, "x"), concat(d, "{}")}
	for _, n := range nodes {
		from := n.key.start
		if n.key.end == 0 {
			from = n.val.start
		}
		member := d[from:n.val.end]
		var removed func() []byte
		switch {
		case n.prev >= 0:
			removed = concat(d[:n.prev], d[n.val.end:])
		case n.next >= 0:
			removed = concat(d[:from], d[n.next:])
		default:
			removed = concat(d[:from], d[n.val.end:])
		}
		out = append(out,
			removed,
			concat(d[:n.val.start], "null", d[n.val.end:]),
			concat(d[:n.val.start], otherType(data[n.val.start]), d[n.val.end:]),
			concat(d[:n.val.end], ",", member, d[n.val.end:]),
		)
		if n.key.end == 0 {
			continue
		}
		key := d[n.key.start:n.key.end]
		out = append(out,
			concat(d[:n.key.start], `"zzUnknownField"`, d[n.key.end:]),
			concat(d[:from], " \n", key, " :\t", d[n.val.start:n.val.end], " ", d[n.val.end:]),
		)
		if len(key) > 2 && key[1] != '\\' {
			out = append(out, concat(d[:n.key.start], fmt.Sprintf(`"\u%04x`, key[1]), d[n.key.start+2:]))
		}
	}
	return out
}

// concat returns a function building the concatenation of parts, slices of the document
// kept until then.
func concat(parts ...string) func() []byte {
	return func() []byte {
		size := 0
		for _, p := range parts {
			size += len(p)
		}
		b := make([]byte, 0, size)
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
}

// otherType returns a value of another JSON type than the one starting with c.
func otherType(c byte) string {
	switch c {
	case '"':
		return "1"
	case '{':
		return "[]"
	case '[':
		return "{}"
	case 't', 'f':
		return `"true"`
	case 'n':
		return "{}"
	}
	return `"1"`
}

// scanner walks a valid JSON document, recording every member and element.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) space() {
	for s.pos < len(s.data) && (s.data[s.pos] == ' ' || s.data[s.pos] == '\t' || s.data[s.pos] == '\n' || s.data[s.pos] == '\r') {
		s.pos++
	}
}

// value scans the value at pos and returns its span.
func (s *scanner) value(nodes *[]node) span {
	s.space()
	start := s.pos
	if s.pos >= len(s.data) {
		return span{start, start}
	}
	switch s.data[s.pos] {
	case '"':
		s.str()
	case '{', '[':
		s.container(nodes)
	default:
		for s.pos < len(s.data) && !isDelim(s.data[s.pos]) {
			s.pos++
		}
	}
	return span{start, s.pos}
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// str moves past the string at pos.
func (s *scanner) str() {
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '\\':
			s.pos++
		case '"':
			s.pos++
			return
		}
	}
}

// container scans an object or array, appending its members or elements to nodes.
func (s *scanner) container(nodes *[]node) {
	object := s.data[s.pos] == '{'
	s.pos++
	prev, last := -1, -1
	for {
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] == '}' || s.data[s.pos] == ']' {
			s.pos++
			return
		}
		if s.data[s.pos] == ',' {
			s.pos++
			s.space()
			if last >= 0 {
				(*nodes)[last].next = s.pos
			}
		}
		var n node
		n.prev = prev
		n.next = -1
		if object {
			n.key.start = s.pos
			s.str()
			n.key.end = s.pos
			s.space()
			s.pos++ // ':'
		}
		*nodes = append(*nodes, n)
		i := len(*nodes) - 1
		v := s.value(nodes)
		(*nodes)[i].val = v
		prev, last = v.end, i
	}
}
