package output

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// context is the number of unchanged lines shown around each change, as diff -u.
const context = 3

// maxCells bounds the LCS table (lines x lines) of the changed middle of two files; above
// it the middle is shown as removed and re-added, which is correct but not minimal.
const maxCells = 4 << 20

// edit is one line of an edit script: ' ' kept, '-' removed from old, '+' added from new.
type edit struct {
	op   byte
	text string
}

// UnifiedDiff returns a unified diff from old to new with 3 lines of context, headed
// "--- oldName" and "+++ newName" (pass "/dev/null" for an absent side), or "" when the
// contents are equal. Lines are compared exactly, after splitting on "\n".
func UnifiedDiff(oldName, newName string, old, new []byte) string {
	a, b := splitLines(old), splitLines(new)
	edits := diffLines(a, b)
	var sb strings.Builder
	hunks := hunkRanges(edits)
	if len(hunks) == 0 {
		return ""
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks {
		writeHunk(&sb, edits, h[0], h[1])
	}
	return sb.String()
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines computes an edit script from a to b: common prefix and suffix are kept, the
// middle is aligned on a longest common subsequence.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var edits []edit
	for _, l := range a[:pre] {
		edits = append(edits, edit{' ', l})
	}
	edits = append(edits, lcsEdits(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		edits = append(edits, edit{' ', l})
	}
	return edits
}

// lcsEdits aligns a and b by dynamic programming over their longest common subsequence.
func lcsEdits(a, b []string) []edit {
	n, m := len(a), len(b)
	var edits []edit
	if n*m > maxCells {
		for _, l := range a {
			edits = append(edits, edit{'-', l})
		}
		for _, l := range b {
			edits = append(edits, edit{'+', l})
		}
		return edits
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			edits = append(edits, edit{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			edits = append(edits, edit{'-', a[i]})
			i++
		default:
			edits = append(edits, edit{'+', b[j]})
			j++
		}
	}
	return edits
}

// hunkRanges returns [start, end) ranges of edits to print: each change with up to context
// kept lines around it, overlapping ranges merged.
func hunkRanges(edits []edit) [][2]int {
	var hunks [][2]int
	for i, e := range edits {
		if e.op == ' ' {
			continue
		}
		start, end := max(0, i-context), min(len(edits), i+1+context)
		if n := len(hunks); n > 0 && start <= hunks[n-1][1] {
			hunks[n-1][1] = end
			continue
		}
		hunks = append(hunks, [2]int{start, end})
	}
	return hunks
}

// writeHunk writes edits[start:end] as one "@@ -l,s +l,s @@" hunk.
func writeHunk(sb *strings.Builder, edits []edit, start, end int) {
	oldLine, newLine := 1, 1
	for _, e := range edits[:start] {
		if e.op != '+' {
			oldLine++
		}
		if e.op != '-' {
			newLine++
		}
	}
	oldCount, newCount := 0, 0
	for _, e := range edits[start:end] {
		if e.op != '+' {
			oldCount++
		}
		if e.op != '-' {
			newCount++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(oldLine, oldCount), hunkRange(newLine, newCount))
	for _, e := range edits[start:end] {
		sb.WriteByte(e.op)
		sb.WriteString(e.text)
		if !strings.HasSuffix(e.text, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk side as GNU diff does: "l,s", "l" when s is 1, and "l-1,0" for
// an empty side.
func hunkRange(line, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	case 1:
		return fmt.Sprintf("%d", line)
	}
	return fmt.Sprintf("%d,%d", line, count)
}

// display returns path relative to the working directory when it is below it.
func display(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return filepath.ToSlash(rel)
}

// side names one side of a file diff as git does ("a/path", "b/path") when the path is
// relative to the working directory, else the absolute path itself.
func side(prefix, path string) string {
	d := display(path)
	if filepath.IsAbs(d) {
		return d
	}
	return prefix + "/" + d
}
