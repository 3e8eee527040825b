package endpoints

// SetListPageSize makes unpaged lists read n items at a time until the returned function
// restores the default; tests use it to cross page boundaries with few objects.
func SetListPageSize(n int64) (restore func()) {
	old := listPageSize
	listPageSize = n
	return func() { listPageSize = old }
}
