package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// SystemNamespaces are the namespaces every server keeps, as kube-apiserver's system
// namespaces controller: default, kube-system and kube-public.
var SystemNamespaces = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic}

// SystemNamespacesInterval is how often SystemNamespacesHook checks again that the system
// namespaces exist, as kube-apiserver's system namespaces controller resyncs every minute.
const SystemNamespacesInterval = time.Minute

// EnsureNamespaces creates every namespace of names that does not exist yet through namespaces
// (REST); one that exists, whatever its phase, is left alone. It returns the errors of the
// creates that failed otherwise, joined.
func EnsureNamespaces(ctx context.Context, namespaces rest.Creater, names ...string) error {
	var errs []error
	for _, name := range names {
		_, err := namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, &metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("cannot create namespace %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// SystemNamespacesHook returns the "start-system-namespaces-controller" post-start hook: it
// creates SystemNamespaces before returning (retrying every second while creation fails, so
// /readyz waits for them; it fails only when ctx ends first), then checks again every
// SystemNamespacesInterval until ctx ends, recreating any that was deleted.
func SystemNamespacesHook(namespaces rest.Creater, log *slog.Logger) func(ctx context.Context) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context) error {
		for {
			err := EnsureNamespaces(ctx, namespaces, SystemNamespaces...)
			if err == nil {
				break
			}
			log.Warn("cannot create the system namespaces; retrying", "err", err)
			select {
			case <-ctx.Done():
				return fmt.Errorf("cannot create the system namespaces: %w", err)
			case <-time.After(time.Second):
			}
		}
		go func() {
			tick := time.NewTicker(SystemNamespacesInterval)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					if err := EnsureNamespaces(ctx, namespaces, SystemNamespaces...); err != nil && ctx.Err() == nil {
						log.Warn("cannot create the system namespaces", "err", err)
					}
				}
			}
		}()
		return nil
	}
}
