package defaulting

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/model"
)

// TestHandWrittenAddDefaultingFuncs checks that a package whose register.go registers
// addDefaultingFuncs (which calls RegisterDefaults), as Kubernetes' API packages do, gets no
// init registering the defaults a second time, and that other packages keep it.
func TestHandWrittenAddDefaultingFuncs(t *testing.T) {
	const initCall = "localSchemeBuilder.Register(RegisterDefaults)"
	for _, hand := range []bool{false, true} {
		api := widgetsAPI(t)
		pkg := api.Groups[0].Versions[0].Package
		if hand {
			pkg.Funcs[handRegistration] = model.Position{File: "defaults.go", Line: 5}
		}
		files, err := New().Generate(api)
		if err != nil {
			t.Fatal(err)
		}
		got := string(files[filepath.Join(pkg.Dir, FileName)])
		if !strings.Contains(got, "func RegisterDefaults(") {
			t.Fatalf("hand-written addDefaultingFuncs %v: no RegisterDefaults in\n%s", hand, got)
		}
		if has := strings.Contains(got, initCall); has == hand {
			t.Errorf("hand-written addDefaultingFuncs %v: file contains %q = %v, want %v:\n%s", hand, initCall, has, !hand, got)
		}
	}
}
