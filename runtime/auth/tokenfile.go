package auth

import (
	"crypto/subtle"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/apigen-dev/apigen/runtime/request"
)

// TokenFile authenticates bearer tokens listed in a static file, as kube-apiserver's
// --token-auth-file (k8s.io/apiserver's tokenfile.TokenAuthenticator). Build it with
// LoadTokenFile or ParseTokenFile; it is read-only and safe for concurrent use.
type TokenFile struct {
	tokens map[string]*request.User
}

// LoadTokenFile reads path in kube-apiserver's token file format; see ParseTokenFile.
func LoadTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read token file: %w", err)
	}
	defer f.Close()
	t, err := ParseTokenFile(f)
	if err != nil {
		return nil, fmt.Errorf("token file %s: %w", path, err)
	}
	return t, nil
}

// ParseTokenFile parses CSV lines `token,user,uid[,"group1,group2"]`, as kube-apiserver's
// token file: at least three columns; an optional fourth lists groups, comma-separated
// (quoted, as CSV needs); a record with an empty token is skipped; a later record for the
// same token replaces an earlier one. Errors name the record number (1-based) and what to
// write instead.
func ParseTokenFile(r io.Reader) (*TokenFile, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	t := &TokenFile{tokens: map[string]*request.User{}}
	for n := 1; ; n++ {
		record, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		if len(record) < 3 {
			return nil, fmt.Errorf("record %d has %d columns; write at least 3: token,user,uid[,\"group1,group2\"]", n, len(record))
		}
		if record[0] == "" {
			continue
		}
		u := &request.User{Name: record[1], UID: record[2]}
		if len(record) > 3 && record[3] != "" {
			for _, g := range strings.Split(record[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		t.tokens[record[0]] = u
	}
}

// AuthenticateToken returns the user of token, and whether the file lists it. The comparison
// takes the same time whatever the token's prefix.
func (t *TokenFile) AuthenticateToken(token string) (*request.User, bool) {
	var found *request.User
	for known, u := range t.tokens {
		if subtle.ConstantTimeCompare([]byte(known), []byte(token)) == 1 {
			found = u
		}
	}
	if found == nil {
		return nil, false
	}
	out := *found
	out.Groups = append([]string(nil), found.Groups...)
	return &out, true
}

// TokenAuthenticator checks a bearer token's value.
type TokenAuthenticator interface {
	// AuthenticateToken returns the token's user and true, or false for an unknown token.
	AuthenticateToken(token string) (*request.User, bool)
}

// errInvalidBearerToken is kube-apiserver's error for a bearer token no authenticator accepts.
var errInvalidBearerToken = errors.New("invalid bearer token")

// BearerToken authenticates the `Authorization: Bearer <token>` header with tokens, as
// k8s.io/apiserver's bearertoken.Authenticator: a request without that header is not its
// kind; an empty or unknown token is an error ("invalid bearer token"). On success the
// header is removed, so that it is never passed on to an aggregated server.
func BearerToken(tokens TokenAuthenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*request.User, bool, error) {
		scheme, token, found := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !found || !strings.EqualFold(scheme, "bearer") {
			return nil, false, nil
		}
		token = strings.TrimSpace(token)
		if token == "" {
			return nil, false, errInvalidBearerToken
		}
		u, ok := tokens.AuthenticateToken(token)
		if !ok {
			return nil, false, errInvalidBearerToken
		}
		r.Header.Del("Authorization")
		return u, true, nil
	})
}
