package audit

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync"
)

// Backend receives audit events, as k8s.io/apiserver's audit.Backend. ProcessEvents returns
// false when an event could not be recorded and the backend asks for the request to fail
// (the webhook backend in mode blocking-strict); other backends report their failures in
// their logs and return true. Events must not be changed after the call.
type Backend interface {
	ProcessEvents(events ...*Event) bool
}

// Union sends events to every backend, as k8s.io/apiserver's audit.Union; it returns false
// when one of them does.
func Union(backends ...Backend) Backend { return union(backends) }

type union []Backend

// ProcessEvents implements Backend.
func (u union) ProcessEvents(events ...*Event) bool {
	ok := true
	for _, b := range u {
		ok = b.ProcessEvents(events...) && ok
	}
	return ok
}

// Log is a backend writing events as JSON lines to one writer (the --audit-log-path file, or
// stdout for "-"), as kube-apiserver's log backend in its json format and blocking mode.
// Safe for concurrent use.
type Log struct {
	mu  sync.Mutex
	out io.Writer
	log *slog.Logger
}

// NewLog returns a backend writing to out; errors writing are logged to log (if not nil) and
// never fail a request.
func NewLog(out io.Writer, log *slog.Logger) *Log { return &Log{out: out, log: log} }

// ProcessEvents implements Backend.
func (l *Log) ProcessEvents(events ...*Event) bool {
	for _, e := range events {
		l.Write(e)
	}
	return true
}

// Write records one event.
func (l *Log) Write(e *Event) {
	data, err := json.Marshal(e)
	if err == nil {
		l.mu.Lock()
		_, err = l.out.Write(append(data, '\n'))
		l.mu.Unlock()
	}
	if err != nil && l.log != nil {
		l.log.Error("cannot write audit event", "auditID", e.AuditID, "err", err)
	}
}
