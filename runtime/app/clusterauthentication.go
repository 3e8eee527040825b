package app

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/retry"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/server"
)

// The ConfigMap kube-apiserver publishes for delegating servers (an aggregated API server's
// k8s.io/apiserver reads it with --authentication-kubeconfig), and the post-start hook that
// keeps it, as kube-apiserver's cluster authentication trust controller.
const (
	ClusterAuthenticationNamespace = metav1.NamespaceSystem
	ClusterAuthenticationName      = "extension-apiserver-authentication"
	clusterAuthenticationHook      = "start-cluster-authentication-info-controller"
)

// The keys of the ClusterAuthenticationName ConfigMap, as kube-apiserver writes them.
const (
	ClientCAKey                        = "client-ca-file"
	RequestHeaderClientCAKey           = "requestheader-client-ca-file"
	RequestHeaderUsernameHeadersKey    = "requestheader-username-headers"
	RequestHeaderGroupHeadersKey       = "requestheader-group-headers"
	RequestHeaderExtraHeadersPrefixKey = "requestheader-extra-headers-prefix"
	RequestHeaderAllowedNamesKey       = "requestheader-allowed-names"
)

// clusterAuthenticationData is the content of the ConfigMap for o and sec, as kube-apiserver's
// controller computes it: client-ca-file, the CAs verifying client certificates
// (--client-ca-file's, then the self-signed CA the admin certificate chains to when the
// server made one), when there are any; with --requestheader-client-ca-file, its CAs and the
// other --requestheader-* flags, each a JSON array of strings ("[]" when empty, as kube's
// controller writes them). CAs are PEM, each certificate once. The server has no
// --requestheader-uid-headers flag, so requestheader-uid-headers is not written. Errors: a CA
// file that cannot be read.
func clusterAuthenticationData(o *SecureOptions, sec *security) (map[string]string, error) {
	data := map[string]string{}
	var clientCAs []*x509.Certificate
	for _, file := range []string{o.ClientCAFile, sec.caFile} {
		if file == "" {
			continue
		}
		certs, err := cert.CertsFromFile(file)
		if err != nil {
			return nil, fmt.Errorf("cannot read the client CAs of %s: %w", file, err)
		}
		clientCAs = append(clientCAs, certs...)
	}
	if pem, err := encodeUnique(clientCAs); err != nil {
		return nil, err
	} else if len(pem) > 0 {
		data[ClientCAKey] = pem
	}
	if o.RequestHeaderClientCAFile == "" {
		return data, nil
	}
	certs, err := cert.CertsFromFile(o.RequestHeaderClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("cannot read --requestheader-client-ca-file: %w", err)
	}
	if data[RequestHeaderClientCAKey], err = encodeUnique(certs); err != nil {
		return nil, err
	}
	for key, values := range map[string][]string{
		RequestHeaderUsernameHeadersKey:    o.RequestHeaderUsernameHeaders,
		RequestHeaderGroupHeadersKey:       o.RequestHeaderGroupHeaders,
		RequestHeaderExtraHeadersPrefixKey: o.RequestHeaderExtraHeadersPrefix,
		RequestHeaderAllowedNamesKey:       o.RequestHeaderAllowedNames,
	} {
		if values == nil {
			values = []string{}
		}
		b, err := json.Marshal(values)
		if err != nil {
			return nil, err
		}
		data[key] = string(b)
	}
	return data, nil
}

// encodeUnique returns certs as PEM, in order, each certificate once.
func encodeUnique(certs []*x509.Certificate) (string, error) {
	var unique []*x509.Certificate
	for _, c := range certs {
		dup := false
		for _, u := range unique {
			dup = dup || bytes.Equal(u.Raw, c.Raw)
		}
		if !dup {
			unique = append(unique, c)
		}
	}
	if len(unique) == 0 {
		return "", nil
	}
	pem, err := cert.EncodeCertificates(unique...)
	return string(pem), err
}

// clusterAuthentication keeps kube-system/extension-apiserver-authentication's data equal to
// data, as kube-apiserver's cluster authentication trust controller keeps it for delegating
// servers, with one difference: kube's controller merges what it finds there with its own
// (the union of the CAs and of the header names, so that kube-apiservers with different CAs
// share one ConfigMap during a rotation); this one writes its own data only, so replicas
// must share their authentication flags (and self-signed CA, as shareCA makes them).
type clusterAuthentication struct {
	configMaps configMapStore
	data       map[string]string
	log        *slog.Logger
	// resync is how often the ConfigMap is checked again besides when a watch reports a
	// change (a minute, as kube's controller); retry how long to wait after a failure.
	resync, retry time.Duration
}

// clusterAuthenticationResync is how often the publisher checks the ConfigMap again, as
// kube-apiserver's controller resyncs every minute (and the system namespaces hook).
const clusterAuthenticationResync = time.Minute

// publishClusterAuthentication adds the post-start hook "start-cluster-authentication-info-controller"
// when the server serves HTTPS (not --plain-http) and configmaps: it writes
// kube-system/extension-apiserver-authentication (clusterAuthenticationData) through
// configMaps before returning, retrying every second while that fails (kube-system, which
// the system namespaces hook creates, may not exist yet; /readyz waits), then keeps it until
// the server stops: a change or deletion that a watch of the ConfigMap reports, and a
// check every minute, rewrite it (created again, or updated when its data differs, retrying
// on conflict). configMaps may be nil (core group off). Errors: a CA file that cannot be
// read, a hook name taken.
func publishClusterAuthentication(srv *server.Server, o *SecureOptions, sec *security, configMaps configMapStore, log *slog.Logger) error {
	if o.PlainHTTP || configMaps == nil {
		return nil
	}
	data, err := clusterAuthenticationData(o, sec)
	if err != nil {
		return err
	}
	c := &clusterAuthentication{configMaps: configMaps, data: data, log: log, resync: clusterAuthenticationResync, retry: time.Second}
	return srv.AddPostStartHook(clusterAuthenticationHook, c.start)
}

// start writes the ConfigMap, retrying until it is written or ctx ends (an error then), and
// runs the controller in the background.
func (c *clusterAuthentication) start(ctx context.Context) error {
	for {
		err := c.sync(ctx)
		if err == nil {
			break
		}
		c.log.Info("cannot write the cluster authentication ConfigMap yet; retrying", "configmap", ClusterAuthenticationNamespace+"/"+ClusterAuthenticationName, "err", err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("cannot write %s/%s: %w", ClusterAuthenticationNamespace, ClusterAuthenticationName, err)
		case <-time.After(c.retry):
		}
	}
	go c.run(ctx)
	return nil
}

// run syncs the ConfigMap on every change a watch reports and every resync, until ctx ends;
// a failed sync is tried again after retry, doubled after each failure in a row up to resync.
func (c *clusterAuthentication) run(ctx context.Context) {
	wake := make(chan struct{}, 1)
	go c.watch(ctx, wake)
	tick := time.NewTicker(c.resync)
	defer tick.Stop()
	var retry <-chan time.Time
	backoff := c.retry
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-wake:
		case <-retry:
		}
		retry = nil
		err := c.sync(ctx)
		switch {
		case err == nil:
			backoff = c.retry
		case ctx.Err() == nil:
			c.log.Warn("cannot write the cluster authentication ConfigMap", "configmap", ClusterAuthenticationNamespace+"/"+ClusterAuthenticationName,
				"err", err, "retry", backoff)
			retry = time.After(backoff)
			backoff = min(2*backoff, c.resync)
		}
	}
}

// watch signals wake on every event of a watch of the ConfigMap until ctx ends, watching
// again after retry when a watch fails or ends.
func (c *clusterAuthentication) watch(ctx context.Context, wake chan<- struct{}) {
	ctx = request.WithNamespace(ctx, ClusterAuthenticationNamespace)
	opts := &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", ClusterAuthenticationName)}
	for ctx.Err() == nil {
		if w, err := c.configMaps.Watch(ctx, opts); err != nil {
			if ctx.Err() == nil {
				c.log.Warn("cannot watch the cluster authentication ConfigMap", "err", err)
			}
		} else {
			c.forward(ctx, w, wake)
		}
		select {
		case <-ctx.Done():
		case <-time.After(c.retry):
		}
	}
}

// forward signals wake on each event of w until w or ctx ends.
func (c *clusterAuthentication) forward(ctx context.Context, w watch.Interface, wake chan<- struct{}) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
}

// sync creates the ConfigMap, or updates its data when it differs from c.data, retrying on
// conflicts (and on a concurrent create). One that cannot be updated (422, as when it was
// made immutable) is deleted and created again, as kube's controller replaces one too large
// to update.
func (c *clusterAuthentication) sync(ctx context.Context) error {
	ctx = request.WithNamespace(ctx, ClusterAuthenticationNamespace)
	return retry.OnError(retry.DefaultRetry, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		obj, err := c.configMaps.Get(ctx, ClusterAuthenticationName, &metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = c.configMaps.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: ClusterAuthenticationNamespace, Name: ClusterAuthenticationName},
				Data:       maps.Clone(c.data),
			}, &metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		current, ok := obj.(*corev1.ConfigMap)
		if !ok {
			return fmt.Errorf("the configmaps storage returned a %T", obj)
		}
		if maps.Equal(current.Data, c.data) {
			return nil
		}
		updated := current.DeepCopy()
		updated.Data = maps.Clone(c.data)
		_, _, err = c.configMaps.Update(ctx, ClusterAuthenticationName, replaceWith{updated}, false, &metav1.UpdateOptions{})
		if apierrors.IsInvalid(err) {
			uid, rv := current.UID, current.ResourceVersion
			_, _, err = c.configMaps.Delete(ctx, ClusterAuthenticationName, &metav1.DeleteOptions{
				Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
			if err == nil || apierrors.IsNotFound(err) {
				// Created on the retry.
				return apierrors.NewConflict(corev1.SchemeGroupVersion.WithResource("configmaps").GroupResource(), ClusterAuthenticationName,
					errors.New("replaced: it could not be updated"))
			}
		}
		return err
	})
}

// replaceWith is the rest.UpdatedObjectInfo of an update writing obj, whose resourceVersion
// makes the update fail with a conflict when the stored object changed since it was read.
type replaceWith struct{ obj runtime.Object }

// UpdatedObject implements rest.UpdatedObjectInfo.
func (r replaceWith) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewConflict(corev1.SchemeGroupVersion.WithResource("configmaps").GroupResource(), ClusterAuthenticationName,
			errors.New("deleted while updated"))
	}
	return r.obj.DeepCopyObject(), nil
}
