package namespace

import "context"

// ContentDeleter deletes every object one server (or one kind of server, such as the
// extensions server's custom resources) holds in a namespace. The namespace controller calls
// every ContentDeleter of the chain for a terminating namespace until all report nothing
// left.
type ContentDeleter interface {
	// DeleteNamespaceContent deletes (gracefully, as a delete request would: objects with
	// finalizers get a deletionTimestamp and stay) every object in namespace and returns how
	// many objects are still there afterwards; 0 means the namespace is empty as far as this
	// deleter knows. Errors are storage errors; the controller retries.
	DeleteNamespaceContent(ctx context.Context, namespace string) (remaining int, err error)
}
