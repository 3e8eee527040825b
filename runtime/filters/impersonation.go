package filters

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// The impersonation headers, as k8s.io/api/authentication/v1's.
const (
	ImpersonateUserHeader            = "Impersonate-User"
	ImpersonateUIDHeader             = "Impersonate-Uid"
	ImpersonateGroupHeader           = "Impersonate-Group"
	ImpersonateUserExtraHeaderPrefix = "Impersonate-Extra-"
)

// serviceAccountPrefix begins a service account's user name: system:serviceaccount:<ns>:<name>.
const serviceAccountPrefix = "system:serviceaccount:"

// impersonation is one thing a request asks to act as, and the attributes the requester
// needs the impersonate verb on.
type impersonation struct {
	kind string // User, ServiceAccount, Group, UserExtra, UID
	// attrs is what is authorized: verb impersonate on users, serviceaccounts (in the
	// account's namespace), groups (API group ""), userextras/<key>, uids
	// (authentication.k8s.io), named by the value.
	attrs request.RequestInfo
	key   string // the extra's key
}

// WithImpersonation serves a request carrying Impersonate-User (and optionally
// Impersonate-Group, Impersonate-Uid, Impersonate-Extra-<key>) as the user they name, as
// k8s.io/apiserver's filters.WithImpersonation (`kubectl --as`, `--as-group`, `--as-uid`):
// the authenticated user must be allowed the verb impersonate on each (users, groups,
// serviceaccounts and "system:serviceaccount:<ns>:<name>" users in their namespace, in the
// core group; uids and userextras/<key> in authentication.k8s.io), else 403 with kube's
// message (`users "alice" is forbidden: User "bob" cannot impersonate resource "users" in
// API group "" at the cluster scope`). The impersonated user is in system:authenticated
// (system:unauthenticated for system:anonymous) unless the groups asked say otherwise; a
// service account without groups asked gets system:serviceaccounts and
// system:serviceaccounts:<ns>. Impersonate-Group, -Uid or -Extra without Impersonate-User is
// 500, as in kube. The audit event records impersonatedUser; the headers are removed.
func WithImpersonation(h http.Handler, z authorization.Authorizer, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wanted, err := impersonationRequests(r.Header)
		if err != nil {
			responsewriters.WriteError(w, apierrors.NewInternalError(err))
			return
		}
		if len(wanted) == 0 {
			h.ServeHTTP(w, r)
			return
		}
		requester, ok := request.UserFrom(r.Context())
		if !ok {
			responsewriters.WriteError(w, apierrors.NewInternalError(errors.New("no user found for request")))
			return
		}
		for _, want := range wanted {
			a := authorization.Attributes{User: requester, RequestInfo: want.attrs}
			if d, reason, err := z.Authorize(r.Context(), a); d != authorization.Allow {
				if log != nil {
					log.Debug("impersonation forbidden", "user", requester.Name, "resource", a.Resource, "name", a.Name, "reason", reason, "err", err)
				}
				responsewriters.WriteError(w, authorization.Forbidden(a, reason))
				return
			}
		}
		impersonated := impersonatedUser(wanted, len(r.Header.Values(ImpersonateGroupHeader)) > 0)
		ctx := request.WithUser(r.Context(), impersonated)
		audit.LogImpersonatedUser(ctx, impersonated)
		if log != nil {
			log.Debug("impersonating", "user", requester.Name, "as", impersonated.Name)
		}
		for name := range r.Header {
			if strings.HasPrefix(name, "Impersonate-") {
				r.Header.Del(name)
			}
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// impersonatedUser is the user wanted describes, as kube's WithImpersonation builds it.
func impersonatedUser(wanted []impersonation, groupsAsked bool) *request.User {
	u := &request.User{}
	for _, want := range wanted {
		switch name := want.attrs.Name; want.kind {
		case "ServiceAccount":
			u.Name = serviceAccountPrefix + want.attrs.Namespace + ":" + name
			if !groupsAsked {
				u.Groups = append(u.Groups, "system:serviceaccounts", "system:serviceaccounts:"+want.attrs.Namespace)
			}
		case "User":
			u.Name = name
		case "Group":
			u.Groups = append(u.Groups, name)
		case "UserExtra":
			if u.Extra == nil {
				u.Extra = map[string][]string{}
			}
			u.Extra[want.key] = append(u.Extra[want.key], name)
		case "UID":
			u.UID = name
		}
	}
	switch {
	case u.Name == request.Anonymous && !u.InGroup(request.AllUnauthenticated):
		u.Groups = append(u.Groups, request.AllUnauthenticated)
	case u.Name != request.Anonymous && !u.InGroup(request.AllAuthenticated) && !u.InGroup(request.AllUnauthenticated):
		u.Groups = append(u.Groups, request.AllAuthenticated)
	}
	return u
}

// impersonationRequests lists what headers asks to act as, as kube's
// buildImpersonationRequests. Errors: groups, extras or a UID without a user.
func impersonationRequests(headers http.Header) ([]impersonation, error) {
	var out []impersonation
	resource := func(kind, group, resource, sub, namespace, name string) impersonation {
		return impersonation{kind: kind, attrs: request.RequestInfo{IsResourceRequest: true, Verb: "impersonate",
			APIGroup: group, Resource: resource, Subresource: sub, Namespace: namespace, Name: name}}
	}
	user := headers.Get(ImpersonateUserHeader)
	if user != "" {
		if ns, name, ok := splitServiceAccount(user); ok {
			out = append(out, resource("ServiceAccount", "", "serviceaccounts", "", ns, name))
		} else {
			out = append(out, resource("User", "", "users", "", "", user))
		}
	}
	for _, g := range headers.Values(ImpersonateGroupHeader) {
		out = append(out, resource("Group", "", "groups", "", "", g))
	}
	keys := make([]string, 0)
	for name := range headers {
		if strings.HasPrefix(name, ImpersonateUserExtraHeaderPrefix) {
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
	for _, name := range keys {
		key := unescapeExtraKey(strings.ToLower(name[len(ImpersonateUserExtraHeaderPrefix):]))
		for _, v := range headers.Values(name) {
			extra := resource("UserExtra", "authentication.k8s.io", "userextras", key, "", v)
			extra.key = key
			out = append(out, extra)
		}
	}
	if uid := headers.Get(ImpersonateUIDHeader); uid != "" {
		out = append(out, resource("UID", "authentication.k8s.io", "uids", "", "", uid))
	}
	if user == "" && len(out) > 0 {
		return nil, fmt.Errorf("requested %s without impersonating a user", describe(out))
	}
	return out, nil
}

// describe names impersonation requests for an error message.
func describe(wanted []impersonation) string {
	parts := make([]string, len(wanted))
	for i, w := range wanted {
		parts[i] = w.kind + " " + w.attrs.Name
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// unescapeExtraKey decodes the %-encoding of an extra's key, as kube; a malformed one is
// kept as it is.
func unescapeExtraKey(key string) string {
	if k, err := url.PathUnescape(key); err == nil {
		return k
	}
	return key
}

// splitServiceAccount splits "system:serviceaccount:<ns>:<name>", as kube's
// serviceaccount.SplitUsername: both parts non-empty, no further colon.
func splitServiceAccount(user string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(user, serviceAccountPrefix)
	if !found {
		return "", "", false
	}
	namespace, name, found = strings.Cut(rest, ":")
	if !found || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}
