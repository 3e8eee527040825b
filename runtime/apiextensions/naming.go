package apiextensions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
)

// establish serves a live CRD: it accepts the names no other CRD of the group holds (status.
// acceptedNames, NamesAccepted), serves the accepted names through the Handler (Set, when the
// CRD changed since it was last Set), then records Established=True, as upstream's
// NamingConditionController and establishing controller do between them.
func (c *controller) establish(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	accepted, namesCond, estCond := calculateNames(crd, c.others(crd.Spec.Group, crd.Name))
	served := crd.DeepCopy()
	served.Status.AcceptedNames = accepted
	var serveErr error
	if accepted.Plural != "" && accepted.Kind != "" {
		// A failure leaves the names recorded and Established as it was (or Installing); the
		// error is returned for a retry.
		serveErr = c.serve(served)
		if serveErr == nil && namesCond.Status == apiextensionsv1.ConditionTrue {
			estCond = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
				Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"}
		}
	}
	err := c.updateStatus(ctx, crd, func(o *apiextensionsv1.CustomResourceDefinition) {
		o.Status.AcceptedNames = accepted
		apiextensionsv1.SetCondition(o, namesCond)
		apiextensionsv1.SetCondition(o, estCond)
	})
	return errors.Join(serveErr, err)
}

// serve Sets the Definition of crd (whose status.acceptedNames are the names to serve) unless
// it was last Set from the same uid, generation and names.
func (c *controller) serve(crd *apiextensionsv1.CustomResourceDefinition) error {
	key, err := json.Marshal([]any{crd.UID, crd.Generation, crd.Status.AcceptedNames})
	if err != nil {
		return err
	}
	c.mu.Lock()
	same := c.served[crd.Name] == string(key)
	c.mu.Unlock()
	if same {
		return nil
	}
	def, err := DefinitionFor(crd)
	if err != nil {
		return fmt.Errorf("cannot serve %s: %w", crd.Name, err)
	}
	if err := c.ext.Handler.Set(def); err != nil {
		return fmt.Errorf("cannot serve %s: %w", crd.Name, err)
	}
	c.mu.Lock()
	c.served[crd.Name] = string(key)
	c.mu.Unlock()
	c.ext.log.Info("serving custom resource", "crd", crd.Name)
	return nil
}

// stopServing removes the routes of the CRD name (<plural>.<group>, as validation
// enforces), when served, and forgets it.
func (c *controller) stopServing(name string) {
	plural, group, _ := strings.Cut(name, ".")
	c.ext.terminating.put(groupResource(group, plural), false)
	c.mu.Lock()
	_, ok := c.served[name]
	delete(c.served, name)
	c.mu.Unlock()
	if ok {
		c.ext.Handler.Remove(group, plural)
		c.ext.log.Info("stopped serving custom resource", "crd", name)
	}
}

// calculateNames returns the names of crd to accept given the other CRDs of its group, with
// its NamesAccepted and Established conditions, as upstream's
// NamingConditionController.calculateNamesAndConditions: a requested name another CRD has
// accepted is refused ("%q is already in use") and the previously accepted one kept; the
// Established condition stays as it is, or becomes False/Installing once the names are
// accepted (the caller sets it True when the resource is served).
func calculateNames(crd *apiextensionsv1.CustomResourceDefinition, others []*apiextensionsv1.CustomResourceDefinition) (
	apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition, apiextensionsv1.CustomResourceDefinitionCondition) {
	resources, kinds := sets.New[string](), sets.New[string]()
	for _, o := range others {
		n := o.Status.AcceptedNames
		resources.Insert(n.Plural, n.Singular)
		resources.Insert(n.ShortNames...)
		kinds.Insert(n.Kind, n.ListKind)
	}
	resources.Delete("")
	kinds.Delete("")
	requested, accepted := crd.Spec.Names, crd.Status.AcceptedNames
	names := accepted
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	if err := acceptedOrFresh(requested.Plural, accepted.Plural, resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = requested.Plural
	}
	if err := acceptedOrFresh(requested.Singular, accepted.Singular, resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = requested.Singular
	}
	if err := shortNamesFree(requested.ShortNames, accepted.ShortNames, resources); err != nil {
		conflict("ShortNamesConflict", err)
	} else {
		names.ShortNames = requested.ShortNames
	}
	if err := acceptedOrFresh(requested.Kind, accepted.Kind, kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = requested.Kind
	}
	if err := acceptedOrFresh(requested.ListKind, accepted.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = requested.ListKind
	}
	names.Categories = requested.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	established := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
		Status: apiextensionsv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted"}
	if old := apiextensionsv1.FindCondition(crd, apiextensionsv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextensionsv1.ConditionTrue && cond.Status == apiextensionsv1.ConditionTrue {
		established = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
			Status: apiextensionsv1.ConditionFalse, Reason: "Installing", Message: "the initial names have been accepted"}
	}
	return names, cond, established
}

// acceptedOrFresh accepts requested when it is already accepted or no other CRD uses it.
func acceptedOrFresh(requested, accepted string, used sets.Set[string]) error {
	if requested == accepted || !used.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// shortNamesFree accepts requested short names that are already accepted or unused.
func shortNamesFree(requested, accepted []string, used sets.Set[string]) error {
	for _, s := range requested {
		if !slices.Contains(accepted, s) && used.Has(s) {
			return fmt.Errorf("%q is already in use", s)
		}
	}
	return nil
}
