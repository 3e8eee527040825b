package markers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// arg is one key=value argument of a controller-tools marker, value still raw.
type arg struct {
	key string
	raw string
}

// splitTop splits s on sep where sep is outside quotes, backquotes and braces.
func splitTop(s string, sep byte) ([]string, error) {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c string in %s", quote, s)
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced braces in %s", s)
	}
	return append(parts, s[start:]), nil
}

// parseArgs parses "k=v,k2=v2" into arguments in order; a value may be quoted, backquoted or
// a {...} list, so commas inside them do not split.
func parseArgs(s string) ([]arg, error) {
	if s == "" {
		return nil, nil
	}
	parts, err := splitTop(s, ',')
	if err != nil {
		return nil, err
	}
	args := make([]arg, 0, len(parts))
	for _, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			// A bare flag argument, as controller-tools' "=true" shorthand.
			k, v = p, "true"
		}
		args = append(args, arg{key: strings.TrimSpace(k), raw: strings.TrimSpace(v)})
	}
	return args, nil
}

// unquote returns the string a scalar denotes: "a\"b" and `a"b` are unquoted, bare words
// are returned trimmed.
func unquote(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"':
		s, err := strconv.Unquote(raw)
		if err != nil {
			return "", fmt.Errorf("cannot unquote %s: %w", raw, err)
		}
		return s, nil
	case len(raw) >= 2 && raw[0] == '`' && raw[len(raw)-1] == '`':
		return raw[1 : len(raw)-1], nil
	}
	return raw, nil
}

// parseRawList splits "{a,b}" or "a;b" (or a single scalar) into raw, still quoted, elements.
func parseRawList(raw string) ([]string, error) {
	raw = strings.TrimSpace(raw)
	sep := byte(';')
	if strings.HasPrefix(raw, "{") && strings.HasSuffix(raw, "}") {
		raw, sep = raw[1:len(raw)-1], ','
	}
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	parts, err := splitTop(raw, sep)
	if err != nil {
		return nil, err
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, nil
}

// parseList parses "{a,b}" or "a;b" (or a single scalar) into unquoted strings.
func parseList(raw string) ([]string, error) {
	parts, err := parseRawList(raw)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		s, err := unquote(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func parseFloat(raw string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil {
		return 0, fmt.Errorf("cannot parse %s as a number", raw)
	}
	return f, nil
}

func parseInt(raw string) (int64, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cannot parse %s as an integer", raw)
	}
	return i, nil
}

func parseBool(raw string) (bool, error) {
	if raw == "" {
		return true, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(raw))
	if err != nil {
		return false, fmt.Errorf("cannot parse %s as true or false", raw)
	}
	return b, nil
}

// markerValueJSON converts a controller-tools marker value to compact JSON, as
// controller-tools' +kubebuilder:default does: quoted and bare strings become JSON strings,
// numbers and booleans stay, {a,b} becomes an array and {k: v, ...} an object.
func markerValueJSON(raw string) (string, error) {
	v, err := markerValue(strings.TrimSpace(raw))
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("cannot encode %s as JSON: %w", raw, err)
	}
	return string(b), nil
}

func markerValue(raw string) (any, error) {
	switch {
	case raw == "true" || raw == "false":
		return raw == "true", nil
	case raw == "null":
		return nil, nil
	case strings.HasPrefix(raw, "{") && strings.HasSuffix(raw, "}"):
		return markerComposite(raw[1 : len(raw)-1])
	case strings.HasPrefix(raw, `"`) || strings.HasPrefix(raw, "`"):
		return unquote(raw)
	}
	if _, err := strconv.ParseFloat(raw, 64); err == nil && json.Valid([]byte(raw)) {
		return json.Number(raw), nil
	}
	return raw, nil
}

// markerComposite parses the inside of {...}: a map when its first element has a top-level
// "key: value" shape, else a list.
func markerComposite(inner string) (any, error) {
	if strings.TrimSpace(inner) == "" {
		return []any{}, nil
	}
	parts, err := splitTop(inner, ',')
	if err != nil {
		return nil, err
	}
	if _, _, isMap := cutTop(parts[0], ':'); isMap {
		m := make(map[string]any, len(parts))
		for _, p := range parts {
			k, v, ok := cutTop(p, ':')
			if !ok {
				return nil, fmt.Errorf("cannot parse %q as key: value", p)
			}
			key, err := unquote(k)
			if err != nil {
				return nil, err
			}
			if m[key], err = markerValue(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	list := make([]any, 0, len(parts))
	for _, p := range parts {
		v, err := markerValue(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	return list, nil
}

// cutTop cuts s around the first sep outside quotes and braces.
func cutTop(s string, sep byte) (before, after string, found bool) {
	parts, err := splitTop(s, sep)
	if err != nil || len(parts) < 2 {
		return s, "", false
	}
	return parts[0], s[len(parts[0])+1:], true
}

// compactJSON validates raw as JSON (gengo's +default=<json>) and compacts it.
func compactJSON(raw string) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(strings.TrimSpace(raw))); err != nil {
		return "", fmt.Errorf("cannot parse %s as JSON: %w", raw, err)
	}
	return buf.String(), nil
}

// levenshtein is the edit distance between a and b, compared case-insensitively.
func levenshtein(a, b string) int {
	a, b = strings.ToLower(a), strings.ToLower(b)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
