package markers

// Exported for the external tests (package markers_test), which parse with the registry of
// every generator (markerset) and so cannot be in this package.

// LookupBody is lookup: the registered marker name body starts with and its value.
func (r *Registry) LookupBody(body string) (name, rest string, known bool) { return r.lookup(body) }

// Unquote is unquote.
var Unquote = unquote
