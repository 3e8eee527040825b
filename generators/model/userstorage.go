package model

// UserStorageFunc returns the name of the constructor the install package of a kind marked
// +apigen:storage=interface declares by hand, which the generated store calls:
// new<Kind>Storage.
func (k *Kind) UserStorageFunc() string { return "new" + k.Name + "Storage" }

// UserStorageSignature is the signature of UserStorageFunc, as messages show it.
func (k *Kind) UserStorageSignature() string {
	return "func " + k.UserStorageFunc() + "(config registry.UserStorageConfig) (storage.Interface, error)"
}
