package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// FS is the file system Write and Diff work on. Paths are absolute, slash or OS separated
// as filepath produces them.
type FS interface {
	// ReadFile returns a file's content; a missing file is an error wrapping fs.ErrNotExist.
	ReadFile(path string) ([]byte, error)
	// WriteFile replaces path's content, creating parent directories.
	WriteFile(path string, data []byte) error
	// Remove deletes path.
	Remove(path string) error
	// Glob returns the paths matching pattern, as filepath.Glob, sorted.
	Glob(pattern string) ([]string, error)
	// GoFiles returns every .go file below dir, at any depth, sorted; a missing dir has none.
	GoFiles(dir string) ([]string, error)
}

// Disk is the real file system. Files are written with mode 0644 and directories 0755; a
// write goes to a temporary file in the same directory renamed over the target, so a
// reader never sees a half-written file.
type Disk struct{}

// ReadFile reads path with os.ReadFile.
func (Disk) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

// WriteFile writes data to path atomically, creating parent directories.
func (Disk) WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create directory %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".apigen-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot create temporary file in %s: %w", dir, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// Remove deletes path with os.Remove.
func (Disk) Remove(path string) error { return os.Remove(path) }

// Glob returns filepath.Glob's matches.
func (Disk) Glob(pattern string) ([]string, error) { return filepath.Glob(pattern) }

// GoFiles walks dir with filepath.WalkDir.
func (Disk) GoFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(p) == ".go" {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// MemFS is an in-memory FS for tests; the zero value is not usable, use NewMemFS. It is
// safe for concurrent use.
type MemFS struct {
	mu    sync.Mutex
	files map[string][]byte
}

// NewMemFS returns a MemFS holding a copy of files (absolute path -> content).
func NewMemFS(files map[string][]byte) *MemFS {
	m := &MemFS{files: map[string][]byte{}}
	for p, b := range files {
		m.files[filepath.Clean(p)] = append([]byte(nil), b...)
	}
	return m
}

// Files returns a copy of every file, keyed by path.
func (m *MemFS) Files() map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]byte, len(m.files))
	for p, b := range m.files {
		out[p] = append([]byte(nil), b...)
	}
	return out
}

// ReadFile returns a copy of path's content or an error wrapping fs.ErrNotExist.
func (m *MemFS) ReadFile(path string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[filepath.Clean(path)]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), b...), nil
}

// WriteFile stores a copy of data at path.
func (m *MemFS) WriteFile(path string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[filepath.Clean(path)] = append([]byte(nil), data...)
	return nil
}

// Remove deletes path, or returns an error wrapping fs.ErrNotExist.
func (m *MemFS) Remove(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := filepath.Clean(path)
	if _, ok := m.files[p]; !ok {
		return &fs.PathError{Op: "remove", Path: path, Err: fs.ErrNotExist}
	}
	delete(m.files, p)
	return nil
}

// Glob returns the stored paths matching pattern (filepath.Match syntax), sorted.
func (m *MemFS) Glob(pattern string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for p := range m.files {
		ok, err := filepath.Match(pattern, p)
		if err != nil {
			return nil, fmt.Errorf("cannot match %s: %w", pattern, err)
		}
		if ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// GoFiles returns the stored .go files below dir, sorted.
func (m *MemFS) GoFiles(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	var out []string
	for p := range m.files {
		if strings.HasPrefix(p, prefix) && filepath.Ext(p) == ".go" {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}
