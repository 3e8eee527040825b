package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// listenRetry is how long the listener waits before it connects again after losing its
// connection (watches go on polling meanwhile).
const listenRetry = time.Second

// channel is the LISTEN/NOTIFY channel of the Store's table: every write notifies it in its
// transaction, so PostgreSQL delivers the notification when (and only if) the write commits.
func (s *Store) channel() string { return s.cfg.Table + "_changes" }

// startListener starts, once, the goroutine that LISTENs on the table's channel and wakes
// this Store's watches on each notification: a write through another server (another Store
// on the same table) reaches them at once rather than at their next poll. It needs the pgx
// driver (database/sql's "pgx"); with another, watches only poll.
func (s *Store) startListener() {
	s.listenOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		s.stopListener = func() { cancel(); <-done }
		go func() {
			defer close(done)
			for ctx.Err() == nil {
				if err := s.listen(ctx); errors.Is(err, errNotPgx) {
					return
				}
				select {
				case <-ctx.Done():
				case <-time.After(listenRetry):
				}
			}
		}()
	})
}

// errNotPgx is listen's error when the database's driver is not pgx.
var errNotPgx = errors.New("sqlstore: the database's driver is not pgx: watches poll only")

// listen holds one connection LISTENing on the channel and wakes the watches on each
// notification, until ctx ends or the connection fails.
func (s *Store) listen(ctx context.Context) error {
	conn, err := s.cfg.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return errNotPgx
		}
		pg := c.Conn()
		if _, err := pg.Exec(ctx, fmt.Sprintf("LISTEN %q", s.channel())); err != nil {
			return err
		}
		// Writes made while no one listened are found by the next poll; wake the watches once
		// so that they do not wait for it.
		s.notify()
		for {
			if _, err := pg.WaitForNotification(ctx); err != nil {
				if ctx.Err() != nil {
					// The connection is in an unknown state after a cancelled wait: drop it.
					_ = pg.Close(context.Background())
				}
				return err
			}
			s.notify()
		}
	})
}

// Close stops the Store's listener (its connection goes back to the pool) and waits for it;
// its watches go on until stopped. The Store's DB is the caller's to close, after Close.
func (s *Store) Close() error {
	s.listenOnce.Do(func() {}) // no listener starts after Close
	if s.stopListener != nil {
		s.stopListener()
	}
	return nil
}
