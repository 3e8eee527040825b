package endpoints

// SetListFromEncodings turns the list writer that assembles lists from cached item
// encodings on or off, and returns the function restoring it. Tests using it must not run
// in parallel.
func SetListFromEncodings(on bool) (restore func()) {
	old := listFromEncodings
	listFromEncodings = on
	return func() { listFromEncodings = old }
}
