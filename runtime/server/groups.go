package server

import (
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// APIGroups returns the groups the server itself serves or proxies (not its delegates'), in
// the order they were added.
func (s *Server) APIGroups() []metav1.APIGroup { return s.rootAPIs.Groups() }

// groupLister is a link of the chain that lists its groups in /apis.
type groupLister interface {
	APIGroups() []metav1.APIGroup
}

// chainGroups lists the groups of s and of every delegate that lists its own, s's first; a
// group name seen earlier in the chain hides a later one, as the earlier link serves it.
func (s *Server) chainGroups() []metav1.APIGroup {
	var out []metav1.APIGroup
	seen := map[string]bool{}
	var link DelegationTarget = s
	for link != nil {
		if gl, ok := link.(groupLister); ok {
			for _, g := range gl.APIGroups() {
				if !seen[g.Name] {
					seen[g.Name] = true
					out = append(out, g)
				}
			}
		}
		link = link.NextDelegate()
	}
	return out
}

// serveRootAPIs writes /apis: the APIGroupList of the whole chain, as kube-apiserver's
// aggregator merges its delegates' discovery.
func (s *Server) serveRootAPIs(w http.ResponseWriter, _ *http.Request) {
	responsewriters.WriteJSON(w, http.StatusOK, &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   s.chainGroups(),
	})
}

// AddProxiedGroup lists group in /apis and sends every request under /apis/<group.Name> to h,
// as kube-apiserver's aggregator does for a group an APIService names. It fails after
// PrepareRun and for a group the server already serves.
func (s *Server) AddProxiedGroup(group metav1.APIGroup, h http.Handler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prepared {
		return errors.New("cannot add a proxied group: the server is already prepared")
	}
	for _, g := range s.rootAPIs.Groups() {
		if g.Name == group.Name {
			return fmt.Errorf("cannot proxy group %q: the server already serves it", group.Name)
		}
	}
	s.rootAPIs.AddGroup(group)
	s.mux.Handle("/apis/"+group.Name, h)
	s.mux.Handle("/apis/"+group.Name+"/", h)
	return nil
}
