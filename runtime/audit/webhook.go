package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/apigen-dev/apigen/runtime/auth"
)

// The webhook backend's modes, as kube-apiserver's --audit-webhook-mode.
const (
	// ModeBatch buffers events and sends them in batches in the background; a full buffer
	// drops events. The default.
	ModeBatch = "batch"
	// ModeBlocking sends each request's events before the request goes on; a failure is
	// logged.
	ModeBlocking = "blocking"
	// ModeBlockingStrict is ModeBlocking, and a failure to send the RequestReceived event
	// fails the request.
	ModeBlockingStrict = "blocking-strict"
)

// WebhookConfig configures NewWebhook, as kube-apiserver's --audit-webhook-* flags.
type WebhookConfig struct {
	// ConfigFile is a kubeconfig-format file naming the service (its cluster's server) and
	// the credentials to present (--audit-webhook-config-file).
	ConfigFile string
	// Mode is ModeBatch, ModeBlocking or ModeBlockingStrict.
	Mode string
	// BufferSize is how many events batch mode holds before dropping (default 10000).
	BufferSize int
	// MaxBatchSize is the most events one request carries (default 400); MaxBatchWait how
	// long a batch not full waits for more (default 30s).
	MaxBatchSize int
	MaxBatchWait time.Duration
	// ThrottleEnable limits batch sends to ThrottleQPS per second with bursts of
	// ThrottleBurst (defaults true, 10, 15).
	ThrottleEnable bool
	ThrottleQPS    float32
	ThrottleBurst  int
	// InitialBackoff is the wait before the first retry of a failed send (default 10s); each
	// retry waits 1.5 times longer, with up to 20% jitter, for at most 5 attempts, as kube's
	// webhook.DefaultRetryBackoffWithInitialDelay. Only failures another attempt may mend
	// are retried: no answer, 429, 5xx.
	InitialBackoff time.Duration
}

// DefaultWebhookConfig returns kube-apiserver's defaults.
func DefaultWebhookConfig() WebhookConfig {
	return WebhookConfig{Mode: ModeBatch, BufferSize: 10000, MaxBatchSize: 400, MaxBatchWait: 30 * time.Second,
		ThrottleEnable: true, ThrottleQPS: 10, ThrottleBurst: 15, InitialBackoff: 10 * time.Second}
}

// webhookAttempts is how many times a batch is sent before it is dropped.
const webhookAttempts = 5

// closeTimeout bounds how long Close waits for the last batches.
const closeTimeout = 30 * time.Second

// Webhook is a backend POSTing audit.k8s.io/v1 EventLists to a remote service, as
// kube-apiserver's audit webhook backend (--audit-webhook-config-file), in batch or blocking
// mode. Answers other than 2xx, and connection failures, are retried (see InitialBackoff);
// a batch that fails every attempt is logged and dropped. Close sends what is buffered and
// stops. Safe for concurrent use.
type Webhook struct {
	cfg    WebhookConfig
	client *http.Client
	url    string
	log    *slog.Logger

	buffer   chan *Event
	limiter  *rate.Limiter
	sends    sync.WaitGroup
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

// NewWebhook reads cfg.ConfigFile and, in batch mode, starts sending in the background; log
// (may be nil) receives dropped events and failed sends. Zero fields of cfg take
// DefaultWebhookConfig's values. Errors: the config file cannot be read; an unknown mode.
func NewWebhook(cfg WebhookConfig, log *slog.Logger) (*Webhook, error) {
	def := DefaultWebhookConfig()
	if cfg.Mode == "" {
		cfg.Mode = def.Mode
	}
	if cfg.Mode != ModeBatch && cfg.Mode != ModeBlocking && cfg.Mode != ModeBlockingStrict {
		return nil, fmt.Errorf("audit webhook mode %q: write batch, blocking or blocking-strict", cfg.Mode)
	}
	for _, f := range []struct {
		v *int
		d int
	}{{&cfg.BufferSize, def.BufferSize}, {&cfg.MaxBatchSize, def.MaxBatchSize}, {&cfg.ThrottleBurst, def.ThrottleBurst}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	if cfg.MaxBatchWait <= 0 {
		cfg.MaxBatchWait = def.MaxBatchWait
	}
	if cfg.ThrottleQPS <= 0 {
		cfg.ThrottleQPS = def.ThrottleQPS
	}
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = def.InitialBackoff
	}
	client, url, err := auth.WebhookClient(cfg.ConfigFile)
	if err != nil {
		return nil, fmt.Errorf("audit webhook: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Webhook{cfg: cfg, client: client, url: url, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	if cfg.ThrottleEnable {
		w.limiter = rate.NewLimiter(rate.Limit(cfg.ThrottleQPS), cfg.ThrottleBurst)
	}
	if cfg.Mode == ModeBatch {
		w.buffer = make(chan *Event, cfg.BufferSize)
		go w.run()
	} else {
		close(w.done)
	}
	return w, nil
}

// ProcessEvents implements Backend: in batch mode it queues the events (dropping those a full
// buffer has no room for); in blocking modes it sends them now, and in blocking-strict mode
// returns false when that fails.
func (w *Webhook) ProcessEvents(events ...*Event) bool {
	if w.cfg.Mode != ModeBatch {
		err := w.send(context.Background(), events)
		if err != nil {
			w.log.Error("cannot send audit events to the webhook", "events", len(events), "err", err)
		}
		return err == nil || w.cfg.Mode != ModeBlockingStrict
	}
	for _, e := range events {
		select {
		case <-w.stop:
			w.log.Error("audit event after the webhook backend stopped: dropped", "auditID", e.AuditID)
			return true
		default:
		}
		select {
		case w.buffer <- e:
		default:
			w.log.Error("audit buffer queue blocked: event dropped", "auditID", e.AuditID)
		}
	}
	return true
}

// run collects batches and sends each in the background until Close, then sends what is
// left.
func (w *Webhook) run() {
	defer close(w.done)
	for {
		batch, stopped := w.collect()
		if len(batch) > 0 {
			if w.limiter != nil && !stopped {
				_ = w.limiter.Wait(context.Background())
			}
			w.sends.Add(1)
			go func() {
				defer w.sends.Done()
				if err := w.send(context.Background(), batch); err != nil {
					w.log.Error("cannot send audit events to the webhook: dropped", "events", len(batch), "err", err)
				}
			}()
		}
		if stopped && len(batch) == 0 {
			w.sends.Wait()
			return
		}
	}
}

// collect waits for a first event, then gathers up to MaxBatchSize events for at most
// MaxBatchWait; after Close it gathers what the buffer still holds without waiting.
func (w *Webhook) collect() ([]*Event, bool) {
	var batch []*Event
	var timeout <-chan time.Time
	for len(batch) < w.cfg.MaxBatchSize {
		select {
		case e := <-w.buffer:
			batch = append(batch, e)
			if timeout == nil {
				timeout = time.After(w.cfg.MaxBatchWait)
			}
			continue
		default:
		}
		select {
		case e := <-w.buffer:
			batch = append(batch, e)
			if timeout == nil {
				timeout = time.After(w.cfg.MaxBatchWait)
			}
		case <-timeout:
			return batch, false
		case <-w.stop:
			return w.drain(batch), true
		}
	}
	return batch, false
}

// drain adds to batch what the buffer holds, up to MaxBatchSize.
func (w *Webhook) drain(batch []*Event) []*Event {
	for len(batch) < w.cfg.MaxBatchSize {
		select {
		case e := <-w.buffer:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

// Close stops accepting events, sends those buffered and waits (at most 30s) for the sends
// in flight. It returns nil; a batch it could not send is logged.
func (w *Webhook) Close() error {
	w.stopOnce.Do(func() { close(w.stop) })
	select {
	case <-w.done:
	case <-time.After(closeTimeout):
		w.log.Error("audit webhook: gave up waiting for the last batches")
	}
	return nil
}

// send POSTs events as one EventList, retrying failures with backoff.
func (w *Webhook) send(ctx context.Context, events []*Event) error {
	list := EventList{TypeMeta: metaEventList, Items: make([]Event, len(events))}
	for i, e := range events {
		list.Items[i] = *e
	}
	body, err := json.Marshal(&list)
	if err != nil {
		return err
	}
	wait := w.cfg.InitialBackoff
	for attempt := 1; ; attempt++ {
		retry, err := w.post(ctx, body)
		if err == nil || !retry || attempt == webhookAttempts {
			return err
		}
		jittered := wait + time.Duration(rand.Float64()*0.2*float64(wait))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(jittered):
		}
		wait = wait * 3 / 2
	}
}

// post sends one request; a non-2xx answer is an error. retry reports whether another
// attempt may succeed, as kube's webhook.DefaultShouldRetry: no answer, 429 or 5xx.
func (w *Webhook) post(ctx context.Context, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		return true, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500,
			fmt.Errorf("the audit webhook answered %d", resp.StatusCode)
	}
	return false, nil
}
