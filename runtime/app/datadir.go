package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// dataDirLockName is the file in the data directory that the server holding it keeps locked
// and in which it writes its PID.
const dataDirLockName = "lock"

// errDataDirHeld is what tryLock returns when another open file holds the lock.
var errDataDirHeld = errors.New("held by another process")

// lockDataDir takes the exclusive lock of the data directory dir (<dir>/lock, created with
// mode 0600) and writes this process's PID into it, so that a second server on the same
// directory fails at once instead of waiting forever on the embedded etcd's database file
// lock. The lock is the kernel's (flock on unix): it ends with the process, so a crashed
// server leaves nothing to clean up. It returns a function that releases the lock. When the
// lock is held it returns an error that names dir and, when the holder wrote it, its PID.
func lockDataDir(dir string) (release func() error, err error) {
	path := filepath.Join(dir, dataDirLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock data directory %s: %w", dir, err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		if !errors.Is(err, errDataDirHeld) {
			return nil, fmt.Errorf("cannot lock data directory %s: %w", dir, err)
		}
		holder := "another process"
		if b, readErr := os.ReadFile(path); readErr == nil {
			if pid, convErr := strconv.Atoi(strings.TrimSpace(string(b))); convErr == nil && pid > 0 {
				holder = "process " + strconv.Itoa(pid)
			}
		}
		return nil, fmt.Errorf("data directory %s is in use by another server (%s holds %s): stop it, or give this one another --data-dir", dir, holder, path)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot write the PID into %s: %w", path, err)
		}
	}
	return func() error {
		// Closing the file releases the lock; the file stays (removing it would race with a
		// server that has just opened it).
		return f.Close()
	}, nil
}
