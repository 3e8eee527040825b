package scaffold_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/apigen-dev/apigen/internal/testinputs"
)

// released is an apigen published from this checkout and installed the way a new user
// installs a release, offline: the checkout is published at a pseudo-version in a file-based
// module proxy built here, and apigen is installed from it with go install. env is the
// environment every command of the user's workflow runs with: that proxy, then the machine's
// module cache (which the go command reads first, then as a second file proxy), so no network
// is used.
type released struct {
	apigen  string   // the installed binary
	version string   // the pseudo-version published
	env     []string // added to goEnv
}

// installRelease publishes this checkout into a proxy below dir and installs apigen from it
// into dir/bin. The published version is removed from the machine's module cache before
// and after (tb.Cleanup).
func installRelease(tb testing.TB, dir string) *released {
	tb.Helper()
	testinputs.Declare(tb, generatedRepoDeps...)
	cacheDownload := strings.TrimSpace(runIn(tb, checkout(tb), time.Minute, "go", "env", "GOMODCACHE"))
	version := releaseVersion(tb, checkout(tb))
	forgetVersion(cacheDownload, version) // left by a run that did not get to its cleanup
	proxy := publish(tb, filepath.Join(dir, "proxy"), version)
	r := &released{apigen: filepath.Join(dir, "bin", "apigen"), version: version, env: []string{
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(cacheDownload, "cache", "download")),
		"GOSUMDB=off", // neither proxy is in the checksum database
		"GOBIN=" + filepath.Join(dir, "bin"),
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
		// The go command indexes a module cache directory once, keyed on its path alone
		// (cmd/go's modindex: a module version is immutable), so with the fixed version a
		// later run would read an earlier one's file lists and imports: a file added since
		// is left out of its package ("undefined: ..."). goindex=0 reads the directory.
		"GODEBUG=goindex=0",
	}}
	// The machine's module cache is shared, so that every dependency is the build cache's
	// already (a module cache elsewhere puts the same sources at other paths, which the
	// compiler keys on: the whole tree compiled again, ten minutes on two cores); the
	// published version is removed from it afterwards.
	tb.Cleanup(func() { forgetVersion(cacheDownload, version) })
	r.run(tb, dir, 15*time.Minute, "go", "install", "github.com/apigen-dev/apigen/cmd/apigen@"+version)
	return r
}

// run runs name with args in dir with r's environment, failing tb on a non-zero exit or after
// timeout; it returns the combined output.
func (r *released) run(tb testing.TB, dir string, timeout time.Duration, name string, args ...string) string {
	tb.Helper()
	out, err := runEnv(dir, r.env, timeout, name, args...)
	if err != nil {
		tb.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// try is run returning the error instead of failing.
func (r *released) try(dir string, timeout time.Duration, name string, args ...string) (string, error) {
	return runEnv(dir, r.env, timeout, name, args...)
}

// releaseVersion returns the pseudo-version this checkout is published at, the same on every
// run from the same directory, and holds a lock on it until tb's cleanup so that two runs from
// one checkout take turns. A fixed version keeps the module cache's path of the published
// tree fixed, and the compiler's cache keys a package on its directory: a run after a
// one-file change recompiles that package and its dependents, not the whole runtime. The
// contents are published afresh on each run, so no run builds another's sources.
func releaseVersion(tb testing.TB, root string) string {
	tb.Helper()
	sum := sha256.Sum256([]byte(root))
	rev := hex.EncodeToString(sum[:6])
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "apigen-release-"+rev+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = lock.Close() }) // closing the file releases the lock; the cleanups run last-in first-out, after forgetVersion's
	return module.PseudoVersion("", "", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), rev)
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
func publish(t testing.TB, dir, version string) string {
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
