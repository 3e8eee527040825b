package etcd3

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// SupportsWatchProgress reports whether every endpoint of client answers RequestProgress
// (watch progress notifications on request), as kube-apiserver's feature support checker
// decides from the versions its etcd's Status reports: 3.4.31+, 3.5.13+, 3.6+ (kine v0.17.5
// reports 3.6.11). A client without endpoints (the embedded member, in process) is etcd
// 3.7: true. Errors: an endpoint's Status fails (the caller then assumes false, as
// kube-apiserver does until its check succeeds).
func SupportsWatchProgress(ctx context.Context, client *clientv3.Client) (bool, error) {
	for _, ep := range client.Endpoints() {
		resp, err := client.Status(ctx, ep)
		if err != nil {
			return false, fmt.Errorf("cannot read the version of etcd %s: %w", ep, err)
		}
		if !versionSupportsWatchProgress(resp.Version) {
			return false, nil
		}
	}
	return true, nil
}

// versionSupportsWatchProgress is kube-apiserver's endpointVersionSupportsRequestWatchProgress
// check (k8s.io/apiserver/pkg/storage/feature): the releases that fixed RequestProgress.
func versionSupportsWatchProgress(v string) bool {
	ver, err := version.ParseSemantic(v)
	if err != nil {
		return false
	}
	switch {
	case ver.Major() != 3:
		return ver.Major() > 3
	case ver.Minor() == 4:
		return ver.Patch() >= 31
	case ver.Minor() == 5:
		return ver.Patch() >= 13
	default:
		return ver.Minor() > 5
	}
}
