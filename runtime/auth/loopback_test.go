package auth

import (
	"net/http/httptest"
	"testing"

	"github.com/apigen-dev/apigen/runtime/request"
)

// TestLoopback checks that the loopback token is system:apiserver in system:masters, and that
// any other token, or none, is left to the next authenticator.
func TestLoopback(t *testing.T) {
	a := Loopback("s3cret", "uid-1")
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"Bearer s3cret", true},
		{"bearer  s3cret ", true},
		{"Bearer s3cre", false},
		{"Bearer s3cret2", false},
		{"Basic s3cret", false},
		{"", false},
	} {
		r := httptest.NewRequest("GET", "/api", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		u, ok, err := a.AuthenticateRequest(r)
		if err != nil || ok != tc.want {
			t.Errorf("%q: ok=%v err=%v, want ok=%v and no error", tc.header, ok, err, tc.want)
			continue
		}
		if !ok {
			if r.Header.Get("Authorization") != tc.header {
				t.Errorf("%q: the header was changed for the next authenticator", tc.header)
			}
			continue
		}
		if u.Name != LoopbackUserName || u.UID != "uid-1" || !u.InGroup(request.SystemPrivilegedGroup) {
			t.Errorf("%q: user %+v, want %s in %s", tc.header, u, LoopbackUserName, request.SystemPrivilegedGroup)
		}
		if r.Header.Get("Authorization") != "" {
			t.Errorf("%q: the token was left in the request", tc.header)
		}
	}
	if _, ok, _ := Loopback("", "").AuthenticateRequest(httptest.NewRequest("GET", "/", nil)); ok {
		t.Error("an empty loopback token matched a request without credentials")
	}
}
