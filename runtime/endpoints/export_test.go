package endpoints

// SetListPageSize makes unpaged lists read n items at a time until the returned function
// restores the default; tests use it to cross page boundaries with few objects.
func SetListPageSize(n int64) (restore func()) {
	old := listPageSize
	listPageSize = n
	return func() { listPageSize = old }
}

// SetListFromEncodings turns the list writer that assembles lists from cached item
// encodings on or off, and returns the function restoring it. Tests using it must not run
// in parallel.
func SetListFromEncodings(on bool) (restore func()) {
	old := listFromEncodings
	listFromEncodings = on
	return func() { listFromEncodings = old }
}
