package scaffold

import (
	"errors"
	"io/fs"
	"os"
	"path"
)

// userStorageFile renders the hand-written constructor of a kind marked
// +apigen:storage=interface (storage_interface.go.tmpl): new<Kind>Storage returning
// runtime/storage/memory's store, which serves the resource (empty at each start) until the
// user writes the storage. It returns the file's path in installDir, the group's install
// package directory, and its content.
func userStorageFile(installDir string, data kindData) (string, []byte, error) {
	src, err := render("storage_interface.go.tmpl", data)
	if err != nil {
		return "", nil, err
	}
	return path.Join(installDir, data.Lower+"_storage.go"), src, nil
}

// planStorageStub plans the stub of a --storage=interface kind's storage,
// <install>/<kind>_storage.go (userStorageFile), unless the install package has it already
// (the kind is in another version, the user has written it, or it is in a version's install
// package that a new hub's replaces, where moveRESTStubs moves it from, with every
// hand-written file there). The install package is the hub's (apis/<g>/install) when the
// group has one, else the version's.
func (c *creation) planStorageStub(data kindData, hub bool) error {
	install := c.gdir + "/" + c.opts.Version + "/install"
	if hub {
		install = c.gdir + "/install"
	}
	if hub && !c.g.hub {
		for _, v := range c.g.versions {
			if _, err := os.Stat(c.r.abs(c.gdir + "/" + v + "/install/" + data.Lower + "_storage.go")); err == nil {
				return nil // moved to the hub's install package by moveRESTStubs
			}
		}
	}
	rel, stub, err := userStorageFile(install, data)
	if err != nil {
		return err
	}
	if _, err := os.Stat(c.r.abs(rel)); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	c.p.create(rel, stub)
	return nil
}
