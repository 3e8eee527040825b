package app

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/apigen-dev/apigen/runtime/audit"
)

// addAuditWebhookFlags registers kube-apiserver's --audit-webhook-* flags.
func (o *SecureOptions) addAuditWebhookFlags(fs *pflag.FlagSet) {
	w := &o.AuditWebhook
	fs.StringVar(&w.ConfigFile, "audit-webhook-config-file", w.ConfigFile, "kubeconfig-format file naming a service audit events (audit.k8s.io/v1 EventLists) are POSTed to; needs --audit-policy-file")
	fs.StringVar(&w.Mode, "audit-webhook-mode", w.Mode, "batch (buffer, send in the background, drop when full), blocking (send before the request goes on) or blocking-strict (and fail the request when that fails)")
	fs.IntVar(&w.BufferSize, "audit-webhook-batch-buffer-size", w.BufferSize, "events batch mode buffers before dropping")
	fs.IntVar(&w.MaxBatchSize, "audit-webhook-batch-max-size", w.MaxBatchSize, "most events in one request to the webhook")
	fs.DurationVar(&w.MaxBatchWait, "audit-webhook-batch-max-wait", w.MaxBatchWait, "how long a batch that is not full waits for more events")
	fs.BoolVar(&w.ThrottleEnable, "audit-webhook-batch-throttle-enable", w.ThrottleEnable, "limit the batches sent per second")
	fs.Float32Var(&w.ThrottleQPS, "audit-webhook-batch-throttle-qps", w.ThrottleQPS, "batches sent per second at most, with --audit-webhook-batch-throttle-enable")
	fs.IntVar(&w.ThrottleBurst, "audit-webhook-batch-throttle-burst", w.ThrottleBurst, "batches sent at once at most, with --audit-webhook-batch-throttle-enable")
	fs.DurationVar(&w.InitialBackoff, "audit-webhook-initial-backoff", w.InitialBackoff, "wait before retrying a failed send (growing 1.5 times per retry, 5 attempts)")
	fs.StringVar(&o.AuditWebhookVersion, "audit-webhook-version", o.AuditWebhookVersion, "API version of the events sent: audit.k8s.io/v1")
}

// validateAuditWebhook reports the --audit-webhook-* flags' errors.
func (o *SecureOptions) validateAuditWebhook() []string {
	var errs []string
	switch o.AuditWebhook.Mode {
	case audit.ModeBatch, audit.ModeBlocking, audit.ModeBlockingStrict:
	default:
		errs = append(errs, fmt.Sprintf("--audit-webhook-mode %q: write batch, blocking or blocking-strict", o.AuditWebhook.Mode))
	}
	if o.AuditWebhookVersion != "audit.k8s.io/v1" {
		errs = append(errs, fmt.Sprintf("--audit-webhook-version %q: only audit.k8s.io/v1 is served", o.AuditWebhookVersion))
	}
	if o.AuditWebhook.BufferSize <= 0 || o.AuditWebhook.MaxBatchSize <= 0 || o.AuditWebhook.ThrottleBurst <= 0 {
		errs = append(errs, "--audit-webhook-batch-buffer-size, --audit-webhook-batch-max-size and --audit-webhook-batch-throttle-burst must be positive")
	}
	if o.AuditWebhook.MaxBatchWait <= 0 || o.AuditWebhook.InitialBackoff <= 0 || o.AuditWebhook.ThrottleQPS <= 0 {
		errs = append(errs, "--audit-webhook-batch-max-wait, --audit-webhook-initial-backoff and --audit-webhook-batch-throttle-qps must be positive")
	}
	return errs
}
