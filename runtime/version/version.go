package version

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

// Fallback is the version reported when neither GitVersion nor the build information holds a
// semantic version, e.g. under `go run` or `go test`.
const Fallback = "v0.1.0-dev"

// Link-time variables, set with -ldflags "-X github.com/apigen-dev/apigen/runtime/version.<Name>=<value>".
// Each is empty unless set.
var (
	// GitVersion is a semantic version with a leading "v", e.g. "v1.2.3" or "v1.2.3-rc.1+abc".
	// A value that is not a semantic version is ignored.
	GitVersion string
	// GitCommit is the full commit hash the binary was built from.
	GitCommit string
	// BuildDate is the build time in RFC 3339 form, e.g. "2026-01-02T15:04:05Z".
	BuildDate string
)

// semver matches a semantic version 2.0.0 with a leading "v", as k8s.io/apimachinery's
// util/version.ParseSemantic accepts it.
var semver = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Get returns the server's version information as /version serves it. Major and Minor are the
// numeric fields of GitVersion ("1" and "2" for "v1.2.3"); GoVersion, Compiler and Platform
// describe the running binary.
func Get() apimachineryversion.Info {
	info := apimachineryversion.Info{
		GitVersion:   Fallback,
		GitCommit:    GitCommit,
		GitTreeState: "",
		BuildDate:    BuildDate,
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
	if build, ok := debug.ReadBuildInfo(); ok {
		fromBuildInfo(&info, build)
	}
	if semver.MatchString(GitVersion) {
		info.GitVersion = GitVersion
	}
	m := semver.FindStringSubmatch(info.GitVersion)
	info.Major, info.Minor = m[1], m[2]
	return info
}

// fromBuildInfo fills info from the binary's build information: the main module's version when
// it is a semantic version (not "(devel)"), and the VCS revision, time and dirtiness stamped by
// the go command.
func fromBuildInfo(info *apimachineryversion.Info, build *debug.BuildInfo) {
	if semver.MatchString(build.Main.Version) {
		info.GitVersion = build.Main.Version
	}
	for _, s := range build.Settings {
		switch s.Key {
		case "vcs.revision":
			if info.GitCommit == "" {
				info.GitCommit = s.Value
			}
		case "vcs.time":
			if info.BuildDate == "" {
				info.BuildDate = s.Value
			}
		case "vcs.modified":
			info.GitTreeState = "clean"
			if s.Value == "true" {
				info.GitTreeState = "dirty"
			}
		}
	}
}
