package deploycheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// CheckDockerfile checks the Dockerfile at file, built with the repository root as its
// context (docker build -f <file> <root>), and returns every problem found, one line each:
// a golang:1.26 builder stage compiles the server with CGO_ENABLED=0 go build -o <out>
// <package>, where package is a main package under root; the final stage is
// gcr.io/distroless/static:nonroot, copies <out> from the builder, runs as USER
// 65532:65532 and has the copied binary as its ENTRYPOINT.
func CheckDockerfile(file, root string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	type stage struct{ from, name string }
	var stages []stage
	var out, pkg, copied, user string
	var entrypoint []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instr, args, _ := strings.Cut(line, " ")
		fields := strings.Fields(args)
		switch strings.ToUpper(instr) {
		case "FROM":
			s := stage{from: fields[0]}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				s.name = fields[2]
			}
			stages = append(stages, s)
		case "RUN":
			if m := regexp.MustCompile(`CGO_ENABLED=0 go build .*-o (\S+) (\S+)$`).FindStringSubmatch(args); m != nil {
				out, pkg = m[1], m[2]
			}
		case "COPY":
			if len(stages) > 0 && len(fields) == 3 && strings.HasPrefix(fields[0], "--from=") {
				if from := strings.TrimPrefix(fields[0], "--from="); from == stages[0].name && fields[1] == out {
					copied = fields[2]
				}
			}
		case "USER":
			user = args
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(args), &entrypoint); err != nil {
				errorf("ENTRYPOINT %s: want the exec form, [\"/binary\"]", args)
			}
		}
	}
	if len(stages) != 2 || !strings.HasPrefix(stages[0].from, "golang:1.26") || stages[0].name == "" {
		errorf("want two stages, a named golang:1.26 builder and the image, have %v", stages)
	}
	if len(stages) > 0 && stages[len(stages)-1].from != "gcr.io/distroless/static:nonroot" {
		errorf("the image is built FROM %s, not gcr.io/distroless/static:nonroot", stages[len(stages)-1].from)
	}
	if pkg == "" {
		errorf("no RUN CGO_ENABLED=0 go build -o <binary> <package>")
	} else if !isMainPackage(filepath.Join(root, filepath.FromSlash(pkg))) {
		errorf("go build %s: not a main package under %s", pkg, root)
	}
	if copied == "" {
		errorf("no COPY --from=<builder> %s <binary>", out)
	}
	if user != "65532:65532" {
		errorf("USER %q, want 65532:65532", user)
	}
	if len(entrypoint) != 1 || entrypoint[0] != copied {
		errorf("ENTRYPOINT %q, want [%q], the binary copied from the builder", entrypoint, copied)
	}
	return problems
}

// isMainPackage reports whether dir holds a non-test Go file of package main.
func isMainPackage(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err == nil && regexp.MustCompile(`(?m)^package main\b`).Match(data) {
			return true
		}
	}
	return false
}
