package discovery

import (
	"crypto/sha256"
	"encoding/base64"
)

// StorageVersionHash returns the storageVersionHash discovery publishes for a resource whose
// objects are stored as group/version, kind: the standard base64 of the first 8 bytes of the
// SHA-256 of "<group>/<version>/<kind>" (group "" for the core group), as k8s.io/apiserver's
// endpoints/discovery.StorageVersionHash. Clients (the storage version migrator) compare it
// across time: it changes exactly when the storage version does.
func StorageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
