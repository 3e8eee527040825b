package sqlstore

import (
	"context"
	"log/slog"
	"time"
)

// Compact trims the change log at the current revision and returns it: every change but
// each live key's last goes, so lists and watches at an older revision fail with 410 Gone
// (Expired), as after etcd's compaction. Errors: the database's.
func (s *Store) Compact(ctx context.Context) (int64, error) {
	var rev int64
	if err := s.cfg.DB.QueryRowContext(ctx, s.q.revisions).Scan(&rev, new(int64)); err != nil {
		return 0, dbError("", err)
	}
	return rev, s.CompactAt(ctx, rev)
}

// CompactAt trims the change log at revision rev (see Compact). Errors: the database's.
func (s *Store) CompactAt(ctx context.Context, rev int64) error {
	tx, err := s.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return dbError("", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, s.q.setCompacted, rev); err != nil {
		return dbError("", err)
	}
	if _, err := tx.ExecContext(ctx, s.q.compact, rev); err != nil {
		return dbError("", err)
	}
	if err := tx.Commit(); err != nil {
		return dbError("", err)
	}
	return nil
}

// RunCompactor compacts every interval at the revision the previous tick read, as
// kube-apiserver's compactor does etcd: a watch or paged list has at least one interval to
// catch up before its revision expires. It returns when ctx ends; errors are logged to log.
func (s *Store) RunCompactor(ctx context.Context, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if last > 0 {
			if err := s.CompactAt(ctx, last); err != nil && ctx.Err() == nil {
				log.Warn("cannot compact the change log", "table", s.cfg.Table, "revision", last, "error", err)
			}
		}
		if err := s.cfg.DB.QueryRowContext(ctx, s.q.revisions).Scan(&last, new(int64)); err != nil && ctx.Err() == nil {
			log.Warn("cannot read the revision", "table", s.cfg.Table, "error", err)
		}
	}
}
