package structural

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// metaFields are the fields of a resource (the root, or an embedded resource) pruning keeps: their contents are
// the server's (metadata) or checked elsewhere.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// prune removes the fields of x that s does not specify, appending their paths to pruned, as upstream's
// pruning.prune; root treats x as a resource (keeping its meta fields).
func prune(x any, s *Structural, root bool, path *field.Path, pruned *[]string) {
	if s != nil && s.preserveUnknownFields {
		skipPrune(x, s, root, path, pruned)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if s != nil && (root || s.embeddedResource) && metaFields[k] {
				continue
			}
			if s == nil {
				delete(x, k)
				*pruned = append(*pruned, path.Child(k).String())
				continue
			}
			if sub, ok := s.properties[k]; ok {
				prune(x[k], sub, false, path.Child(k), pruned)
			} else if s.additional != nil {
				prune(x[k], s.additional, false, path.Key(k), pruned)
			} else {
				delete(x, k)
				*pruned = append(*pruned, path.Child(k).String())
			}
		}
	case []any:
		var items *Structural
		if s != nil {
			items = s.items
		}
		for i, v := range x {
			prune(v, items, false, path.Index(i), pruned)
		}
	}
}

// skipPrune walks a value under x-kubernetes-preserve-unknown-fields: unknown fields stay, but specified ones are
// pruned below as usual.
func skipPrune(x any, s *Structural, root bool, path *field.Path, pruned *[]string) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if (root || s.embeddedResource) && metaFields[k] {
				continue
			}
			if sub, ok := s.properties[k]; ok {
				prune(x[k], sub, false, path.Child(k), pruned)
			} else if s.additional != nil {
				prune(x[k], s.additional, false, path.Key(k), pruned)
			}
		}
	case []any:
		for i, v := range x {
			skipPrune(v, s.items, false, path.Index(i), pruned)
		}
	}
}
