package tableconvertor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/jsonpath"

	"github.com/apigen-dev/apigen/runtime/rest"
)

// Column is one printer column, as apiextensions' CustomResourceColumnDefinition (and the
// +kubebuilder:printcolumn marker).
type Column struct {
	// Name is the header ("Phase"); Type is an OpenAPI type: "integer", "number", "string",
	// "boolean" or "date"; Format is an OpenAPI format ("name" marks the name column).
	Name, Type, Format string
	// Description is the header's help text; empty means one naming JSONPath.
	Description string
	// Priority > 0 columns are shown only by `kubectl get -o wide`.
	Priority int32
	// JSONPath selects the value in the object's JSON form (".status.phase"), without braces.
	JSONPath string
}

// ageColumn is the AGE column every table ends with, as the default CRD printer column.
var ageColumn = Column{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}

// nameColumn is the header of the first column, the object's metadata.name.
var nameColumn = metav1.TableColumnDefinition{
	Name: "Name", Type: "string", Format: "name",
	Description: "Name must be unique within a namespace. More info: http://kubernetes.io/docs/user-guide/identifiers#names",
}

type convertor struct {
	headers []metav1.TableColumnDefinition
	paths   []*jsonpath.JSONPath
}

var _ rest.TableConvertor = &convertor{}

// New returns a rest.TableConvertor printing NAME, then columns in order, then AGE unless a
// column is already named Age (case-insensitively). Each JSONPath is evaluated with
// k8s.io/client-go/util/jsonpath on the object converted to map[string]interface{} by
// runtime.DefaultUnstructuredConverter; the endpoints hand it objects in the request's
// version (rest.TableConvertor), whose JSON names the paths use. A missing value is an empty
// cell. "date" cells show
// the age of an RFC 3339 timestamp ("5m"); "integer", "number" and "boolean" cells hold JSON
// values; "string" cells the printed value. The error names the column whose JSONPath does
// not parse.
func New(columns []Column) (rest.TableConvertor, error) {
	c := &convertor{headers: []metav1.TableColumnDefinition{nameColumn}}
	hasAge := false
	for _, col := range columns {
		hasAge = hasAge || strings.EqualFold(col.Name, "age")
	}
	if !hasAge {
		columns = append(append([]Column(nil), columns...), ageColumn)
	}
	for _, col := range columns {
		path := jsonpath.New(col.Name)
		if err := path.Parse(fmt.Sprintf("{%s}", col.JSONPath)); err != nil {
			return nil, fmt.Errorf("cannot parse the JSONPath %q of column %q: %w", col.JSONPath, col.Name, err)
		}
		path.AllowMissingKeys(true)
		desc := col.Description
		if desc == "" {
			desc = fmt.Sprintf("Custom resource definition column (in JSONPath format): %s", col.JSONPath)
		}
		c.paths = append(c.paths, path)
		c.headers = append(c.headers, metav1.TableColumnDefinition{
			Name: col.Name, Type: col.Type, Format: col.Format, Description: desc, Priority: col.Priority,
		})
	}
	return c, nil
}

// ConvertToTable renders obj, a single object or a list, as a Table with one row per object.
// Each row's Object holds the object itself; the HTTP layer narrows it per
// metav1.TableOptions.IncludeObject. tableOptions may be nil or *metav1.TableOptions, whose
// NoHeaders drops the column definitions.
func (c *convertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = c.headers
	}
	if meta.IsListType(obj) {
		if l, err := meta.ListAccessor(obj); err == nil {
			table.ResourceVersion = l.GetResourceVersion()
			table.Continue = l.GetContinue()
			table.RemainingItemCount = l.GetRemainingItemCount()
		}
		err := meta.EachListItem(obj, func(item runtime.Object) error {
			row, err := c.row(item)
			table.Rows = append(table.Rows, row)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("cannot convert the list to a table: %w", err)
		}
		return table, nil
	}
	if m, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	row, err := c.row(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot convert the object to a table: %w", err)
	}
	table.Rows = []metav1.TableRow{row}
	return table, nil
}

// row renders one object.
func (c *convertor) row(obj runtime.Object) (metav1.TableRow, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return metav1.TableRow{}, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return metav1.TableRow{}, err
	}
	cells := make([]interface{}, 0, len(c.headers))
	cells = append(cells, m.GetName())
	var buf bytes.Buffer
	for i, path := range c.paths {
		cells = append(cells, cell(path, c.headers[i+1].Type, content, &buf))
	}
	return metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}}, nil
}

// cell evaluates path on content and renders the result for a column of columnType; nil when
// there is no value.
func cell(path *jsonpath.JSONPath, columnType string, content map[string]interface{}, buf *bytes.Buffer) interface{} {
	results, err := path.FindResults(content)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	value := results[0][0].Interface()
	if columnType != "string" {
		return cellForJSONValue(columnType, value)
	}
	buf.Reset()
	if err := path.PrintResults(buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
		return nil
	}
	return buf.String()
}

// cellForJSONValue converts a JSON value to a cell of headerType, as apiextensions-apiserver
// does; nil when the value does not fit the type.
func cellForJSONValue(headerType string, value interface{}) interface{} {
	switch headerType {
	case "integer":
		switch typed := value.(type) {
		case int64:
			return typed
		case float64:
			return int64(typed)
		case json.Number:
			if i, err := typed.Int64(); err == nil {
				return i
			}
		}
	case "number":
		switch typed := value.(type) {
		case int64:
			return float64(typed)
		case float64:
			return typed
		case json.Number:
			if f, err := typed.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "date":
		if s, ok := value.(string); ok {
			return humanAge(s)
		}
	}
	return nil
}

// humanAge renders an RFC 3339 timestamp as the time elapsed since it ("5m"), "<unknown>"
// for the zero time and "<invalid>" for an unparsable one.
func humanAge(timestamp string) string {
	var t metav1.Time
	if err := t.UnmarshalQueryParameter(timestamp); err != nil {
		return "<invalid>"
	}
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t.Time))
}
