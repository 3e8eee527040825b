package audit

import (
	"context"
	"sync"

	"github.com/apigen-dev/apigen/runtime/request"
)

// Annotation keys kube-apiserver's authorization filter sets.
const (
	// DecisionAnnotation is "allow" or "forbid".
	DecisionAnnotation = "authorization.k8s.io/decision"
	// ReasonAnnotation is the authorizer's reason ("RBAC: allowed by ...").
	ReasonAnnotation = "authorization.k8s.io/reason"
)

// eventContext is the event of one audited request while it is served; the filters after
// WithAudit add to it. Safe for concurrent use.
type eventContext struct {
	mu sync.Mutex
	ev *Event
}

type eventKey struct{}

// withEvent returns a copy of ctx carrying ec.
func withEvent(ctx context.Context, ec *eventContext) context.Context {
	return context.WithValue(ctx, eventKey{}, ec)
}

func eventFrom(ctx context.Context) *eventContext {
	ec, _ := ctx.Value(eventKey{}).(*eventContext)
	return ec
}

// AddAnnotation records key=value on the audit event of the request ctx belongs to, as
// k8s.io/apiserver's audit.AddAuditAnnotation: nothing when the request is not audited; a
// key already set keeps its first value.
func AddAnnotation(ctx context.Context, key, value string) {
	ec := eventFrom(ctx)
	if ec == nil {
		return
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if _, set := ec.ev.Annotations[key]; set {
		return
	}
	if ec.ev.Annotations == nil {
		ec.ev.Annotations = map[string]string{}
	}
	ec.ev.Annotations[key] = value
}

// LogImpersonatedUser records who the request of ctx acts as, as k8s.io/apiserver's
// audit.LogImpersonatedUser: the event's impersonatedUser.
func LogImpersonatedUser(ctx context.Context, u *request.User) {
	ec := eventFrom(ctx)
	if ec == nil || u == nil {
		return
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	info := userInfo(u)
	ec.ev.ImpersonatedUser = &info
}

// snapshot returns a copy of the event, safe to hand to a backend while the request goes on.
func (ec *eventContext) snapshot() Event {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	e := *ec.ev
	if ec.ev.Annotations != nil {
		e.Annotations = make(map[string]string, len(ec.ev.Annotations))
		for k, v := range ec.ev.Annotations {
			e.Annotations[k] = v
		}
	}
	return e
}

// userInfo is u as an event records it.
func userInfo(u *request.User) UserInfo {
	return UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}
