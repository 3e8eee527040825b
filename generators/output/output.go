package output

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// GeneratedGlob matches the files apigen owns in an owned directory; one of them that no
// generator produced in a run is stale.
const GeneratedGlob = "zz_generated.*.go"

// Result says what Write did; every list holds absolute paths, sorted.
type Result struct {
	// Changed are the files written because they were missing or their bytes differed.
	Changed []string
	// Unchanged are the files whose bytes on disk already matched; they were not touched.
	Unchanged []string
	// Deleted are the stale zz_generated.*.go files removed from owned directories.
	Deleted []string
	// Tombstoned are the stale files replaced by tombstones (Removal Tombstone).
	Tombstoned []string
}

// headerLine is the first line of every generated file and of a tombstone.
const headerLine = emit.Header + "\n"

// Status classifies a FileDiff.
type Status string

// The ways a generated file can differ from the disk.
const (
	// Stale: the file exists with different bytes.
	Stale Status = "stale"
	// Missing: a generator produced the file but it is not on disk.
	Missing Status = "missing"
	// Extra: a zz_generated.*.go file in an owned directory that no generator produced.
	Extra Status = "extra"
)

// FileDiff is one file that differs from what the generators produced.
type FileDiff struct {
	// Path is the absolute path of the file.
	Path   string
	Status Status
	// Unified is a unified diff (3 lines of context) from the disk ("a/") to the generated
	// content ("b/"), naming the file by its display path (relative to the working
	// directory when below it); /dev/null stands for the absent side.
	Unified string
}

// Write writes files (absolute path -> content) to the disk, rewriting only files whose
// bytes changed, and removes, as removal says, every zz_generated.*.go file in the owned
// directories that is not in files, and every generated file of the owned trees and patterns
// (a tombstone is always deleted; a stale file that is not Go, which go generate never lists,
// is always deleted). It stops at the first error; files written before it stay written.
func Write(files map[string][]byte, owned []string, removal Removal) (Result, error) {
	return WriteFS(Disk{}, files, owned, removal)
}

// WriteFS is Write on fsys.
func WriteFS(fsys FS, files map[string][]byte, owned []string, removal Removal) (Result, error) {
	var res Result
	paths, err := sortedPaths(files)
	if err != nil {
		return res, err
	}
	for _, p := range paths {
		old, err := fsys.ReadFile(p)
		if err == nil && bytes.Equal(old, files[p]) {
			res.Unchanged = append(res.Unchanged, p)
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("cannot read %s: %w", p, err)
		}
		if err := fsys.WriteFile(p, files[p]); err != nil {
			return res, fmt.Errorf("cannot write %s: %w", p, err)
		}
		res.Changed = append(res.Changed, p)
	}
	extra, err := extraFiles(fsys, files, owned)
	if err != nil {
		return res, err
	}
	for _, p := range extra {
		if removal == Tombstone && filepath.Ext(p) == ".go" {
			old, err := fsys.ReadFile(p)
			if err != nil {
				return res, fmt.Errorf("cannot read stale file %s: %w", p, err)
			}
			if !isTombstone(old) {
				if err := fsys.WriteFile(p, tombstoneOf(old)); err != nil {
					return res, fmt.Errorf("cannot replace stale file %s: %w", p, err)
				}
				res.Tombstoned = append(res.Tombstoned, p)
				continue
			}
		}
		if err := fsys.Remove(p); err != nil {
			return res, fmt.Errorf("cannot delete stale file %s: %w", p, err)
		}
		res.Deleted = append(res.Deleted, p)
	}
	return res, nil
}

// Diff compares files with the disk without writing and returns one FileDiff per stale,
// missing or extra file, sorted by path; an empty result means everything is up to date.
func Diff(files map[string][]byte, owned []string) ([]FileDiff, error) {
	return DiffFS(Disk{}, files, owned)
}

// DiffFS is Diff on fsys.
func DiffFS(fsys FS, files map[string][]byte, owned []string) ([]FileDiff, error) {
	paths, err := sortedPaths(files)
	if err != nil {
		return nil, err
	}
	var diffs []FileDiff
	for _, p := range paths {
		old, err := fsys.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			diffs = append(diffs, FileDiff{Path: p, Status: Missing, Unified: UnifiedDiff("/dev/null", side("b", p), nil, files[p])})
		case err != nil:
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		case !bytes.Equal(old, files[p]):
			diffs = append(diffs, FileDiff{Path: p, Status: Stale, Unified: UnifiedDiff(side("a", p), side("b", p), old, files[p])})
		}
	}
	extra, err := extraFiles(fsys, files, owned)
	if err != nil {
		return nil, err
	}
	for _, p := range extra {
		old, err := fsys.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		}
		if isTombstone(old) {
			continue
		}
		diffs = append(diffs, FileDiff{Path: p, Status: Extra, Unified: UnifiedDiff(side("a", p), "/dev/null", old, nil)})
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].Path < diffs[j].Path })
	return diffs, nil
}

// sortedPaths returns the keys of files sorted, rejecting relative paths.
func sortedPaths(files map[string][]byte) ([]string, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("cannot write %s: generated file paths must be absolute", p)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}

// TreeSuffix marks an owned entry as a tree: Tree(dir) owns, at any depth below dir, every .go
// file that begins with the apigen header (emit.Header), whatever its name, as the generated
// clients' tree (pkg/generated) is laid out with client-gen's file names. A hand-written file
// in the tree (an expansion) does not begin with the header and is left alone.
const TreeSuffix = string(filepath.Separator) + "..."

// Tree returns the owned entry of the tree rooted at dir.
func Tree(dir string) string { return filepath.Clean(dir) + TreeSuffix }

// Matching returns the owned entry of the generated files matching pattern (filepath.Match
// syntax in its last element, e.g. "<root>/config/crd/db.example.com_*.yaml"): each matching
// file that begins with the generated-file header of its kind (YAMLHeaderLine for .yaml, the
// Go header for .go) is apigen's, so a hand-written file beside them is left alone.
func Matching(pattern string) string { return filepath.Clean(pattern) }

// isPattern reports whether an owned entry is a Matching pattern: its last element holds a
// filepath.Match metacharacter, which no directory apigen owns has.
func isPattern(entry string) bool { return strings.ContainsAny(filepath.Base(entry), "*?[") }

// YAMLHeaderLine is the first line of every generated YAML file (a CustomResourceDefinition
// under config/crd), the YAML form of emit.Header.
const YAMLHeaderLine = emit.YAMLHeader + "\n"

// hasHeader reports whether content, the content of file path, begins with the generated-file
// header of the file's kind.
func hasHeader(path string, content []byte) bool {
	if filepath.Ext(path) == ".yaml" {
		return bytes.HasPrefix(content, []byte(YAMLHeaderLine))
	}
	return bytes.HasPrefix(content, []byte(headerLine))
}

// extraFiles lists the zz_generated.*.go files in the owned directories, and the generated
// files of the owned trees and patterns, that are not in files.
func extraFiles(fsys FS, files map[string][]byte, owned []string) ([]string, error) {
	var extra []string
	seen := map[string]bool{}
	for _, dir := range owned {
		matches, err := ownedFiles(fsys, dir)
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if _, ok := files[m]; !ok && !seen[m] {
				seen[m] = true
				extra = append(extra, m)
			}
		}
	}
	sort.Strings(extra)
	return extra, nil
}

// ownedFiles lists the files apigen owns under one owned entry: a directory's
// zz_generated.*.go files, or a tree's generated .go files (see TreeSuffix).
func ownedFiles(fsys FS, entry string) ([]string, error) {
	root, isTree := strings.CutSuffix(entry, TreeSuffix)
	if isPattern(entry) {
		return generatedMatches(fsys, entry)
	}
	if !isTree {
		matches, err := fsys.Glob(filepath.Join(entry, GeneratedGlob))
		if err != nil {
			return nil, fmt.Errorf("cannot list generated files in %s: %w", entry, err)
		}
		var out []string
		for _, m := range matches {
			b, err := fsys.ReadFile(m)
			if err != nil {
				return nil, fmt.Errorf("cannot read %s: %w", m, err)
			}
			if !otherTool(b) {
				out = append(out, m)
			}
		}
		return out, nil
	}
	all, err := fsys.GoFiles(root)
	if err != nil {
		return nil, fmt.Errorf("cannot list generated files below %s: %w", root, err)
	}
	var out []string
	for _, p := range all {
		b, err := fsys.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		}
		if bytes.HasPrefix(b, []byte(headerLine)) {
			out = append(out, p)
		}
	}
	return out, nil
}

// otherToolRE matches the header another code generator writes above the package clause.
var otherToolRE = regexp.MustCompile(`^// Code generated by (\S+)\. DO NOT EDIT\.$`)

// otherTool reports whether content, a Go file, says before its package clause that another
// tool than apigen generated it (controller-gen's zz_generated.deepcopy.go in a kubebuilder
// project): such a file is that tool's, never apigen's to rewrite or delete.
func otherTool(content []byte) bool {
	for line := range bytes.Lines(content) {
		line = bytes.TrimRight(line, "\r\n")
		if bytes.HasPrefix(line, []byte("package ")) {
			return false
		}
		if m := otherToolRE.FindSubmatch(line); m != nil {
			return string(m[1]) != "apigen"
		}
	}
	return false
}

// generatedMatches lists the files matching pattern that begin with the generated-file header
// of their kind.
func generatedMatches(fsys FS, pattern string) ([]string, error) {
	matches, err := fsys.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("cannot list generated files %s: %w", pattern, err)
	}
	var out []string
	for _, p := range matches {
		b, err := fsys.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		}
		if hasHeader(p, b) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Owned returns the owned entries of api for Write and Diff: every API package directory,
// every group's install directory, the Tree of generated clients of every group with
// clients (model.Group.ClientDir), and the CustomResourceDefinitions of every named group
// (Matching "<CRDDir>/<group>_*.yaml": a run over some groups leaves the CRDs of the others
// alone).
func Owned(api *model.API) []string {
	var dirs []string
	for _, pkg := range api.Packages {
		dirs = append(dirs, pkg.Dir)
	}
	seen := map[string]bool{}
	for _, g := range api.Groups {
		dirs = append(dirs, g.InstallDir)
		if g.Name != "" && g.CRDDir != "" {
			dirs = append(dirs, Matching(filepath.Join(g.CRDDir, g.Name+"_*.yaml")))
		}
		if g.Name != "" && g.SamplesDir != "" {
			dirs = append(dirs, Matching(filepath.Join(g.SamplesDir, g.Name+"_*.yaml")))
		}
		if g.HasClients() && !seen[g.ClientDir] {
			seen[g.ClientDir] = true
			dirs = append(dirs, Tree(g.ClientDir))
		}
	}
	return dirs
}
