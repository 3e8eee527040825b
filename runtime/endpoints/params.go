package endpoints

import restful "github.com/emicklei/go-restful/v3"

// listParams documents the query parameters of LIST, WATCH and DELETECOLLECTION, as
// metav1.ListOptions.
func listParams(ws *restful.WebService, b *restful.RouteBuilder) *restful.RouteBuilder {
	params := []struct{ name, typ, doc string }{
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
	}
	for _, p := range params {
		b = b.Param(ws.QueryParameter(p.name, p.doc).DataType(p.typ))
	}
	return b
}

// writeParams documents the query parameters of POST, PUT and PATCH.
func writeParams(ws *restful.WebService, b *restful.RouteBuilder) *restful.RouteBuilder {
	return b.
		Param(ws.QueryParameter("dryRun", "When present, indicates that modifications should not be persisted. The only valid value is: All").DataType("string")).
		Param(ws.QueryParameter("fieldManager", "fieldManager is a name associated with the actor or entity that is making these changes.").DataType("string")).
		Param(ws.QueryParameter("fieldValidation", "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict.").DataType("string"))
}

// deleteParams documents the query parameters of DELETE.
func deleteParams(ws *restful.WebService, b *restful.RouteBuilder) *restful.RouteBuilder {
	return b.
		Param(ws.QueryParameter("dryRun", "When present, indicates that modifications should not be persisted. The only valid value is: All").DataType("string")).
		Param(ws.QueryParameter("gracePeriodSeconds", "The duration in seconds before the object should be deleted.").DataType("integer")).
		Param(ws.QueryParameter("propagationPolicy", "Whether and how garbage collection will be performed: Orphan, Background or Foreground.").DataType("string"))
}
