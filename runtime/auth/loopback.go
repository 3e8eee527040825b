package auth

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/apigen-dev/apigen/runtime/request"
)

// LoopbackUserName is the user a server's requests to itself run as, kube-apiserver's
// user.APIServerUser.
const LoopbackUserName = "system:apiserver"

// Loopback authenticates the server's own requests to itself, as kube-apiserver's loopback
// token authenticator: a request whose `Authorization: Bearer` token is token (compared in
// constant time) is the user LoopbackUserName, with uid uid, in request.SystemPrivilegedGroup. Any
// other request is not its kind (nil, false, nil), so the next authenticator sees it. token
// must be random and never leave the process; an empty token matches nothing.
func Loopback(token, uid string) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		scheme, got, found := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if token == "" || !found || !strings.EqualFold(scheme, "bearer") ||
			subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) != 1 {
			return nil, false, nil
		}
		r.Header.Del("Authorization")
		return &request.User{Name: LoopbackUserName, UID: uid, Groups: []string{request.SystemPrivilegedGroup}}, true, nil
	})
}
