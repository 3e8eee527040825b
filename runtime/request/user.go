package request

import (
	"context"
	"slices"
)

// Well-known user and group names, as k8s.io/apiserver/pkg/authentication/user.
const (
	// Anonymous is the user name of unauthenticated requests.
	Anonymous = "system:anonymous"
	// AllUnauthenticated is the group of unauthenticated requests.
	AllUnauthenticated = "system:unauthenticated"
	// AllAuthenticated is the group every authenticated user is added to.
	AllAuthenticated = "system:authenticated"
	// SystemPrivilegedGroup is the group the bootstrap binds to cluster-admin.
	SystemPrivilegedGroup = "system:masters"
)

// User is who a request comes from, as k8s.io/apiserver's user.DefaultInfo.
type User struct {
	// Name is the user name, e.g. "alice" or "system:anonymous".
	Name string
	// UID is a unique identifier for the user, or empty.
	UID string
	// Groups are the user's groups, e.g. ["system:masters", "system:authenticated"].
	Groups []string
	// Extra holds additional attributes from the authenticator (front-proxy
	// X-Remote-Extra-<key> headers), keys lower-case.
	Extra map[string][]string
}

// InGroup reports whether u belongs to group.
func (u *User) InGroup(group string) bool { return slices.Contains(u.Groups, group) }

type userKey struct{}

// WithUser returns a copy of ctx carrying u.
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the User WithUser put in ctx, and whether there was one.
func UserFrom(ctx context.Context) (*User, bool) {
	u, ok := ctx.Value(userKey{}).(*User)
	return u, ok
}
