package endpoints

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAll: a body of announced length is read whole into one allocation; a length
// that is wrong (shorter or longer body) or unknown still reads the whole body.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("x", 1200)
	for _, c := range []struct {
		name    string
		size    int64
		oneSize bool // the result is the one slice sized for size
	}{
		{"announced", 1200, true},
		{"announced short", 100, false},
		{"announced long", 5000, true},
		{"unknown", -1, false},
		{"over the limit", maxBodyBytes + 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(iotest.HalfReader(strings.NewReader(body)), c.size)
			if err != nil || string(got) != body {
				t.Fatalf("readAll = %d bytes, %v; want the %d-byte body", len(got), err, len(body))
			}
			if c.oneSize && cap(got) != int(c.size)+1 {
				t.Errorf("capacity %d, want %d (one allocation)", cap(got), c.size+1)
			}
		})
	}
	if _, err := readAll(iotest.ErrReader(io.ErrUnexpectedEOF), 10); err != io.ErrUnexpectedEOF {
		t.Errorf("a failing body: err = %v, want %v", err, io.ErrUnexpectedEOF)
	}
	if got, _ := readAll(bytes.NewReader(nil), 10); len(got) != 0 {
		t.Errorf("an empty body read as %q", got)
	}
}
