package garbagecollector

import (
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// eventType is what an informer saw happen to an object.
type eventType int

const (
	addEvent eventType = iota
	updateEvent
	deleteEvent
)

// event is one change of the graph's input, as kube's GraphBuilder event: an informer's (obj
// is an *objectMetadata; apiVersion and kind are its resource's preferred ones) or, virtual,
// the collector's own finding that an object does not exist.
type event struct {
	virtual    bool
	eventType  eventType
	obj        any
	oldObj     any
	apiVersion string
	kind       string
}

// identityFromEvent is the coordinates of the event's object.
func identityFromEvent(ev *event, m metav1.Object) objectReference {
	return objectReference{APIVersion: ev.apiVersion, Kind: ev.kind, Name: m.GetName(), UID: m.GetUID(), Namespace: m.GetNamespace()}
}

// runGraphChanges applies queued events to the graph until the queue shuts down; it is the
// graph's only writer, as kube's GraphBuilder.runProcessGraphChanges.
func (c *collector) runGraphChanges() {
	for c.processGraphChanges() {
	}
}

// processGraphChanges applies one event, as kube's GraphBuilder.processGraphChanges: it adds,
// updates and removes nodes, replaces virtual nodes by observed ones, and queues the objects
// that may now be garbage (attemptToDelete) or whose dependents are to be orphaned
// (attemptToOrphan).
func (c *collector) processGraphChanges() bool {
	ev, quit := c.graphChanges.Get()
	if quit {
		return false
	}
	defer c.graphChanges.Done(ev)
	m, err := meta.Accessor(ev.obj)
	if err != nil {
		c.log.Error("garbage collector: cannot access an object's metadata", "err", err)
		return true
	}
	existing, found := c.uidToNode.Read(m.GetUID())
	if found && !ev.virtual && !existing.isObserved() {
		existing = c.observe(existing, identityFromEvent(ev, m))
	}
	switch {
	case (ev.eventType == addEvent || ev.eventType == updateEvent) && !found:
		n := &node{identity: identityFromEvent(ev, m), owners: m.GetOwnerReferences(),
			beingDeleted: beingDeleted(m), deletingDependents: beingDeleted(m) && hasFinalizer(m, metav1.FinalizerDeleteDependents)}
		c.uidToNode.Write(n)
		c.addDependentToOwners(n, n.owners)
		c.processTransitions(ev.oldObj, m, n)
	case ev.eventType == addEvent || ev.eventType == updateEvent:
		added, removed, changed := referencesDiffs(existing.getOwners(), m.GetOwnerReferences())
		if len(added) != 0 || len(removed) != 0 || len(changed) != 0 {
			c.addUnblockedOwnersToDeleteQueue(removed, changed)
			existing.setOwners(m.GetOwnerReferences())
			c.addDependentToOwners(existing, added)
			c.removeDependentFromOwners(existing, removed)
		}
		if beingDeleted(m) {
			existing.markBeingDeleted()
		}
		c.processTransitions(ev.oldObj, m, existing)
	case ev.eventType == deleteEvent && found:
		c.processDelete(ev, m, existing)
	}
	return true
}

// observe replaces the virtual node existing by the observed object's node: dependents that
// named it with other coordinates are checked again (and reported when they are in another
// namespace than a namespaced owner), as kube's "bad child -> good parent" handling.
func (c *collector) observe(existing *node, observed objectReference) *node {
	if observed != existing.identity {
		_, invalid := partitionDependents(existing.getDependents(), observed)
		for _, dep := range invalid {
			if observed.Namespace != "" && dep.identity.Namespace != observed.Namespace {
				c.reportInvalidNamespaceOwnerRef(dep, observed.UID)
			}
			c.attemptToDelete.Add(dep)
		}
		existing = existing.clone()
		existing.identity = observed
		c.uidToNode.Write(existing)
	}
	existing.markObserved()
	return existing
}

// processDelete removes a deleted object's node and queues its dependents (their owner is
// gone) and its owners that wait for their dependents' deletion, as kube's handling of delete
// events; a virtual delete whose coordinates disagree with what dependents name removes
// nothing but queues the dependents that agree.
func (c *collector) processDelete(ev *event, m metav1.Object, existing *node) {
	if ev.virtual && !c.removeOnVirtualDelete(existing, identityFromEvent(ev, m)) {
		return
	}
	c.uidToNode.Delete(existing.identity.UID)
	c.removeDependentFromOwners(existing, existing.getOwners())
	deps := existing.getDependents()
	if len(deps) > 0 {
		c.absentOwnerCache.Add(identityFromEvent(ev, m))
	}
	for _, dep := range deps {
		c.attemptToDelete.Add(dep)
	}
	for _, owner := range existing.getOwners() {
		if ownerNode, ok := c.uidToNode.Read(owner.UID); ok && ownerNode.isDeletingDependents() {
			c.attemptToDelete.Add(ownerNode) // it may have been waiting for this dependent only
		}
	}
}

// removeOnVirtualDelete decides, for the collector's finding that deleted (coordinates) does
// not exist, whether existing's node goes, as kube's processGraphChanges: not when dependents
// name the uid with other coordinates (a virtual node then takes the next of those identities)
// or when an observed node has other coordinates; dependents naming the absent coordinates are
// queued either way.
func (c *collector) removeOnVirtualDelete(existing *node, deleted objectReference) bool {
	if !existing.isObserved() {
		matching, nonmatching := partitionDependents(existing.getDependents(), deleted)
		if len(nonmatching) == 0 {
			return true
		}
		c.queueAbsent(deleted, matching)
		if existing.identity == deleted {
			if alt := alternateOwnerIdentity(nonmatching, deleted); alt != nil {
				replacement := existing.clone()
				replacement.identity = *alt
				c.uidToNode.Write(replacement)
				c.attemptToDelete.AddRateLimited(replacement)
			}
		}
		return false
	}
	if existing.identity != deleted {
		matching, _ := partitionDependents(existing.getDependents(), deleted)
		c.queueAbsent(deleted, matching)
		return false
	}
	return true
}

// queueAbsent records that absent does not exist and queues deps, which name it.
func (c *collector) queueAbsent(absent objectReference, deps []*node) {
	if len(deps) == 0 {
		return
	}
	c.absentOwnerCache.Add(absent)
	for _, dep := range deps {
		c.attemptToDelete.Add(dep)
	}
}

// addDependentToOwners adds n to its owners' dependents, creating a virtual node (queued, so
// that a live lookup confirms or refutes it) for an owner not in the graph, as kube's
// addDependentToOwners. A dependent whose reference disagrees with an observed owner's
// coordinates, or names a namespaced owner in another namespace (an OwnerRefInvalidNamespace
// event), or a virtual cluster-scoped owner from another namespace, is queued to be checked.
func (c *collector) addDependentToOwners(n *node, owners []metav1.OwnerReference) {
	suspect := false
	for _, owner := range owners {
		ownerNode, ok := c.uidToNode.Read(owner.UID)
		if !ok {
			ownerNode = &node{identity: ownerCoordinates(owner, n.identity.Namespace), virtual: true}
			c.uidToNode.Write(ownerNode)
		}
		ownerNode.addDependent(n)
		if !ok {
			c.attemptToDelete.Add(ownerNode)
			continue
		}
		if suspect {
			continue
		}
		namespacedOwner := ownerNode.identity.Namespace != ""
		switch {
		case namespacedOwner && ownerNode.identity.Namespace != n.identity.Namespace:
			if ownerNode.isObserved() {
				c.reportInvalidNamespaceOwnerRef(n, owner.UID)
			}
			suspect = true
		case !matchesCoordinates(owner, ownerNode.identity):
			suspect = true
		case !namespacedOwner && ownerNode.identity.Namespace != n.identity.Namespace && !ownerNode.isObserved():
			suspect = true // may be a missing namespaced owner wrongly named by a cluster-scoped dependent
		}
	}
	if suspect {
		c.attemptToDelete.Add(n)
	}
}

// removeDependentFromOwners removes n from the dependents of owners.
func (c *collector) removeDependentFromOwners(n *node, owners []metav1.OwnerReference) {
	for _, owner := range owners {
		if ownerNode, ok := c.uidToNode.Read(owner.UID); ok {
			ownerNode.deleteDependent(n)
		}
	}
}

// ownerRefPair is an ownerReference whose fields (other than uid) changed.
type ownerRefPair struct {
	oldRef, newRef metav1.OwnerReference
}

// referencesDiffs compares two ownerReferences lists by uid, as kube's referencesDiffs.
func referencesDiffs(old, cur []metav1.OwnerReference) (added, removed []metav1.OwnerReference, changed []ownerRefPair) {
	oldByUID := make(map[types.UID]metav1.OwnerReference, len(old))
	for _, ref := range old {
		oldByUID[ref.UID] = ref
	}
	for _, ref := range cur {
		if o, ok := oldByUID[ref.UID]; ok {
			if !reflect.DeepEqual(o, ref) {
				changed = append(changed, ownerRefPair{oldRef: o, newRef: ref})
			}
			delete(oldByUID, ref.UID)
			continue
		}
		added = append(added, ref)
	}
	for _, ref := range old {
		if _, ok := oldByUID[ref.UID]; ok {
			removed = append(removed, ref)
		}
	}
	return added, removed, changed
}

// addUnblockedOwnersToDeleteQueue queues the owners a dependent stopped blocking (its
// reference went, or blockOwnerDeletion turned false): a foreground deletion may finish.
func (c *collector) addUnblockedOwnersToDeleteQueue(removed []metav1.OwnerReference, changed []ownerRefPair) {
	blocks := func(ref metav1.OwnerReference) bool { return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion }
	for _, ref := range removed {
		if n, ok := c.uidToNode.Read(ref.UID); ok && blocks(ref) {
			c.attemptToDelete.Add(n)
		}
	}
	for _, pair := range changed {
		if n, ok := c.uidToNode.Read(pair.newRef.UID); ok && blocks(pair.oldRef) && !blocks(pair.newRef) {
			c.attemptToDelete.Add(n)
		}
	}
}

// processTransitions queues an object whose deletion has just begun with the orphan
// finalizer (attemptToOrphan) or the foregroundDeletion finalizer (its dependents and itself,
// attemptToDelete), as kube's processTransitions.
func (c *collector) processTransitions(oldObj any, m metav1.Object, n *node) {
	if startsWith(oldObj, m, metav1.FinalizerOrphanDependents) {
		c.attemptToOrphan.Add(n)
		return
	}
	if startsWith(oldObj, m, metav1.FinalizerDeleteDependents) {
		n.markDeletingDependents()
		for _, dep := range n.getDependents() {
			c.attemptToDelete.Add(dep)
		}
		c.attemptToDelete.Add(n)
	}
}

// startsWith reports whether m is being deleted with finalizer and oldObj (nil for a new
// object) was not, as kube's deletionStartsWithFinalizer.
func startsWith(oldObj any, m metav1.Object, finalizer string) bool {
	if !beingDeleted(m) || !hasFinalizer(m, finalizer) {
		return false
	}
	if oldObj == nil {
		return true
	}
	old, err := meta.Accessor(oldObj)
	if err != nil {
		return false
	}
	return !beingDeleted(old) || !hasFinalizer(old, finalizer)
}

func beingDeleted(m metav1.Object) bool { return m.GetDeletionTimestamp() != nil }

func hasFinalizer(m metav1.Object, finalizer string) bool {
	return slices.Contains(m.GetFinalizers(), finalizer)
}

// partitionDependents splits dependents into those whose ownerReference to owner's uid
// matches owner's coordinates and those with one that does not (a dependent in another
// namespace than a namespaced owner never matches), as kube's partitionDependents.
func partitionDependents(dependents []*node, owner objectReference) (matching, nonmatching []*node) {
	for _, dep := range dependents {
		foundMatch, foundMismatch := false, false
		if owner.Namespace != "" && owner.Namespace != dep.identity.Namespace {
			foundMismatch = true
		} else {
			for _, ref := range dep.getOwners() {
				if ref.UID == owner.UID {
					if matchesCoordinates(ref, owner) {
						foundMatch = true
					} else {
						foundMismatch = true
					}
				}
			}
		}
		if foundMatch {
			matching = append(matching, dep)
		}
		if foundMismatch {
			nonmatching = append(nonmatching, dep)
		}
	}
	return matching, nonmatching
}

// referenceLessThan orders references by kind, apiVersion, namespace, name and uid.
func referenceLessThan(a, b objectReference) bool {
	switch {
	case a.Kind != b.Kind:
		return a.Kind < b.Kind
	case a.APIVersion != b.APIVersion:
		return a.APIVersion < b.APIVersion
	case a.Namespace != b.Namespace:
		return a.Namespace < b.Namespace
	case a.Name != b.Name:
		return a.Name < b.Name
	}
	return a.UID < b.UID
}

// alternateOwnerIdentity returns another identity deps give absent's uid: the first (in
// referenceLessThan order) after absent, else the first; nil when there is none, as kube's
// getAlternateOwnerIdentity.
func alternateOwnerIdentity(deps []*node, absent objectReference) *objectReference {
	clusterScoped := absent.Namespace == ""
	seen := map[objectReference]bool{absent: true}
	var first, firstFollowing *objectReference
	for _, dep := range deps {
		for _, ref := range dep.getOwners() {
			if ref.UID != absent.UID {
				continue
			}
			if matchesCoordinates(ref, absent) && (clusterScoped || absent.Namespace == dep.identity.Namespace) {
				continue
			}
			alt := ownerCoordinates(ref, dep.identity.Namespace)
			if clusterScoped && alt.APIVersion == absent.APIVersion && alt.Kind == absent.Kind {
				alt.Namespace = "" // that kind is known to be cluster-scoped
			}
			if seen[alt] {
				continue
			}
			seen[alt] = true
			if first == nil || referenceLessThan(alt, *first) {
				a := alt
				first = &a
			}
			if referenceLessThan(absent, alt) && (firstFollowing == nil || referenceLessThan(alt, *firstFollowing)) {
				a := alt
				firstFollowing = &a
			}
		}
	}
	if firstFollowing != nil {
		return firstFollowing
	}
	return first
}
