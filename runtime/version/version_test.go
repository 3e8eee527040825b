package version

import (
	"runtime/debug"
	"strconv"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

func TestGetIsSemantic(t *testing.T) {
	info := Get()
	v, err := utilversion.ParseSemantic(info.GitVersion)
	if err != nil {
		t.Fatalf("GitVersion %q is not semantic: %v", info.GitVersion, err)
	}
	if got := v.Major(); info.Major != strconv.FormatUint(uint64(got), 10) {
		t.Errorf("Major = %q, want %d", info.Major, got)
	}
	if info.GoVersion == "" || info.Platform == "" {
		t.Errorf("GoVersion %q, Platform %q: want both set", info.GoVersion, info.Platform)
	}
}

func TestGitVersionOverride(t *testing.T) {
	for _, tc := range []struct {
		set, want, major, minor string
	}{
		{set: "v1.2.3", want: "v1.2.3", major: "1", minor: "2"},
		{set: "v2.10.0-rc.1+abc", want: "v2.10.0-rc.1+abc", major: "2", minor: "10"},
		{set: "not-a-version", want: Fallback, major: "0", minor: "1"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			old := GitVersion
			GitVersion = tc.set
			t.Cleanup(func() { GitVersion = old })
			info := Get()
			if info.GitVersion != tc.want || info.Major != tc.major || info.Minor != tc.minor {
				t.Errorf("Get() = %q (%s.%s), want %q (%s.%s)", info.GitVersion, info.Major, info.Minor, tc.want, tc.major, tc.minor)
			}
		})
	}
}

func TestFromBuildInfo(t *testing.T) {
	info := Get()
	fromBuildInfo(&info, &debug.BuildInfo{
		Main: debug.Module{Version: "v3.4.5"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.modified", Value: "true"},
		},
	})
	if info.GitVersion != "v3.4.5" || info.GitTreeState != "dirty" {
		t.Errorf("fromBuildInfo: GitVersion %q, GitTreeState %q; want v3.4.5, dirty", info.GitVersion, info.GitTreeState)
	}
	devel := Get()
	fromBuildInfo(&devel, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})
	if devel.GitVersion == "(devel)" {
		t.Error("fromBuildInfo accepted (devel) as a version")
	}
}
