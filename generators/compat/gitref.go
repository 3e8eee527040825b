package compat

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
)

// Tree is the tree of a git commit extracted into a temporary directory (by `git archive`,
// leaving the working tree, the index and HEAD alone), where the API packages as they were at
// that commit load as they load now.
type Tree struct {
	// Ref is the ref as given ("origin/main"), Top the working tree's top directory, and Dir
	// the temporary directory holding the commit's tree; Close removes it.
	Ref, Top, Dir string
}

// Extract writes the tree of ref (any git revision: a branch, a tag, origin/main, HEAD~1) of
// the git repository holding dir into a new temporary directory. Errors: dir outside a git
// repository, a ref git cannot resolve, git missing, or the extraction failing.
func Extract(dir, ref string) (*Tree, error) {
	top, err := Resolve(dir, ref)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "apigen-against-")
	if err != nil {
		return nil, err
	}
	t := &Tree{Ref: ref, Top: top, Dir: tmp}
	cmd := exec.Command("git", "archive", "--format=tar", ref+"^{commit}")
	cmd.Dir = t.Top
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err == nil {
		err = untar(out, tmp)
		if werr := cmd.Wait(); err == nil && werr != nil {
			err = fmt.Errorf("git archive %s: %v: %s", ref, werr, strings.TrimSpace(stderr.String()))
		}
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Resolve checks that dir is in a git repository in which ref names a commit, and returns
// the repository's top directory; Extract calls it first. Errors say which of the two fails.
func Resolve(dir, ref string) (top string, err error) {
	if dir == "" {
		dir = "."
	}
	top, err = git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s is not in a git repository: %w", dir, err)
	}
	if _, err := git(dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return "", fmt.Errorf("git cannot resolve %q to a commit (in CI, fetch it: actions/checkout with fetch-depth: 0): %w", ref, err)
	}
	return strings.TrimSpace(top), nil
}

// Close removes the temporary directory.
func (t *Tree) Close() error { return os.RemoveAll(t.Dir) }

// Load loads patterns in the tree's counterpart of dir (a directory of the working tree),
// as load.Load loads them now. Replace directives of the module's go.mod naming a directory
// outside the repository by a relative path are made absolute, so that they name what they
// name in the working tree. A directory or module the commit does not have yet gives an empty
// API. Errors: the packages not loading (type errors, go list failing); marker problems of
// the old tree are not errors, the API is built without the faulty markers (load.Load).
func (t *Tree) Load(dir string, patterns ...string) (*model.API, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	top := t.Top
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s is outside the repository %s", dir, t.Top)
	}
	at := filepath.Join(t.Dir, rel)
	if _, err := os.Stat(at); err != nil {
		return &model.API{}, nil
	}
	modDir := at
	for {
		if _, err := os.Stat(filepath.Join(modDir, "go.mod")); err == nil {
			break
		}
		if modDir == t.Dir || modDir == filepath.Dir(modDir) {
			return &model.API{}, nil
		}
		modDir = filepath.Dir(modDir)
	}
	modRel, _ := filepath.Rel(t.Dir, modDir)
	if err := fixReplaces(modDir, filepath.Join(top, modRel), top); err != nil {
		return nil, err
	}
	api, err := load.Load(at, patterns...)
	var diags model.Diagnostics
	if api != nil && (err == nil || errors.As(err, &diags)) {
		return api, nil
	}
	if errors.As(err, &diags) {
		for i := range diags {
			diags[i].Pos = t.Pos(diags[i].Pos)
		}
		return nil, fmt.Errorf("the API at %s does not load:\n%v", t.Ref, diags)
	}
	return nil, fmt.Errorf("the API at %s does not load: %w", t.Ref, err)
}

// Pos maps a position in the extracted tree to the same file of the working tree.
func (t *Tree) Pos(p model.Position) model.Position {
	if rel, err := filepath.Rel(t.Dir, p.File); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(p.File) {
		p.File = filepath.Join(t.Top, rel)
	}
	return p
}

// fixReplaces rewrites the relative replace directives of the go.mod in modDir (a copy of
// the module whose working-tree directory is orig) that lead outside the repository top into
// absolute paths.
func fixReplaces(modDir, orig, top string) error {
	out, err := goCmd(modDir, "mod", "edit", "-json")
	if err != nil {
		return err
	}
	var mod struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal([]byte(out), &mod); err != nil {
		return fmt.Errorf("go mod edit -json: %w", err)
	}
	for _, r := range mod.Replace {
		if !strings.HasPrefix(r.New.Path, "./") && !strings.HasPrefix(r.New.Path, "../") {
			continue
		}
		target := filepath.Join(orig, r.New.Path)
		if rel, err := filepath.Rel(top, target); err == nil && !strings.HasPrefix(rel, "..") {
			continue // inside the repository: the copy has it as it was
		}
		old := r.Old.Path
		if r.Old.Version != "" {
			old += "@" + r.Old.Version
		}
		if _, err := goCmd(modDir, "mod", "edit", "-replace", old+"="+target); err != nil {
			return err
		}
	}
	return nil
}

// untar extracts the regular files and directories of a tar stream below dir.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Join(dir, filepath.FromSlash(h.Name))
		if rel, err := filepath.Rel(dir, name); err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("git archive: entry %q leads outside the tree", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, name); err != nil {
				return err
			}
		}
	}
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Result is what Check found: the changes, and where the working tree is.
type Result struct {
	// Ref is the ref compared against; Top the working tree's top directory, which CI
	// annotations name files relative to.
	Ref, Top string
	// Changes are sorted by file and line.
	Changes []Change
}

// Failed counts the breaking changes that are not allowed.
func (r *Result) Failed() int {
	n := 0
	for _, c := range r.Changes {
		if c.Fails() {
			n++
		}
	}
	return n
}

// Baseline is the API at a ref, loaded from its extracted tree, to compare the working
// tree's with (Check); Close removes the tree.
type Baseline struct {
	tree *Tree
	api  *model.API
}

// LoadBaseline extracts ref's tree (Extract) and loads patterns in its counterpart of dir
// (Tree.Load). It can run while the working tree's API loads. Errors: those of Extract and
// Tree.Load.
func LoadBaseline(dir, ref string, patterns []string) (*Baseline, error) {
	t, err := Extract(dir, ref)
	if err != nil {
		return nil, err
	}
	api, err := t.Load(dir, patterns...)
	if err != nil {
		t.Close()
		return nil, err
	}
	return &Baseline{tree: t, api: api}, nil
}

// Close removes the extracted tree.
func (b *Baseline) Close() error { return b.tree.Close() }

// Check compares the baseline with now, the API as loaded from the working tree: the changes
// of Compare, positions at the ref mapped to the working tree's files, allowed by their
// markers and by the names in allow (Allow).
func (b *Baseline) Check(now *model.API, allow []string) *Result {
	changes := Compare(b.api, now)
	for i := range changes {
		if changes[i].AtRef {
			changes[i].Pos = b.tree.Pos(changes[i].Pos)
		}
	}
	Allow(changes, allow)
	return &Result{Ref: b.tree.Ref, Top: b.tree.Top, Changes: sortChanges(changes)}
}

// Check is LoadBaseline, then Baseline.Check of now, then Close.
func Check(dir, ref string, patterns []string, now *model.API, allow []string) (*Result, error) {
	b, err := LoadBaseline(dir, ref, patterns)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Check(now, allow), nil
}
