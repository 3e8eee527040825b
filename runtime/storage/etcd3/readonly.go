package etcd3

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// shareable is storage.Shareable.
func shareable(obj runtime.Object) bool { return storage.Shareable(obj) }

// shallowCopy is storage.ShallowCopy.
func shallowCopy(obj runtime.Object) runtime.Object { return storage.ShallowCopy(obj) }
