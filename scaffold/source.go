package scaffold

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// ApigenModule is apigen's module path, required by every repository init writes.
const ApigenModule = "github.com/apigen-dev/apigen"

// replacedVersion is the version a go.mod requires of a module it replaces with a directory,
// as `go mod edit -replace` and `go get` write it.
const replacedVersion = "v0.0.0-00010101000000-000000000000"

// SourceCheckout returns the directory of the apigen source checkout this binary was built
// from, or "" when it was built from the module cache (go install …@version) or with
// -trimpath. It is the directory holding this file's package, one up, when that directory's
// go.mod declares ApigenModule and it lies outside GOMODCACHE; `go build`, `go run` and
// `go tool apigen` through a replace all qualify.
func SourceCheckout() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(filepath.Dir(file))
	if strings.Contains(dir, string(filepath.Separator)+"pkg"+string(filepath.Separator)+"mod"+string(filepath.Separator)) ||
		strings.Contains(filepath.Base(dir), "@") {
		return ""
	}
	if modulePath(filepath.Join(dir, "go.mod")) != ApigenModule {
		return ""
	}
	return dir
}

// ApigenVersion returns the version of apigen a new repository requires: replacedVersion when
// it replaces apigen with a checkout (replace != ""), else the version of the apigen module in
// this binary's build info (a tag or pseudo-version), else "" when there is none (a
// "(devel)" build outside a checkout), which init reports as an error.
func ApigenVersion(replace string) string {
	if replace != "" {
		return replacedVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path == ApigenModule && m.Version != "" && m.Version != "(devel)" {
			return m.Version
		}
	}
	return ""
}

// modulePath returns the module path declared by the go.mod file at path, or "".
func modulePath(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t")) {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
