package garbagecollector

import (
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// objectReference is an object's coordinates: what an ownerReference names (apiVersion, kind,
// name, uid) and the namespace, as kube's garbage collector's objectReference. It is
// comparable, so identities compare with ==.
type objectReference struct {
	APIVersion string
	Kind       string
	Name       string
	UID        types.UID
	Namespace  string
}

// String prints the reference for logs and events, as kube's objectReference.String.
func (r objectReference) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

// ownerCoordinates is the reference an ownerReference makes from namespace (the dependent's).
func ownerCoordinates(ref metav1.OwnerReference, namespace string) objectReference {
	return objectReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID, Namespace: namespace}
}

// matchesCoordinates reports whether ref names id's apiVersion, kind, name and uid.
func matchesCoordinates(ref metav1.OwnerReference, id objectReference) bool {
	return ref.UID == id.UID && ref.Name == id.Name && ref.Kind == id.Kind && ref.APIVersion == id.APIVersion
}

// node is one object of the dependency graph, as kube's garbage collector's node: an object
// the collector observed through a watch, or a "virtual" node for an owner that dependents
// name but that has not been observed (it may not exist). The graph builder is its only
// writer; workers read it under mu.
type node struct {
	identity objectReference

	mu sync.RWMutex
	// dependents are the nodes whose ownerReferences name this node's uid (nil until the
	// first: most objects own nothing).
	dependents map[*node]struct{}
	// owners are the object's ownerReferences as last observed.
	owners []metav1.OwnerReference
	// beingDeleted: the object has a deletionTimestamp; deletingDependents: and the
	// foregroundDeletion finalizer (a foreground deletion waits for its dependents).
	beingDeleted       bool
	deletingDependents bool
	// virtual: not observed through a watch yet.
	virtual bool
}

// clone copies n (under a new identity, set by the caller) with the same dependents and
// owners, for replacing a virtual node whose coordinates turned out to be others.
func (n *node) clone() *node {
	n.mu.RLock()
	defer n.mu.RUnlock()
	c := &node{identity: n.identity, dependents: make(map[*node]struct{}, len(n.dependents)),
		owners: n.owners, beingDeleted: n.beingDeleted, deletingDependents: n.deletingDependents, virtual: n.virtual}
	for dep := range n.dependents {
		c.dependents[dep] = struct{}{}
	}
	return c
}

func (n *node) addDependent(dep *node) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.dependents == nil {
		n.dependents = map[*node]struct{}{}
	}
	n.dependents[dep] = struct{}{}
}

func (n *node) deleteDependent(dep *node) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.dependents, dep)
}

// getDependents returns a snapshot of n's dependents.
func (n *node) getDependents() []*node {
	n.mu.RLock()
	defer n.mu.RUnlock()
	out := make([]*node, 0, len(n.dependents))
	for dep := range n.dependents {
		out = append(out, dep)
	}
	return out
}

func (n *node) dependentsLength() int {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return len(n.dependents)
}

func (n *node) getOwners() []metav1.OwnerReference {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.owners
}

func (n *node) setOwners(owners []metav1.OwnerReference) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.owners = owners
}

func (n *node) isObserved() bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return !n.virtual
}

func (n *node) markObserved() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.virtual = false
}

func (n *node) isBeingDeleted() bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.beingDeleted
}

// markBeingDeleted records a deletionTimestamp: being deleted is a one-way trip.
func (n *node) markBeingDeleted() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.beingDeleted = true
}

func (n *node) isDeletingDependents() bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.deletingDependents
}

func (n *node) markDeletingDependents() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.deletingDependents = true
}

// blockingDependents are the dependents whose ownerReference to n has
// blockOwnerDeletion=true: a foreground deletion of n waits for them.
func (n *node) blockingDependents() []*node {
	var out []*node
	for _, dep := range n.getDependents() {
		for _, owner := range dep.getOwners() {
			if owner.UID == n.identity.UID && owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
				out = append(out, dep)
				break
			}
		}
	}
	return out
}

// uidToNode is the graph's index, as kube's concurrentUIDToNode.
type uidToNode struct {
	mu    sync.RWMutex
	nodes map[types.UID]*node
}

func newUIDToNode() *uidToNode { return &uidToNode{nodes: map[types.UID]*node{}} }

func (g *uidToNode) Write(n *node) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nodes[n.identity.UID] = n
}

func (g *uidToNode) Read(uid types.UID) (*node, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.nodes[uid]
	return n, ok
}

func (g *uidToNode) Delete(uid types.UID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.nodes, uid)
}

func (g *uidToNode) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.nodes)
}
