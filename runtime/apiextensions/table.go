package apiextensions

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/rest"
)

// crdTable renders CustomResourceDefinitions as kube-apiserver does, with k8s.io/apiserver's
// default table convertor: NAME and CREATED AT (the creation timestamp in RFC 3339, UTC), so
// that `kubectl get crd` prints what it prints against Kubernetes.
type crdTable struct{}

var _ rest.TableConvertor = crdTable{}

// crdColumns are the default table convertor's columns.
var crdColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace. More info: http://kubernetes.io/docs/user-guide/identifiers#names"},
	{Name: "Created At", Type: "date", Description: "CreationTimestamp is a timestamp representing the server time when this object was created."},
}

// ConvertToTable renders obj, a CRD or a list of them; tableOptions may be nil or
// *metav1.TableOptions, whose NoHeaders drops the column definitions.
func (crdTable) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = crdColumns
	}
	row := func(o runtime.Object) error {
		m, err := meta.Accessor(o)
		if err != nil {
			return err
		}
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells:  []any{m.GetName(), m.GetCreationTimestamp().UTC().Format(time.RFC3339)},
			Object: runtime.RawExtension{Object: o},
		})
		return nil
	}
	if meta.IsListType(obj) {
		if l, err := meta.ListAccessor(obj); err == nil {
			table.ResourceVersion, table.Continue, table.RemainingItemCount = l.GetResourceVersion(), l.GetContinue(), l.GetRemainingItemCount()
		}
		if err := meta.EachListItem(obj, row); err != nil {
			return nil, fmt.Errorf("cannot convert the list to a table: %w", err)
		}
		return table, nil
	}
	if m, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	if err := row(obj); err != nil {
		return nil, fmt.Errorf("cannot convert the object to a table: %w", err)
	}
	return table, nil
}
