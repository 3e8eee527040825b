package aggregator

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// TableConvertor prints APIServices as kube-aggregator's apiservices storage does for
// `kubectl get apiservices`: NAME, SERVICE ("<namespace>/<name>", or "Local"), AVAILABLE (the
// Available condition's status, "Unknown" without one, with the reason when False:
// "False (ServiceNotFound)") and AGE.
var TableConvertor rest.TableConvertor = tableConvertor{}

type tableConvertor struct{}

// columns are the table's column definitions, as upstream's.
var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
	{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
	{Name: "Available", Type: "string", Description: "Whether this service is available."},
	{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
}

// ConvertToTable renders an *APIService or *APIServiceList; other objects are an error.
func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = columns
	}
	switch o := obj.(type) {
	case *apiregv1.APIService:
		table.ResourceVersion = o.ResourceVersion
		table.Rows = []metav1.TableRow{row(o)}
	case *apiregv1.APIServiceList:
		table.ResourceVersion, table.Continue, table.RemainingItemCount = o.ResourceVersion, o.Continue, o.RemainingItemCount
		for i := range o.Items {
			table.Rows = append(table.Rows, row(&o.Items[i]))
		}
	default:
		return nil, fmt.Errorf("cannot convert %T to a table of APIServices", obj)
	}
	return table, nil
}

// row renders one APIService.
func row(s *apiregv1.APIService) metav1.TableRow {
	service := "Local"
	if svc := s.Spec.Service; svc != nil {
		service = svc.Namespace + "/" + svc.Name
	}
	available := string(apiregv1.ConditionUnknown)
	if c := s.Status.AvailableCondition(); c != nil {
		available = string(c.Status)
		if c.Status == apiregv1.ConditionFalse {
			available += " (" + c.Reason + ")"
		}
	}
	age := "<unknown>"
	if ts := s.CreationTimestamp; !ts.IsZero() {
		age = duration.HumanDuration(time.Since(ts.Time))
	}
	return metav1.TableRow{Cells: []interface{}{s.Name, service, available, age}, Object: runtime.RawExtension{Object: s}}
}
