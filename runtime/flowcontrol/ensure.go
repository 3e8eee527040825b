package flowcontrol

import (
	"context"
	"fmt"
	"strconv"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// ObjectStore is what the Ensurer needs of the FlowSchemas' or PriorityLevelConfigurations'
// storage (a registry.Store is one).
type ObjectStore interface {
	rest.Getter
	rest.Creater
	rest.Updater
}

// EnsureInterval is how often Maintain checks the objects when nothing changed, as
// kube-apiserver's bootstrap configuration controller's periodic pass.
const EnsureInterval = time.Minute

// Ensurer keeps kube's bootstrap configuration in storage, as kube-apiserver's
// priority-and-fairness bootstrap controller (pkg/registry/flowcontrol/ensurer):
//   - a missing mandatory or suggested object is created, annotated
//     apf.kubernetes.io/autoupdate-spec: "true";
//   - a mandatory object's spec is restored when changed (except the exempt level's
//     nominalConcurrencyShares and lendablePercent) and its annotation set to "true";
//   - a suggested object's spec is updated only when its annotation says "true", or, without
//     a valid annotation, when its generation is 1 (never changed since created); the
//     annotation is then written ("false" for an object changed by someone).
type Ensurer struct {
	Schemas, Levels ObjectStore
	// SchemaStatus, when not nil, is the flowschemas/status store: Maintain writes each
	// FlowSchema's Dangling condition through it, as kube's configuration controller.
	SchemaStatus rest.Updater
}

// Ensure makes one pass over the mandatory and suggested objects. Errors: the first failed
// read or write (a conflict included: the next pass retries).
func (e *Ensurer) Ensure(ctx context.Context) error {
	ctx = request.WithNamespace(ctx, "")
	for _, set := range []struct {
		store     ObjectStore
		objs      []runtime.Object
		mandatory bool
	}{
		{e.Levels, objects(mandatoryLevels), true},
		{e.Levels, objects(suggestedLevels), false},
		{e.Schemas, objects(mandatorySchemas), true},
		{e.Schemas, objects(suggestedSchemas), false},
	} {
		for _, want := range set.objs {
			if err := ensureOne(ctx, set.store, want, set.mandatory); err != nil {
				m, _ := meta.Accessor(want)
				return fmt.Errorf("cannot ensure the flow control object %s: %w", m.GetName(), err)
			}
		}
	}
	return nil
}

// objects returns objs as runtime.Objects.
func objects[T runtime.Object](objs []T) []runtime.Object {
	out := make([]runtime.Object, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

// ensureOne creates want or brings the stored object's spec and annotation in line.
func ensureOne(ctx context.Context, s ObjectStore, want runtime.Object, mandatory bool) error {
	wm, _ := meta.Accessor(want)
	cur, err := s.Get(ctx, wm.GetName(), &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		obj := want.DeepCopyObject()
		om, _ := meta.Accessor(obj)
		om.SetAnnotations(map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: "true"})
		_, err = s.Create(ctx, obj, &metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	if _, changed := reconcile(cur.DeepCopyObject(), want, mandatory); !changed {
		return nil
	}
	_, _, err = s.Update(ctx, wm.GetName(), reconcileInfo{want: want, mandatory: mandatory}, false, &metav1.UpdateOptions{})
	return err
}

// reconcileInfo is the update ensureOne makes, applied to the object stored when it runs.
type reconcileInfo struct {
	want      runtime.Object
	mandatory bool
}

// UpdatedObject implements rest.UpdatedObjectInfo.
func (r reconcileInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewConflict(flowcontrolv1.SchemeGroupVersion.WithResource("flowschemas").GroupResource(), "", fmt.Errorf("removed while reconciled"))
	}
	obj, _ := reconcile(old.DeepCopyObject(), r.want, r.mandatory)
	return obj, nil
}

// reconcile changes obj (a copy of the stored object) as kube's ensurer would and reports
// whether it changed anything.
func reconcile(obj, want runtime.Object, mandatory bool) (runtime.Object, bool) {
	om, _ := meta.Accessor(obj)
	annotations := om.GetAnnotations()
	update := mandatory
	value := "true"
	if !mandatory {
		if v, err := strconv.ParseBool(annotations[flowcontrolv1.AutoUpdateAnnotationKey]); err == nil {
			update, value = v, annotations[flowcontrolv1.AutoUpdateAnnotationKey]
		} else {
			update = om.GetGeneration() == 1
			value = strconv.FormatBool(update)
		}
	}
	changed := false
	if annotations[flowcontrolv1.AutoUpdateAnnotationKey] != value {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[flowcontrolv1.AutoUpdateAnnotationKey] = value
		om.SetAnnotations(annotations)
		changed = true
	}
	if !update {
		return obj, changed
	}
	switch o := obj.(type) {
	case *flowcontrolv1.FlowSchema:
		w := want.(*flowcontrolv1.FlowSchema)
		if !apiequality.Semantic.DeepEqual(o.Spec, w.Spec) {
			o.Spec, changed = *w.Spec.DeepCopy(), true
		}
	case *flowcontrolv1.PriorityLevelConfiguration:
		spec := *want.(*flowcontrolv1.PriorityLevelConfiguration).Spec.DeepCopy()
		if o.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt && o.Spec.Exempt != nil && spec.Exempt != nil {
			// The exempt level's shares and lendable percent are the operator's, as kube's.
			spec.Exempt.NominalConcurrencyShares = o.Spec.Exempt.NominalConcurrencyShares
			spec.Exempt.LendablePercent = o.Spec.Exempt.LendablePercent
		}
		if !apiequality.Semantic.DeepEqual(o.Spec, spec) {
			o.Spec, changed = spec, true
		}
	}
	return obj, changed
}

// Maintain runs e's passes until ctx ends: at once (retried every second until one
// succeeds), then whenever a watch event changes the controller's caches (a mandatory
// object deleted or edited is restored within the watch's latency) and every
// EnsureInterval; each pass then writes the FlowSchemas' Dangling conditions
// (e.SchemaStatus). Run must have been called.
func (c *Controller) Maintain(ctx context.Context, e *Ensurer, log func(error)) {
	var seen [2]uint64
	last := time.Time{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		sc, lc := c.schemas.Load(), c.levels.Load()
		gens := [2]uint64{}
		if sc != nil && lc != nil {
			gens = [2]uint64{sc.Generation(), lc.Generation()}
		}
		if last.IsZero() || gens != seen || time.Since(last) >= EnsureInterval {
			err := e.Ensure(ctx)
			if err == nil && e.SchemaStatus != nil {
				err = c.updateDangling(ctx, e.SchemaStatus)
			}
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				log(err)
				// Retried in a second, not at the next tick.
				seen, last = gens, time.Now().Add(time.Second-EnsureInterval)
			} else {
				seen, last = gens, time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
