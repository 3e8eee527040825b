package jsoncodec

// maxNestingDepth is encoding/json's limit on nested arrays and objects: a deeper document
// is not valid to it, and so not to valid.
const maxNestingDepth = 10000

// valid reports whether data is one JSON value, with optional whitespace around it, as
// encoding/json.Valid does (same grammar, same nesting limit, no UTF-8 check), in one pass
// over data with no allocation below 64 nesting levels: encoding/json's scanner, a state
// machine with a call per byte, costs several times more, and Raw and Marshaler run it on
// every managedFields entry (a metav1.FieldsV1 of a few hundred bytes) of every write.
//
// When clean is set, valid also reports false for a document that encoding/json would
// change on output (json.Compact and json.HTMLEscape, as it treats a json.Marshaler's
// bytes): whitespace outside strings, '<', '>' or '&', or U+2028 or U+2029 in a string. A
// clean valid document can be written as it is.
func valid(data []byte, clean bool) bool {
	end := skipValidValue(data, skipWhitespace(data, 0, clean), clean)
	return end >= 0 && skipWhitespace(data, end, clean) == len(data)
}

// skipValidValue returns the index after the JSON value starting at data[i], or -1 when no
// valid value starts there (with clean, also when it is not clean; see valid). Bytes after
// the value are not looked at.
func skipValidValue(data []byte, i int, clean bool) int {
	var stackBuf [64]byte // '{' or '[' per open container
	stack := stackBuf[:0]
	for {
		// A value starts at data[i].
		if i >= len(data) {
			return -1
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) == maxNestingDepth {
				return -1
			}
			stack = append(stack, c)
			i = skipWhitespace(data, i+1, clean)
			if i < len(data) && data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i = objectKey(data, i, clean); i < 0 {
					return -1
				}
			}
			continue
		case c == '"':
			if i = skipValidString(data, i, clean); i < 0 {
				return -1
			}
		case c == '-' || '0' <= c && c <= '9':
			if i = skipNumber(data, i); i < 0 {
				return -1
			}
		case c == 't':
			if i = skipLiteral(data, i, "true"); i < 0 {
				return -1
			}
		case c == 'f':
			if i = skipLiteral(data, i, "false"); i < 0 {
				return -1
			}
		case c == 'n':
			if i = skipLiteral(data, i, "null"); i < 0 {
				return -1
			}
		default:
			return -1
		}
		// A value ended before data[i]: close containers, or go on to the next member or
		// element.
		for {
			if len(stack) == 0 {
				return i
			}
			if i = skipWhitespace(data, i, clean); i >= len(data) {
				return -1
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return -1
			}
			i = skipWhitespace(data, i+1, clean)
			if top == '{' {
				if i = objectKey(data, i, clean); i < 0 {
					return -1
				}
			}
			break
		}
	}
}

// objectKey skips a member's key and its colon from data[i], whitespace included, and
// returns the index of the member's value, or -1.
func objectKey(data []byte, i int, clean bool) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = skipValidString(data, i, clean); i < 0 {
		return -1
	}
	if i = skipWhitespace(data, i, clean); i >= len(data) || data[i] != ':' {
		return -1
	}
	return skipWhitespace(data, i+1, clean)
}

// skipWhitespace returns the index of the first byte at or after i that is not JSON
// whitespace, or len(data)+1 when clean forbids the whitespace it found (an index no value
// can start at).
func skipWhitespace(data []byte, i int, clean bool) int {
	start := i
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	if clean && i != start {
		return len(data) + 1
	}
	return i
}

// plainInString[clean][c] reports whether byte c in a string needs no look beyond itself:
// not a quote, backslash or control character and, when clean, nothing encoding/json's
// output escapes ('<', '>', '&', and 0xE2, which starts U+2028 and U+2029).
var plainInString = func() (t [2][256]bool) {
	for c := 0x20; c < 256; c++ {
		t[0][c] = c != '"' && c != '\\'
		t[1][c] = t[0][c] && c != '<' && c != '>' && c != '&' && c != 0xE2
	}
	return t
}()

// skipValidString returns the index after the string starting at data[i] (its opening
// quote), or -1 when it is not a valid JSON string (or, with clean, has a character
// encoding/json's output escapes).
func skipValidString(data []byte, i int, clean bool) int {
	plain := &plainInString[0]
	if clean {
		plain = &plainInString[1]
	}
	for i++; i < len(data); i++ {
		if plain[data[i]] {
			continue
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			i++
			if i >= len(data) {
				return -1
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) {
					return -1
				}
				for _, h := range data[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		case c == 0xE2: // clean: U+2028 and U+2029 are escaped, other characters are not
			if i+2 < len(data) && data[i+1] == 0x80 && data[i+2]&^1 == 0xA8 {
				return -1
			}
		default: // a control character, or (clean) '<', '>' or '&'
			return -1
		}
	}
	return -1
}

// skipNumber returns the index after the JSON number starting at data[i], or -1.
func skipNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = skipDigits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if j := skipDigits(data, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if j := skipDigits(data, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

// skipDigits returns the index of the first byte at or after i that is not a decimal digit.
func skipDigits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// skipLiteral returns the index after lit at data[i], or -1 when data[i:] does not start
// with it.
func skipLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}
