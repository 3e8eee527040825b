package endpoints

import (
	"bytes"
	stdgzip "compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// note returns about 800 bytes of words drawn from a small vocabulary, text that compresses
// about as well as real objects' JSON does.
func note(rng *rand.Rand) string {
	words := []string{"replica", "ready", "image", "registry.example.com/team/app:v1.2.3", "true", "false", "container",
		"node-7f3c", "zone-a", "10.0.12.7", "sha256:9f86d081884c7d65", "Running", "Pending", "volume", "secret", "8080/TCP"}
	var sb strings.Builder
	for sb.Len() < 800 {
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&sb, "%x ", rng.Uint32())
		} else {
			sb.WriteString(words[rng.IntN(len(words))] + " ")
		}
	}
	return sb.String()
}

// BenchmarkGzipListBody compresses a 500-item JSON list body (about 550 KiB of ~1 KiB
// widgets with varied names, uids and sizes) at level 1 (BestSpeed, kube-apiserver's level)
// with the standard library's compress/gzip and with github.com/klauspost/compress/gzip,
// which gzipWriters use; both write the same format (gzip.NewReader reads either).
func BenchmarkGzipListBody(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var body bytes.Buffer
	body.WriteString(`{"kind":"WidgetList","apiVersion":"test.apigen.dev/v1","metadata":{"resourceVersion":"1234"},"items":[`)
	for i := range 500 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"metadata":{"name":"w%04d","namespace":"ns","uid":"%08x-5c1e-4b6a-9d7e-%012x","resourceVersion":"%d",`+
			`"creationTimestamp":"2026-11-29T15:%02d:%02dZ","labels":{"app":"bench"},"annotations":{"note":%q}},"spec":{"size":%d,"color":"red"}}`,
			i, i*7919, i*104729, 1000+i, i/60%60, i%60, note(rng), i%100)
	}
	body.WriteString("]}\n")
	data := body.Bytes()
	for _, c := range []struct {
		name string
		new  func(io.Writer) io.WriteCloser
	}{
		{"stdlib", func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, stdgzip.BestSpeed); return z }},
		{"klauspost", func(w io.Writer) io.WriteCloser { z, _ := gzip.NewWriterLevel(w, gzip.BestSpeed); return z }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var out bytes.Buffer
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				out.Reset()
				z := c.new(&out)
				if _, err := z.Write(data); err != nil {
					b.Fatal(err)
				}
				if err := z.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.Len())/float64(len(data)), "ratio")
		})
	}
}
