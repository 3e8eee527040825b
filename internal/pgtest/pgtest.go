// Package pgtest runs a real PostgreSQL server for a test: Debian's postgresql package
// (/usr/lib/postgresql/<version>/bin; .ci/run installs it), initdb into a temporary
// directory, postgres on a free loopback port, stopped by PID in t.Cleanup.
//
// PostgreSQL refuses to run as root. Tests run as root on CI and on the development
// machine, so there the server's directory is given to the unprivileged user "nobody" and
// initdb and postgres run as it (exec with a credential, as `runuser -u nobody` would).
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/internal/freeport"
)

// startTimeout bounds initdb and postgres's start on a loaded machine.
const startTimeout = time.Minute

// User is the database superuser Start's server trusts (no password) on 127.0.0.1.
const User = "apigen"

// Server is a running PostgreSQL.
type Server struct {
	// Port is where it listens on 127.0.0.1.
	Port int
}

// URL returns the libpq URL of database db (kine creates it when missing), e.g.
// "postgres://apigen@127.0.0.1:20001/kine?sslmode=disable".
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", User, s.Port, db)
}

// Bin returns the directory of PostgreSQL's programs (the newest version installed), or ""
// when none is.
func Bin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	var found []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			found = append(found, d)
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Slice(found, func(i, j int) bool { return version(found[i]) < version(found[j]) })
	return found[len(found)-1]
}

// version is the major version in a /usr/lib/postgresql/<version>/bin path.
func version(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

// Start initdbs a cluster in a new temporary directory and runs postgres on a free
// 127.0.0.1 port with fsync off, until the test ends (SIGINT, PostgreSQL's fast shutdown, to
// its PID; SIGKILL after 10s). It fails the test when PostgreSQL is not installed (install
// Debian's postgresql package) or does not start within a minute; -short skips it.
func Start(t testing.TB) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("PostgreSQL test skipped in -short mode")
	}
	bin := Bin()
	if bin == "" {
		t.Fatal("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres): apt-get install postgresql")
	}
	cred, err := credential()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is root's 0700 directory, which nobody cannot enter.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	initdb := command(ctx, cred, filepath.Join(bin, "initdb"), "-D", data, "-U", User, "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freeport.Port(t)
	var logs bytes.Buffer
	pg := command(context.Background(), cred, filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+dir, "-c", "fsync=off",
		"-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
	pg.Stdout, pg.Stderr = &logs, &logs
	if err := pg.Start(); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = pg.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(pg.Process.Pid, syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(pg.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	// postmaster.pid's 8th line is the server's status, "ready" once it accepts connections.
	for {
		if b, err := os.ReadFile(filepath.Join(data, "postmaster.pid")); err == nil && strings.Contains(string(b), "ready") {
			return &Server{Port: port}
		}
		select {
		case <-exited:
			t.Fatalf("postgres exited while starting:\n%s", logs.String())
		case <-ctx.Done():
			t.Fatalf("postgres did not start within %s:\n%s", startTimeout, logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// credential returns the user PostgreSQL runs as: nil (this process's) unless it is root,
// then nobody's.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("tests run as root, and PostgreSQL refuses to: no user nobody to run it as: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// command is exec.CommandContext running as cred (nil: this process's user), in its own
// process group so that a ^C of the test does not reach it before the cleanup's SIGINT.
func command(ctx context.Context, cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	cmd.Dir = "/"
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
	return cmd
}
