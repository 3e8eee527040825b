package app

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/runtime/auth/oidc"
	"github.com/apigen-dev/apigen/runtime/storage/encryption"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// readmeSection returns the text of the README's "## <title>" section, up to the next "## ".
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q section", "## "+title)
	}
	s = s[i+1:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+4]
	}
	return s
}

// yamlBlocks are the contents of the ```yaml fenced blocks of s.
var yamlBlocks = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestReadmeProductionConfigs loads every configuration file the README's "Production"
// section shows with the loader the server uses for it (AuthenticationConfiguration:
// oidc.ParseConfig; EncryptionConfiguration: encryption.Parse and, but for its KMS
// providers, which dial a plugin, encryption.Build; TracingConfiguration:
// tracing.ParseConfiguration; a kubeconfig: client-go's clientcmd), requires one of each,
// and checks that every server flag the section names (`--flag` in prose and
// "$ example-apiserver" lines) is one the server registers.
func TestReadmeProductionConfigs(t *testing.T) {
	t.Parallel()
	section := readmeSection(t, "Production")
	seen := map[string]int{}
	for _, m := range yamlBlocks.FindAllStringSubmatch(section, -1) {
		data := []byte(m[1])
		var head struct{ Kind string }
		if err := yaml.Unmarshal(data, &head); err != nil {
			t.Errorf("a yaml block does not parse: %v\n%s", err, data)
			continue
		}
		seen[head.Kind]++
		var err error
		switch head.Kind {
		case "AuthenticationConfiguration":
			_, err = oidc.ParseConfig(data)
		case "EncryptionConfiguration":
			cfg, perr := encryption.Parse(data)
			if err = perr; err == nil {
				for i := range cfg.Resources {
					var local = cfg.Resources[i].Providers[:0:0]
					for _, p := range cfg.Resources[i].Providers {
						if p.KMS == nil {
							local = append(local, p)
						}
					}
					cfg.Resources[i].Providers = local
				}
				_, err = encryption.Build(context.Background(), cfg, encryption.Options{})
			}
		case "TracingConfiguration":
			_, err = tracing.ParseConfiguration(data, "README.md")
		case "Config":
			cfg, lerr := clientcmd.Load(data)
			if err = lerr; err == nil {
				for _, c := range cfg.Clusters {
					c.CertificateAuthority = "" // a path on the reader's machine
				}
				err = clientcmd.Validate(*cfg)
			}
		}
		if err != nil {
			t.Errorf("the README's %s does not load: %v\n%s", head.Kind, err, data)
		}
	}
	for _, kind := range []string{"AuthenticationConfiguration", "EncryptionConfiguration", "TracingConfiguration", "Config"} {
		if seen[kind] == 0 {
			t.Errorf("the Production section shows no %s", kind)
		}
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	NewOptions().AddFlags(fs)
	clientFlags := map[string]bool{"token": true} // kubectl's
	prose := regexp.MustCompile("`(?:[a-z-]+ )?--([a-z0-9-]+)[^`*]*`|\\$ example-apiserver(.*)")
	flagsOf := regexp.MustCompile(`--([a-z0-9-]+)`)
	checked := 0
	for _, m := range prose.FindAllStringSubmatch(section, -1) {
		names := []string{m[1]}
		if m[1] == "" {
			names = nil
			for _, f := range flagsOf.FindAllStringSubmatch(m[2], -1) {
				names = append(names, f[1])
			}
		}
		for _, name := range names {
			if clientFlags[name] {
				continue
			}
			checked++
			if fs.Lookup(name) == nil {
				t.Errorf("the Production section names --%s, which the server does not have", name)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d flags found in the Production section", checked)
	}
}
