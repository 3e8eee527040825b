// Package admission holds example-apiserver's admission plugins, which its main registers
// in app.AdmissionPlugins (both off by default; --enable-admission-plugins turns them on):
// DatabaseEngineLabel, a mutating plugin, and DatabaseQuota, a validating one. They show
// how a generated server adds admission with hand-written code.
package admission

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/example-api/apis/db"
	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// Plugin names, for --enable-admission-plugins.
const (
	EngineLabelName = "DatabaseEngineLabel"
	QuotaName       = "DatabaseQuota"
)

// EngineLabel is the label DatabaseEngineLabel sets to spec.engine.
const EngineLabel = "db.example.com/engine"

// MaxDatabasesPerNamespace is DatabaseQuota's limit.
const MaxDatabasesPerNamespace = 3

var databases = schema.GroupResource{Group: db.GroupName, Resource: "databases"}

// Register adds the example's plugins to plugins, off by default.
// Errors: a name registered already.
func Register(plugins *admission.Plugins) error {
	if err := plugins.Register(EngineLabelName, false, func() (admission.Interface, error) { return engineLabel{}, nil }); err != nil {
		return err
	}
	return plugins.Register(QuotaName, false, func() (admission.Interface, error) { return &quota{}, nil })
}

// engineLabel labels every created or updated Database with its engine, so that
// `kubectl get databases -l db.example.com/engine=postgres` works.
type engineLabel struct{}

func (engineLabel) Handles(op admission.Operation) bool {
	return op == admission.Create || op == admission.Update
}

func (engineLabel) Admit(_ context.Context, a *admission.Attributes) error {
	d, ok := a.Object.(*db.Database)
	if !ok || a.Resource.GroupResource() != databases || a.Subresource != "" {
		return nil
	}
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels[EngineLabel] = string(d.Spec.Engine)
	return nil
}

// quota refuses a Database when its namespace already has MaxDatabasesPerNamespace, a
// small stand-in for kube-apiserver's ResourceQuota (counted from storage at admission,
// so concurrent creates may overshoot by the number in flight).
type quota struct {
	lister func(schema.GroupResource) rest.Lister
}

var _ admission.WantsListers = (*quota)(nil)

// SetListers implements admission.WantsListers.
func (q *quota) SetListers(lister func(schema.GroupResource) rest.Lister) { q.lister = lister }

func (*quota) Handles(op admission.Operation) bool { return op == admission.Create }

func (q *quota) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Resource.GroupResource() != databases || q.lister == nil {
		return nil
	}
	l := q.lister(databases)
	if l == nil {
		return nil
	}
	list, err := l.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	if n := meta.LenList(list); n >= MaxDatabasesPerNamespace {
		return fmt.Errorf("exceeded quota: namespace %s has %d databases, the limit is %d", a.Namespace, n, MaxDatabasesPerNamespace)
	}
	return nil
}
