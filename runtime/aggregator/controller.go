package aggregator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	"github.com/apigen-dev/apigen/runtime/request"
)

// AutoManagedLabel marks the APIServices the server manages itself, as kube-aggregator's
// autoregister controller: "true" for the Local APIServices of the groups served behind the
// aggregator (deleted when the group goes away), "onstart" for those made from
// --proxy-endpoint (created or updated on start, then left alone).
const AutoManagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// The Available condition's reasons, as kube-aggregator's availability controller sets them;
// ProxyDisabled is this runtime's (see Config.ProxyDisabled).
const (
	ReasonLocal                = "Local"
	ReasonPassed               = "Passed"
	ReasonServiceNotFound      = "ServiceNotFound"
	ReasonMissingEndpoints     = "MissingEndpoints"
	ReasonFailedDiscoveryCheck = "FailedDiscoveryCheck"
	ReasonProxyDisabled        = "ProxyDisabled"
)

// discoveryCheckTimeout bounds one availability check, as kube-aggregator's.
const discoveryCheckTimeout = 5 * time.Second

// Run runs the aggregator's controllers until ctx ends, as kube-aggregator's: one lists and
// watches the APIServices and swaps the proxy snapshot on every change; one, on every change
// of a spec and every CheckInterval, registers the Local APIServices of Config.LocalGroups
// (autoregister) and writes each APIService's Available condition through the status
// subresource when it changed (availability controller).
func (a *Aggregator) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.runInformer(ctx) }()
	go func() { defer wg.Done(); a.runChecks(ctx) }()
	wg.Wait()
}

// runInformer keeps the snapshot equal to the stored APIServices: a list, then a watch from
// its resourceVersion, again from a fresh list whenever the watch ends.
func (a *Aggregator) runInformer(ctx context.Context) {
	for ctx.Err() == nil {
		if err := a.listAndWatch(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("cannot watch APIServices", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// listAndWatch lists the APIServices and follows their changes until the watch ends.
func (a *Aggregator) listAndWatch(ctx context.Context) error {
	obj, err := a.cfg.APIServices.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	list := obj.(*apiregv1.APIServiceList)
	services := make(map[string]*apiregv1.APIService, len(list.Items))
	for i := range list.Items {
		services[list.Items[i].Name] = &list.Items[i]
	}
	a.setAPIServices(services)
	a.syncedOnce.Do(func() { close(a.synced) })
	a.kick()
	w, err := a.cfg.APIServices.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return nil
		}
		s, isService := ev.Object.(*apiregv1.APIService)
		switch {
		case ev.Type == watch.Error:
			return fmt.Errorf("watch error: %v", apierrors.FromObject(ev.Object))
		case !isService:
			continue
		case ev.Type == watch.Added || ev.Type == watch.Modified:
			prev := services[s.Name]
			services[s.Name] = s
			a.setAPIServices(services)
			if prev == nil || !specEqual(prev.Spec, s.Spec) {
				a.kick()
			}
		case ev.Type == watch.Deleted:
			delete(services, s.Name)
			a.setAPIServices(services)
			a.gauge.DeleteLabelValues(s.Name)
		}
	}
}

// kick asks the checks to run now.
func (a *Aggregator) kick() {
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

// runChecks runs checkAll on every kick and every CheckInterval until ctx ends.
func (a *Aggregator) runChecks(ctx context.Context) {
	t := time.NewTicker(a.cfg.CheckInterval)
	defer t.Stop()
	client := &http.Client{Timeout: discoveryCheckTimeout}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-a.changed:
		}
		a.autoregister(ctx)
		a.checkAll(ctx, client)
	}
}

// checkAll computes every APIService's Available condition, in parallel, and writes those
// that changed.
func (a *Aggregator) checkAll(ctx context.Context, client *http.Client) {
	var wg sync.WaitGroup
	for _, e := range a.state.Load().byGV {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := a.condition(ctx, client, e)
			if ctx.Err() != nil {
				return
			}
			unavailable := 1.0
			if c.Status == apiregv1.ConditionTrue {
				unavailable = 0
			}
			a.gauge.WithLabelValues(e.obj.Name).Set(unavailable)
			if err := a.writeCondition(ctx, e.obj, c); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) {
				a.log.Warn("cannot update the status of an APIService", "apiservice", e.obj.Name, "err", err)
			}
		}()
	}
	wg.Wait()
	a.publishOpenAPI()
}

// condition computes e's Available condition (without lastTransitionTime), as
// kube-aggregator's availability controller: True "Local" for a Local APIService; for one
// with a service, False "ServiceNotFound" or "MissingEndpoints" when the service does not
// resolve, False "FailedDiscoveryCheck" when GET /apis/<group>/<version>, as
// system:kube-aggregator in system:masters, fails or answers other than 2xx within 5s, and
// True "Passed" otherwise.
func (a *Aggregator) condition(ctx context.Context, client *http.Client, e *entry) apiregv1.APIServiceCondition {
	c := func(status apiregv1.ConditionStatus, reason, message string) apiregv1.APIServiceCondition {
		return apiregv1.APIServiceCondition{Type: apiregv1.Available, Status: status, Reason: reason, Message: message}
	}
	if e.local() {
		return c(apiregv1.ConditionTrue, ReasonLocal, "Local APIServices are always available")
	}
	if a.cfg.ProxyDisabled != "" {
		return c(apiregv1.ConditionFalse, ReasonProxyDisabled, a.cfg.ProxyDisabled)
	}
	svc := e.obj.Spec.Service
	base, err := a.cfg.Resolver.ResolveEndpoint(svc.Namespace, svc.Name, port(svc))
	if errors.Is(err, ErrServiceNotFound) {
		return c(apiregv1.ConditionFalse, ReasonServiceNotFound, fmt.Sprintf("service/%s in %q is not present", svc.Name, svc.Namespace))
	}
	if err != nil {
		return c(apiregv1.ConditionFalse, ReasonMissingEndpoints, err.Error())
	}
	if e.transport == nil {
		return c(apiregv1.ConditionFalse, ReasonFailedDiscoveryCheck, fmt.Sprintf("cannot reach %s: %v", base, e.transportErr))
	}
	u := base.JoinPath("apis", e.obj.Spec.Group, e.obj.Spec.Version)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return c(apiregv1.ConditionFalse, ReasonFailedDiscoveryCheck, err.Error())
	}
	setIdentity(req.Header, &request.User{Name: "system:kube-aggregator", Groups: []string{request.SystemPrivilegedGroup}})
	cl := *client
	cl.Transport = e.transport
	gv := gvOf(e.obj.Spec.Group, e.obj.Spec.Version)
	resp, err := cl.Do(req)
	if err != nil {
		a.discovered.record(gv, nil)
		return c(apiregv1.ConditionFalse, ReasonFailedDiscoveryCheck, fmt.Sprintf("failing or missing response from %s: %v", u, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.discovered.record(gv, nil)
		return c(apiregv1.ConditionFalse, ReasonFailedDiscoveryCheck,
			fmt.Sprintf("failing or missing response from %s: bad status from %s: %d", base, u, resp.StatusCode))
	}
	list, err := readResourceList(resp)
	if err != nil {
		a.log.Warn("cannot read a backend's discovery document", "apiservice", e.obj.Name, "err", err)
	}
	a.discovered.record(gv, list)
	a.fetchOpenAPI(ctx, &cl, e, base)
	return c(apiregv1.ConditionTrue, ReasonPassed, "all checks passed")
}

// writeCondition sets c on the stored APIService through the status subresource unless its
// status, reason and message are already c's; lastTransitionTime changes only with the
// status, as kube-aggregator's SetAPIServiceCondition.
func (a *Aggregator) writeCondition(ctx context.Context, s *apiregv1.APIService, c apiregv1.APIServiceCondition) error {
	if have := s.Status.AvailableCondition(); have != nil && have.Status == c.Status && have.Reason == c.Reason && have.Message == c.Message {
		return nil
	}
	// Whether the status changes is decided on the stored object, not on s (which two
	// syncs in a row may both see before the first write), so each change is logged once.
	var changed bool
	_, _, err := a.cfg.Status.Update(ctx, s.Name, updateFunc(func(old runtime.Object) (runtime.Object, error) {
		cur := old.(*apiregv1.APIService)
		if cur.UID != s.UID {
			return nil, apierrors.NewConflict(apiregv1.Resource("apiservices"), s.Name, errors.New("the APIService was replaced"))
		}
		have := cur.Status.AvailableCondition()
		changed = have == nil || have.Status != c.Status
		setCondition(&cur.Status, c)
		return cur, nil
	}), false, &metav1.UpdateOptions{})
	if err == nil && changed {
		// A Local APIService is available from the start, every start: not news.
		level := slog.LevelInfo
		if c.Reason == ReasonLocal {
			level = slog.LevelDebug
		}
		a.log.Log(ctx, level, "APIService availability changed", "apiservice", s.Name, "available", c.Status, "reason", c.Reason, "message", c.Message)
	}
	return err
}

// setCondition puts c into status, keeping lastTransitionTime when the status is unchanged.
func setCondition(status *apiregv1.APIServiceStatus, c apiregv1.APIServiceCondition) {
	c.LastTransitionTime = metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			if status.Conditions[i].Status == c.Status {
				c.LastTransitionTime = status.Conditions[i].LastTransitionTime
			}
			status.Conditions[i] = c
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}

// updateFunc is a rest.UpdatedObjectInfo computing the new object from the stored one.
type updateFunc func(old runtime.Object) (runtime.Object, error)

// UpdatedObject calls f; an absent object is a NotFound error.
func (f updateFunc) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(apiregv1.Resource("apiservices"), "")
	}
	return f(old)
}

// Ensure creates s, or updates the stored APIService of its name to s's spec and labels, as
// the server does on start for every --proxy-endpoint (kube's autoregister "onstart"). s is
// defaulted first. Errors: the storage's (e.g. 422 Invalid for an invalid spec).
func (a *Aggregator) Ensure(ctx context.Context, s *apiregv1.APIService) error {
	s = s.DeepCopy()
	apiregv1.SetObjectDefaults_APIService(s)
	_, err := a.cfg.APIServices.Create(ctx, s, &metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	_, _, err = a.cfg.APIServices.Update(ctx, s.Name, updateFunc(func(old runtime.Object) (runtime.Object, error) {
		cur := old.(*apiregv1.APIService)
		if equality.Semantic.DeepEqual(cur.Spec, s.Spec) && equality.Semantic.DeepEqual(cur.Labels, s.Labels) {
			return cur, nil
		}
		cur.Spec, cur.Labels = s.Spec, s.Labels
		return cur, nil
	}), false, &metav1.UpdateOptions{})
	return err
}

// autoregister makes a Local APIService, labelled AutoManagedLabel=true, for every version
// of Config.LocalGroups that has no APIService, and deletes those so labelled whose group
// version is no longer served, as kube-aggregator's autoregister controller. Each group's
// groupPriorityMinimum is 1000 and its versions' versionPriority 100, 99, ... in the
// group's order, as kube registers CustomResourceDefinitions' group versions.
func (a *Aggregator) autoregister(ctx context.Context) {
	if a.cfg.LocalGroups == nil {
		return
	}
	snap := a.state.Load()
	want := map[string]bool{}
	for _, g := range a.cfg.LocalGroups() {
		for i, v := range g.Versions {
			name := v.Version + "." + g.Name
			want[name] = true
			if snap.byGV[gvOf(g.Name, v.Version)] != nil {
				continue
			}
			s := &apiregv1.APIService{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{AutoManagedLabel: "true"}},
				Spec: apiregv1.APIServiceSpec{Group: g.Name, Version: v.Version, GroupPriorityMinimum: 1000,
					VersionPriority: int32(max(100-i, 1))},
			}
			if _, err := a.cfg.APIServices.Create(ctx, s, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
				a.log.Warn("cannot register a local APIService", "apiservice", name, "err", err)
			}
		}
	}
	for _, e := range snap.byGV {
		if e.obj.Labels[AutoManagedLabel] == "true" && e.local() && !want[e.obj.Name] {
			if _, _, err := a.cfg.APIServices.Delete(ctx, e.obj.Name, &metav1.DeleteOptions{
				Preconditions: &metav1.Preconditions{UID: &e.obj.UID}}); err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
				a.log.Warn("cannot delete a local APIService", "apiservice", e.obj.Name, "err", err)
			}
		}
	}
}
