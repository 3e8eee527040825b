package storage

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// continueAPIVersion is the only continue-token version Kubernetes (and apigen) writes.
const continueAPIVersion = "meta.k8s.io/v1"

// continueToken is the JSON inside a continue token, shaped exactly as Kubernetes'
// k8s.io/apiserver/pkg/storage continueToken so tokens look the same to clients.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// EncodeContinue returns the continue token for a list that resumes at key (a full key under
// keyPrefix, typically the last key read plus "\x00") at revision rv: unpadded URL-safe
// base64 of {"v":"meta.k8s.io/v1","rv":rv,"start":"<key without keyPrefix>"}, as
// kube-apiserver's EncodeContinue. rv -1 asks the next page to read the latest revision.
// Errors: InvalidObj when key is not under keyPrefix.
func EncodeContinue(key, keyPrefix string, rv int64) (string, error) {
	start, ok := strings.CutPrefix(key, keyPrefix)
	if !ok {
		return "", NewInvalidObjError(key, fmt.Sprintf("cannot encode continue token: key %q is not under %q", key, keyPrefix))
	}
	out, err := json.Marshal(continueToken{APIVersion: continueAPIVersion, ResourceVersion: rv, StartKey: start})
	if err != nil {
		return "", NewInternalError(fmt.Sprintf("cannot encode continue token: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// DecodeContinue parses a token made by EncodeContinue for the same keyPrefix (which must end
// in "/") and returns the full key to resume from and the revision to read at (-1: the
// latest). The start key is cleaned with path.Clean, so a crafted token ("../other") can
// never address a key outside keyPrefix, as kube-apiserver's DecodeContinue.
// Errors: InvalidObj (a 400 for clients) for anything malformed.
func DecodeContinue(token, keyPrefix string) (fromKey string, rv int64, err error) {
	invalid := func(format string, args ...any) (string, int64, error) {
		return "", 0, NewInvalidObjError(keyPrefix, "continue key is not valid: "+fmt.Sprintf(format, args...))
	}
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return invalid("%v", err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return invalid("%v", err)
	}
	if c.APIVersion != continueAPIVersion {
		return invalid("server does not recognize this encoded version %q", c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return invalid("incorrect encoded start resourceVersion (version %s)", continueAPIVersion)
	}
	if c.StartKey == "" {
		return invalid("encoded start key empty (version %s)", continueAPIVersion)
	}
	key := c.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	if cleaned := path.Clean(key); cleaned != key {
		return invalid("%s", c.StartKey)
	}
	return strings.TrimSuffix(keyPrefix, "/") + key, c.ResourceVersion, nil
}
