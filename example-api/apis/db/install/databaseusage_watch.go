package install

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	db "github.com/apigen-dev/apigen/example-api/apis/db"
)

// usageWatch is a watch of DatabaseUsages: the Databases' watch (in) turned into their
// usages' events, and a MODIFIED event for every usage at each new window.
type usageWatch struct {
	r    *databaseUsageREST
	in   watch.Interface
	out  chan watch.Event
	stop chan struct{}
	once sync.Once
}

// ResultChan returns the events; closed when the watch ends.
func (w *usageWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop ends the watch and the Databases' watch.
func (w *usageWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.in.Stop()
	})
}

// run sends the initial usages when initial is set, then the events, until Stop, ctx ends or
// the Databases' watch does.
func (w *usageWatch) run(ctx context.Context, dbs *db.DatabaseList, initial bool) {
	defer close(w.out)
	defer w.in.Stop()
	current := map[string]*db.Database{}
	for i := range dbs.Items {
		d := &dbs.Items[i]
		current[d.Namespace+"/"+d.Name] = d
	}
	window := w.r.window()
	if initial {
		for _, d := range current {
			if !w.send(ctx, watch.Added, d, window) {
				return
			}
		}
	}
	ticker := time.NewTicker(time.Until(window.Add(w.r.interval)) + time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.stop:
			return
		case <-ticker.C:
			ticker.Reset(w.r.interval)
			window = w.r.window()
			for _, d := range current {
				if !w.send(ctx, watch.Modified, d, window) {
					return
				}
			}
		case ev, ok := <-w.in.ResultChan():
			if !ok {
				return
			}
			d, isDB := ev.Object.(*db.Database)
			if !isDB { // BOOKMARK of another kind, ERROR: pass on
				if ev.Type == watch.Error && !w.sendEvent(ctx, ev) {
					return
				}
				continue
			}
			key := d.Namespace + "/" + d.Name
			switch ev.Type {
			case watch.Added, watch.Modified:
				current[key] = d
			case watch.Deleted:
				delete(current, key)
			default:
				continue
			}
			if !w.send(ctx, ev.Type, d, w.r.window()) {
				return
			}
		}
	}
}

// send sends an event of typ for the usage of d in window; false when the watch ended.
func (w *usageWatch) send(ctx context.Context, typ watch.EventType, d *db.Database, window time.Time) bool {
	return w.sendEvent(ctx, watch.Event{Type: typ, Object: w.r.usage(d, window)})
}

// sendEvent sends ev; false when the watch ended.
func (w *usageWatch) sendEvent(ctx context.Context, ev watch.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.stop:
		return false
	case <-ctx.Done():
		return false
	}
}
