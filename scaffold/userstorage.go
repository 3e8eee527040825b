package scaffold

import "path"

// userStorageFile renders the hand-written constructor of a kind marked
// +apigen:storage=interface (storage_interface.go.tmpl): new<Kind>Storage returning
// runtime/storage/memory's store, which serves the resource (empty at each start) until the
// user writes the storage.
// It returns the file's path in installDir, the group's install package directory
// (<group>/install with a hub, <group>/<version>/install without), and its content.
//
// `apigen create api --storage=interface` plans it with the kind's types file, the types
// carrying +apigen:storage=interface. (The --storage flag itself is wired with the REST
// level's template; see the issue 32 work.)
func userStorageFile(installDir string, data kindData) (string, []byte, error) {
	src, err := render("storage_interface.go.tmpl", data)
	if err != nil {
		return "", nil, err
	}
	return path.Join(installDir, data.Lower+"_storage.go"), src, nil
}
