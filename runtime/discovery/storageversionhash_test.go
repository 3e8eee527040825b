package discovery

import "testing"

// TestStorageVersionHash checks the hash against the values kube-apiserver publishes (and
// k8s.io/apiserver's endpoints/discovery.StorageVersionHash returns: checked once; the
// runtime's tests may not import k8s.io/apiserver) for apps/v1 Deployment, the core group's
// v1 Namespace and coordination.k8s.io/v1 Lease, and that it changes with the version.
func TestStorageVersionHash(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ group, version, kind, want string }{
		{"apps", "v1", "Deployment", "8aSe+NMegvE="},
		{"", "v1", "Namespace", "Q3oi5N2YM8M="},
		{"coordination.k8s.io", "v1", "Lease", "gqkMMb/YqFM="},
	} {
		if got := StorageVersionHash(tc.group, tc.version, tc.kind); got != tc.want {
			t.Errorf("StorageVersionHash(%q, %q, %q) = %q, kube-apiserver publishes %q", tc.group, tc.version, tc.kind, got, tc.want)
		}
	}
	if StorageVersionHash("db.example.com", "v1", "Database") == StorageVersionHash("db.example.com", "v1alpha1", "Database") {
		t.Error("the hash does not change with the storage version")
	}
}
