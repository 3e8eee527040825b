package scaffold

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apigen-dev/apigen/generators/load"
)

// planRESTStub plans the stub of a --storage=rest kind's REST, <install>/<kind>_rest.go
// (templates/api/rest.go.tmpl: new<Kind>REST serving an empty resource), unless the install
// package has the file already (the kind is served by another version, or the user has
// written it, or it is in a version's install package that a new hub's replaces, where
// moveRESTStubs moves it from). The install package is the hub's (apis/<g>/install) when the group has one,
// else the version's.
func (c *creation) planRESTStub(data kindData, hub bool) error {
	install := c.gdir + "/" + c.opts.Version + "/install"
	data.ObjPath = c.r.module + "/" + c.gdir + "/" + c.opts.Version
	if hub {
		install, data.ObjPath = c.gdir+"/install", data.HubPath
	}
	data.Plural = load.ResourcePlural(data.Kind, true)
	rel := install + "/" + data.Lower + "_rest.go"
	if hub && !c.g.hub {
		for _, v := range c.g.versions {
			if _, err := os.Stat(c.r.abs(c.gdir + "/" + v + "/install/" + data.Lower + "_rest.go")); err == nil {
				return nil // moved to the hub's install package by moveRESTStubs
			}
		}
	}
	if _, err := os.Stat(c.r.abs(rel)); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	stub, err := render("rest.go.tmpl", data)
	if err != nil {
		return err
	}
	c.p.create(rel, stub)
	return nil
}

// moveRESTStubs plans moving the hand-written files of version v's install package (the
// --storage=rest stubs, and what the user wrote there) to the hub's install package, which
// the group's second version makes the one the server calls, pointing their types import
// (`types "<module>/<g>/<v>"`, as the stub writes it) at the hub.
func (c *creation) moveRESTStubs(v, hubPath string) error {
	dir := c.gdir + "/" + v + "/install"
	names, _ := filepath.Glob(c.r.abs(dir + "/*.go"))
	for _, n := range names {
		base := filepath.Base(n)
		if strings.HasPrefix(base, "zz_generated") {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		src = bytes.ReplaceAll(src, []byte(`types "`+c.r.module+"/"+c.gdir+"/"+v+`"`), []byte(`types "`+hubPath+`"`))
		c.p.create(c.gdir+"/install/"+base, src)
		c.p.remove(dir + "/" + base)
	}
	return nil
}
