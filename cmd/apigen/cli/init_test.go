package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestEveryCommandHasExample(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() != "help" && strings.TrimSpace(c.Example) == "" {
			t.Errorf("command %q has no Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand())
	code, stdout, _ := run(t, "create", "api", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:\n  apigen create api --group shop.example.com --version v1 --kind Order") {
		t.Errorf("create api --help: exit %d\n%s", code, stdout)
	}
}

func TestInitAndCreateAPICommands(t *testing.T) {
	checkout, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	code, stdout, stderr := run(t, "init", "example.com/shop", "--no-tidy", "--apigen-replace", checkout, "--name", "store")
	if code != 0 || !strings.Contains(stdout, "apigen init: 19 files written to shop in ") {
		t.Fatalf("init: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat("shop/cmd/store-apiserver/main.go"); err != nil {
		t.Errorf("--name store: %v", err)
	}
	code, _, stderr = run(t, "init", "example.com/shop", "--no-tidy", "--apigen-replace", checkout, "--dir", "shop")
	if code != 1 || !strings.Contains(stderr, "nothing written:") || !strings.Contains(stderr, "exists with other content") {
		t.Errorf("init over a different repository: exit %d, want 1 and the clashes:\n%s", code, stderr)
	}
	t.Chdir("shop")
	args := []string{"create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Order"}
	code, stdout, stderr = run(t, args...)
	if code != 0 || !strings.Contains(stdout, "create apis/shop/v1/order_types.go") || !strings.Contains(stdout, "apigen create api: 4 files changed") {
		t.Fatalf("create api: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, _ = run(t, args...)
	if code != 0 || !strings.Contains(stdout, "is already there; nothing changed") {
		t.Errorf("create api again: exit %d\n%s", code, stdout)
	}
	code, _, stderr = run(t, append(args, "--namespaced=false")...)
	if code != 1 || !strings.Contains(stderr, "kind Order exists in apis/shop/v1 with --namespaced=true") {
		t.Errorf("create api with another scope: exit %d, want 1:\n%s", code, stderr)
	}
	if code, _, stderr = run(t, "create", "api", "--group", "shop.example.com"); code != 2 || !strings.Contains(stderr, `required flag(s) "kind", "version" not set`) {
		t.Errorf("create api without --kind: exit %d, want 2:\n%s", code, stderr)
	}
}
