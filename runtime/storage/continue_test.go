package storage_test

import (
	"encoding/base64"
	"testing"

	"github.com/apigen-dev/apigen/runtime/storage"
)

func token(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

func TestDecodeContinue(t *testing.T) {
	const prefix = "/registry/test.apigen.dev/widgets/"
	tests := []struct {
		name    string
		token   string
		wantKey string
		wantRV  int64
		wantErr bool
	}{
		{name: "namespaced", token: token(`{"v":"meta.k8s.io/v1","rv":12,"start":"ns/a\u0000"}`), wantKey: prefix + "ns/a\x00", wantRV: 12},
		{name: "leading slash", token: token(`{"v":"meta.k8s.io/v1","rv":3,"start":"/a"}`), wantKey: prefix + "a", wantRV: 3},
		{name: "latest", token: token(`{"v":"meta.k8s.io/v1","rv":-1,"start":"a"}`), wantKey: prefix + "a", wantRV: -1},
		{name: "parent escape", token: token(`{"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/"}`), wantErr: true},
		{name: "inner escape", token: token(`{"v":"meta.k8s.io/v1","rv":1,"start":"ns/../../x"}`), wantErr: true},
		{name: "dot segment", token: token(`{"v":"meta.k8s.io/v1","rv":1,"start":"ns/./a"}`), wantErr: true},
		{name: "double slash", token: token(`{"v":"meta.k8s.io/v1","rv":1,"start":"ns//a"}`), wantErr: true},
		{name: "zero rv", token: token(`{"v":"meta.k8s.io/v1","rv":0,"start":"a"}`), wantErr: true},
		{name: "empty start", token: token(`{"v":"meta.k8s.io/v1","rv":1,"start":""}`), wantErr: true},
		{name: "unknown version", token: token(`{"v":"meta.k8s.io/v2","rv":1,"start":"a"}`), wantErr: true},
		{name: "not json", token: token(`rv=1`), wantErr: true},
		{name: "not base64", token: "!!", wantErr: true},
		{name: "padded base64", token: base64.URLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"a"}`)), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, rv, err := storage.DecodeContinue(tc.token, prefix)
			if tc.wantErr {
				if !storage.IsInvalidObj(err) {
					t.Fatalf("DecodeContinue = %q, %d, %v; want an InvalidObj error", key, rv, err)
				}
				return
			}
			if err != nil || key != tc.wantKey || rv != tc.wantRV {
				t.Fatalf("DecodeContinue = %q, %d, %v; want %q, %d", key, rv, err, tc.wantKey, tc.wantRV)
			}
		})
	}
}

func TestEncodeContinue(t *testing.T) {
	const prefix = "/registry/test.apigen.dev/widgets/"
	got, err := storage.EncodeContinue(prefix+"ns/a\x00", prefix, 42)
	if err != nil {
		t.Fatalf("EncodeContinue: %v", err)
	}
	if want := token(`{"v":"meta.k8s.io/v1","rv":42,"start":"ns/a\u0000"}`); got != want {
		t.Errorf("EncodeContinue = %q, want %q", got, want)
	}
	key, rv, err := storage.DecodeContinue(got, prefix)
	if err != nil || key != prefix+"ns/a\x00" || rv != 42 {
		t.Errorf("round trip: %q, %d, %v", key, rv, err)
	}
	if _, err := storage.EncodeContinue("/elsewhere/a", prefix, 1); !storage.IsInvalidObj(err) {
		t.Errorf("EncodeContinue of a key outside the prefix: got %v, want InvalidObj", err)
	}
}
