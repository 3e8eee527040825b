package scaffold_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestReleasedModuleWorkflow is a new user's path with a released apigen, offline: this
// checkout is published at a pseudo-version in a file-based module proxy built here, apigen
// is installed from it with go install, and the repository apigen init writes requires that
// version with no replace; create api, go generate, go build and the new repository's own
// make test then run against the module from the proxy. Everything else comes from the
// machine's module cache (which the go command reads first, then as a second file proxy),
// so no network is used.
func TestReleasedModuleWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Fatalf("kubectl is required at %s: %v", kubectlPath, err)
	}
	tmp := t.TempDir()
	cacheDownload := strings.TrimSpace(runIn(t, checkout(t), time.Minute, "go", "env", "GOMODCACHE"))
	version := module.PseudoVersion("", "", time.Now().UTC(), "000000000000")
	proxy := publish(t, filepath.Join(tmp, "proxy"), version)
	env := []string{
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(cacheDownload, "cache", "download")),
		"GOSUMDB=off", // neither proxy is in the checksum database
		"GOBIN=" + filepath.Join(tmp, "bin"),
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
	}
	// The machine's module cache is shared, so that every dependency is the build cache's
	// already (a module cache elsewhere puts the same sources at other paths, which the
	// compiler keys on: the whole tree compiled again, ten minutes on two cores); the
	// published version is removed from it afterwards.
	t.Cleanup(func() { forgetVersion(cacheDownload, version) })
	const long = 15 * time.Minute
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		out, err := runEnv(dir, env, long, name, args...)
		if err != nil {
			t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
		}
		return out
	}
	run(tmp, "go", "install", "github.com/apigen-dev/apigen/cmd/apigen@"+version)
	apigen := filepath.Join(tmp, "bin", "apigen")
	out := run(tmp, apigen, "init", "example.com/shop")
	repo := filepath.Join(tmp, "shop")
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	requires := regexp.MustCompile(`(?m)^(require)?\s*github\.com/apigen-dev/apigen ` + regexp.QuoteMeta(version) + `$`)
	if !requires.Match(gomod) || strings.Contains(string(gomod), "replace") {
		t.Errorf("go.mod of an installed apigen's init should require %s with no replace:\n%s", version, gomod)
	}
	if !strings.Contains(out, "go.mod requires github.com/apigen-dev/apigen "+version+" (this apigen's version), with no replace") {
		t.Errorf("init does not say which apigen go.mod requires:\n%s", out)
	}
	run(repo, "go", "tool", "apigen", "create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Order")
	run(repo, "go", "generate", "./...")
	run(repo, "go", "build", "./...")
	if out := run(repo, "make", "test"); !strings.Contains(out, "ok  \texample.com/shop/cmd/shop-apiserver") {
		t.Errorf("the new repository's make test did not run its server's test:\n%s", out)
	}
}

// forgetVersion removes github.com/apigen-dev/apigen@version, which only this test published,
// from the module cache at modcache: its extracted tree (read-only, as the go command leaves it)
// and its download files.
func forgetVersion(modcache, version string) {
	tree := filepath.Join(modcache, "github.com", "apigen-dev", "apigen@"+version)
	_ = exec.Command("chmod", "-R", "u+w", tree).Run()
	_ = os.RemoveAll(tree)
	downloads, _ := filepath.Glob(filepath.Join(modcache, "cache", "download", "github.com", "apigen-dev", "apigen", "@v", version+".*"))
	for _, f := range downloads {
		_ = os.Remove(f)
	}
}

// publish writes this checkout as github.com/apigen-dev/apigen@version into a file-based
// module proxy at dir (GOPROXY=file://dir): the @v/list, .info, .mod and .zip files the
// proxy protocol asks for. The zip holds the files git tracks or would track (ignored
// ones such as bin/ are left out), as the working tree has them.
func publish(t *testing.T, dir, version string) string {
	t.Helper()
	root := checkout(t)
	ls, err := runEnv(root, nil, time.Minute, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		t.Fatalf("git ls-files: %v\n%s", err, ls)
	}
	var files []modzip.File
	for _, rel := range strings.Split(strings.TrimRight(ls, "\x00"), "\x00") {
		if fi, err := os.Lstat(filepath.Join(root, rel)); err == nil && fi.Mode().IsRegular() {
			files = append(files, diskFile{root: root, rel: rel, info: fi})
		}
	}
	at := filepath.Join(dir, "github.com", "apigen-dev", "apigen", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, module.Version{Path: "github.com/apigen-dev/apigen", Version: version}, files); err != nil {
		t.Fatalf("cannot zip the checkout: %v", err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": fmt.Appendf(nil, `{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339)),
		version + ".mod":  gomod,
		version + ".zip":  zip.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// diskFile is a checkout file for modzip.Create.
type diskFile struct {
	root, rel string
	info      os.FileInfo
}

func (f diskFile) Path() string                 { return filepath.ToSlash(f.rel) }
func (f diskFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.rel)) }

// runEnv runs name with args in dir with goEnv plus env (later entries win), stopping it
// after timeout; it returns the combined output.
func runEnv(dir string, env []string, timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(goEnv(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
