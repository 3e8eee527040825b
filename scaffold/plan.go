package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Action says what Apply does with a file.
type Action string

// The actions of a Change.
const (
	// Create writes a file that does not exist yet.
	Create Action = "create"
	// Update rewrites a file that exists with other content.
	Update Action = "update"
	// Delete removes a file.
	Delete Action = "delete"
)

// Change is one file a Plan writes or deletes.
type Change struct {
	// Path is slash-separated and relative to the Plan's Root.
	Path string
	// Action is Create, Update or Delete.
	Action Action
	// Content is the file's full new content; nil for Delete.
	Content []byte
}

// Plan is every change a command makes to the repository at Root, computed before anything
// is written. Its zero Changes means the repository is already as the command would leave it.
type Plan struct {
	// Root is the repository's directory, absolute.
	Root string
	// Changes are sorted by Path when the plan is complete.
	Changes []Change

	clashes []string
	seen    map[string]bool
}

// newPlan returns an empty plan for root.
func newPlan(root string) *Plan {
	return &Plan{Root: root, seen: map[string]bool{}}
}

func (p *Plan) abs(rel string) string { return filepath.Join(p.Root, filepath.FromSlash(rel)) }

// create plans a new file: nothing when rel exists with content, a clash when it exists with
// other content.
func (p *Plan) create(rel string, content []byte) {
	old, err := os.ReadFile(p.abs(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.add(Change{Path: rel, Action: Create, Content: content})
	case err != nil:
		p.clash("%s: %v", rel, err)
	case !bytes.Equal(old, content):
		p.clash("%s exists with other content; move it away or delete it to let apigen write it", rel)
	}
}

// write plans rel to hold content, whatever it holds now (a file apigen maintains, or an
// edit of a user's file computed from its current content).
func (p *Plan) write(rel string, content []byte) {
	old, err := os.ReadFile(p.abs(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.add(Change{Path: rel, Action: Create, Content: content})
	case err != nil:
		p.clash("%s: %v", rel, err)
	case !bytes.Equal(old, content):
		p.add(Change{Path: rel, Action: Update, Content: content})
	}
}

// remove plans deleting rel when it exists.
func (p *Plan) remove(rel string) {
	if _, err := os.Stat(p.abs(rel)); err == nil {
		p.add(Change{Path: rel, Action: Delete})
	}
}

func (p *Plan) add(c Change) {
	if p.seen[c.Path] {
		p.clash("%s: planned twice (a bug in apigen)", c.Path)
		return
	}
	p.seen[c.Path] = true
	p.Changes = append(p.Changes, c)
}

// clash records a problem that stops the plan; all are reported together.
func (p *Plan) clash(format string, args ...any) {
	p.clashes = append(p.clashes, fmt.Sprintf(format, args...))
}

// err returns every clash as one error, or nil; it sorts the changes.
func (p *Plan) err() error {
	sort.Slice(p.Changes, func(i, j int) bool { return p.Changes[i].Path < p.Changes[j].Path })
	if len(p.clashes) == 0 {
		return nil
	}
	return &ClashError{Problems: p.clashes}
}

// ClashError is returned when a command cannot be applied; nothing was written.
type ClashError struct {
	// Problems are one line each: a path and what is wrong with it.
	Problems []string
}

// Error lists every problem, one per line.
func (e *ClashError) Error() string {
	return "nothing written:\n  " + strings.Join(e.Problems, "\n  ")
}

// Apply makes the changes: files are written through a temporary file and renamed into
// place, directories created as needed (0o755), and directories a deletion empties removed.
func (p *Plan) Apply() error {
	for _, c := range p.Changes {
		path := p.abs(c.Path)
		if c.Action == Delete {
			if err := os.Remove(path); err != nil {
				return err
			}
			removeEmptyParents(filepath.Dir(path), p.Root)
			continue
		}
		if err := writeFile(path, c.Content); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes content to path atomically: a temporary file in the same directory,
// renamed over path.
func writeFile(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".apigen-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(content)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// removeEmptyParents removes dir and its parents while they are empty, stopping at root.
func removeEmptyParents(dir, root string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// Summary is one line per change ("create apis/shop/v1/order_types.go"), for the CLI.
func (p *Plan) Summary() []string {
	var lines []string
	for _, c := range p.Changes {
		lines = append(lines, fmt.Sprintf("%-6s %s", c.Action, c.Path))
	}
	return lines
}
