package install

import "github.com/apigen-dev/apigen/runtime/storage"

// newFischerStorage takes no configuration: not the signature the generated store calls.
// (No newFlunderStorage is declared at all.)
func newFischerStorage() (storage.Interface, error) { return nil, nil }
