package app

import (
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/spf13/pflag"

	"github.com/apigen-dev/apigen/runtime/registry"
)

// Flags are flags a main adds to the server's, before Main: the configuration of what it
// registers, such as a kind's own storage (+apigen:storage=interface), as kube components
// let a main add to their options. The values are parsed with the server's flags, before any
// group is built:
//
//	app.Flags.StringVar(&dbinstall.BackupRecordsDSN, "backup-records-dsn", "", "PostgreSQL URL of the backup records' table")
var Flags = pflag.NewFlagSet("main", pflag.ContinueOnError)

// mainFlagsMu serializes reading Flags: pflag's FlagSet fills a sorted cache on VisitAll and
// AddFlagSet rewrites each added Flag's Name, so two servers of one process (tests run them
// side by side) must not share the Flag values either.
var mainFlagsMu sync.Mutex

// addMainFlags adds a copy of each of Flags to fs: the copies share their Value (what the
// main reads) but not the Flag, which parsing fs writes (Changed).
func addMainFlags(fs *pflag.FlagSet) {
	mainFlagsMu.Lock()
	defer mainFlagsMu.Unlock()
	Flags.VisitAll(func(f *pflag.Flag) {
		if fs.Lookup(f.Name) == nil {
			c := *f
			fs.AddFlag(&c)
		}
	})
}

// userStorageHost is the storage factory the server's own groups are built over: the
// server's, and a registry.UserStorageHost that closes the groups' own storages (those of
// +apigen:storage=interface kinds that are io.Closers) when the server's storage closes.
type userStorageHost struct {
	storageFactory
	log *slog.Logger

	mu      sync.Mutex
	closers []io.Closer
}

var _ registry.UserStorageHost = (*userStorageHost)(nil)

// Logger implements registry.UserStorageHost.
func (h *userStorageHost) Logger() *slog.Logger { return h.log }

// CloseAtShutdown implements registry.UserStorageHost.
func (h *userStorageHost) CloseAtShutdown(c io.Closer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closers = append(h.closers, c)
}

// close closes every storage registered, last first, logging failures.
func (h *userStorageHost) close() {
	h.mu.Lock()
	closers := h.closers
	h.closers = nil
	h.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i].Close())
	}
	if err := errors.Join(errs...); err != nil {
		h.log.Warn("cannot close a resource's own storage", "error", err)
	}
}
