package matching

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
)

// NamespaceLabels returns the labels of the namespace name. Errors: a NotFound status error
// when it does not exist; any other error when it cannot be read.
type NamespaceLabels func(ctx context.Context, name string) (map[string]string, error)

// Selector parses a label selector of a webhook or policy; nil selects everything. Errors:
// the selector is invalid (it cannot be once validation accepted it).
func Selector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}

// MatchNamespaceSelector reports whether a's namespace is selected by sel, as kube's
// namespace matcher: a request for a cluster-scoped object other than a Namespace always
// matches, an empty selector matches everything, and a Namespace's create or update is judged
// by the labels of the object itself. Errors: the namespace does not exist (its 404, as
// kube) or cannot be read (500).
func MatchNamespaceSelector(ctx context.Context, sel labels.Selector, a *admission.Attributes, lookup NamespaceLabels) (bool, error) {
	name := Namespace(a)
	if name == "" && !IsNamespace(a) {
		return true, nil
	}
	if sel.Empty() {
		return true, nil
	}
	var nsLabels map[string]string
	if IsNamespace(a) && (a.Operation == admission.Create || a.Operation == admission.Update) {
		m, err := meta.Accessor(a.Object)
		if err != nil {
			return false, apierrors.NewInternalError(err)
		}
		nsLabels = m.GetLabels()
	} else {
		if lookup == nil {
			return sel.Matches(labels.Set(nil)), nil
		}
		l, err := lookup(ctx, name)
		if apierrors.IsNotFound(err) {
			return false, err
		}
		if err != nil {
			return false, apierrors.NewInternalError(err)
		}
		nsLabels = l
	}
	return sel.Matches(labels.Set(nsLabels)), nil
}

// MatchObjectSelector reports whether sel selects a's object or old object, as kube's object
// matcher; an empty selector matches everything.
func MatchObjectSelector(sel labels.Selector, a *admission.Attributes) bool {
	if sel.Empty() {
		return true
	}
	return objectMatches(a.Object, sel) || objectMatches(a.OldObject, sel)
}

func objectMatches(obj runtime.Object, sel labels.Selector) bool {
	if obj == nil {
		return false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(m.GetLabels()))
}
