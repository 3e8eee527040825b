package endpoints

import restful "github.com/emicklei/go-restful/v3"

// The query and path parameters the routes document, each built once and shared by every
// route that documents it: a route keeps the parameters' pointers (restful.RouteBuilder.Param)
// and nothing changes a parameter once built, so one copy serves every route of every group
// (the example server's routes held 1,800 copies, 0.45 MB of its heap at rest).
var (
	// listQueryParams are LIST's, WATCH's and DELETECOLLECTION's, as metav1.ListOptions.
	listQueryParams = queryParams([]struct{ name, typ, doc string }{
		{"labelSelector", "string", "A selector to restrict the list of returned objects by their labels. Defaults to everything."},
		{"fieldSelector", "string", "A selector to restrict the list of returned objects by their fields (metadata.name, metadata.namespace). Defaults to everything."},
		{"limit", "integer", "limit is a maximum number of responses to return for a list call; continue fetches the rest."},
		{"continue", "string", "The continue option should be set when retrieving more results from the server."},
		{"resourceVersion", "string", "resourceVersion sets a constraint on what resource versions a request may be served from."},
		{"resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls."},
		{"timeoutSeconds", "integer", "Timeout for the list/watch call, in seconds."},
		{"watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."},
		{"allowWatchBookmarks", "boolean", "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."},
		{"sendInitialEvents", "boolean", "`sendInitialEvents=true` may be set together with `watch=true` to begin the watch stream with synthetic ADDED events for the current state."},
	})
	// writeQueryParams are POST's, PUT's and PATCH's.
	writeQueryParams = queryParams([]struct{ name, typ, doc string }{
		{"dryRun", "string", "When present, indicates that modifications should not be persisted. The only valid value is: All"},
		{"fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes."},
		{"fieldValidation", "string", "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict."},
	})
	// deleteQueryParams are DELETE's.
	deleteQueryParams = queryParams([]struct{ name, typ, doc string }{
		{"dryRun", "string", "When present, indicates that modifications should not be persisted. The only valid value is: All"},
		{"gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."},
		{"propagationPolicy", "string", "Whether and how garbage collection will be performed: Orphan, Background or Foreground."},
	})
	// prettyParam is every route's; forceParam PATCH's; namespaceParam the path's.
	prettyParam    = restful.QueryParameter("pretty", "If 'true', then the output is pretty printed.").DataType("string")
	forceParam     = restful.QueryParameter("force", "Force is going to \"force\" Apply requests. It must be unset for non-apply patch requests.").DataType("boolean")
	namespaceParam = restful.PathParameter("namespace", "object name and auth scope, such as for teams and projects").DataType("string")
)

// queryParams builds the query parameters of a table of names, data types and docs.
func queryParams(table []struct{ name, typ, doc string }) []*restful.Parameter {
	out := make([]*restful.Parameter, len(table))
	for i, p := range table {
		out[i] = restful.QueryParameter(p.name, p.doc).DataType(p.typ)
	}
	return out
}

// withParams documents params on b.
func withParams(b *restful.RouteBuilder, params []*restful.Parameter) *restful.RouteBuilder {
	for _, p := range params {
		b = b.Param(p)
	}
	return b
}

// listParams documents the query parameters of LIST, WATCH and DELETECOLLECTION, as
// metav1.ListOptions.
func listParams(b *restful.RouteBuilder) *restful.RouteBuilder { return withParams(b, listQueryParams) }

// writeParams documents the query parameters of POST, PUT and PATCH.
func writeParams(b *restful.RouteBuilder) *restful.RouteBuilder {
	return withParams(b, writeQueryParams)
}

// deleteParams documents the query parameters of DELETE.
func deleteParams(b *restful.RouteBuilder) *restful.RouteBuilder {
	return withParams(b, deleteQueryParams)
}
