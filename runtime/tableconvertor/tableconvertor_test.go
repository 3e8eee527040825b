package tableconvertor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
)

func widget(name string, size int32, age time.Duration) testapi.Widget {
	return testapi.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "7", CreationTimestamp: metav1.NewTime(time.Now().Add(-age))},
		Spec:       testapi.WidgetSpec{Size: size, Color: "red"},
		Status:     testapi.WidgetStatus{Phase: "Ready"},
	}
}

func TestColumnsAndCells(t *testing.T) {
	tc, err := tableconvertor.New([]tableconvertor.Column{
		{Name: "Color", Type: "string", JSONPath: ".spec.color"},
		{Name: "Size", Type: "integer", JSONPath: ".spec.size", Priority: 1, Description: "how big"},
		{Name: "Missing", Type: "string", JSONPath: ".status.nothing"},
		{Name: "Created", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := widget("w1", 3, 5*time.Minute)
	table, err := tc.ConvertToTable(context.Background(), &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var headers []string
	for _, c := range table.ColumnDefinitions {
		headers = append(headers, c.Name+"/"+c.Type)
	}
	wantHeaders := []string{"Name/string", "Color/string", "Size/integer", "Missing/string", "Created/date", "Age/date"}
	if diff := cmp.Diff(wantHeaders, headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if table.ColumnDefinitions[0].Format != "name" || table.ColumnDefinitions[2].Priority != 1 ||
		table.ColumnDefinitions[2].Description != "how big" {
		t.Errorf("column definitions: %+v", table.ColumnDefinitions)
	}
	want := []interface{}{"w1", "red", int64(3), nil, "5m", "5m"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if table.ResourceVersion != "7" || table.Rows[0].Object.Object != &w {
		t.Errorf("table metadata or row object: rv %q", table.ResourceVersion)
	}
}

func TestListAndOptions(t *testing.T) {
	tc, err := tableconvertor.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	list := &testapi.WidgetList{ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next"},
		Items: []testapi.Widget{widget("a", 1, time.Hour), widget("b", 1, 49*time.Hour)}}
	table, err := tc.ConvertToTable(context.Background(), list, &metav1.TableOptions{NoHeaders: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 0 || table.ResourceVersion != "9" || table.Continue != "next" {
		t.Errorf("table: %+v", table)
	}
	want := [][]interface{}{{"a", "60m"}, {"b", "2d1h"}}
	for i, row := range table.Rows {
		if diff := cmp.Diff(want[i], row.Cells); diff != "" {
			t.Errorf("row %d (-want +got):\n%s", i, diff)
		}
	}
	empty, err := tc.ConvertToTable(context.Background(), &testapi.WidgetList{}, nil)
	if err != nil || len(empty.Rows) != 0 || len(empty.ColumnDefinitions) != 2 {
		t.Errorf("empty list: %v %+v", err, empty)
	}
}

func TestOwnAgeColumnAndErrors(t *testing.T) {
	tc, err := tableconvertor.New([]tableconvertor.Column{{Name: "AGE", Type: "string", JSONPath: ".status.phase"}})
	if err != nil {
		t.Fatal(err)
	}
	w := widget("w", 1, time.Minute)
	table, err := tc.ConvertToTable(context.Background(), &w, nil)
	if err != nil || len(table.ColumnDefinitions) != 2 || table.Rows[0].Cells[1] != "Ready" {
		t.Errorf("a column named Age replaces the default: %v %+v", err, table)
	}
	_, err = tableconvertor.New([]tableconvertor.Column{{Name: "Bad", Type: "string", JSONPath: ".spec[["}})
	if err == nil || !strings.Contains(err.Error(), `column "Bad"`) {
		t.Errorf("unparsable JSONPath: %v", err)
	}
}

func TestCellTypes(t *testing.T) {
	tc, err := tableconvertor.New([]tableconvertor.Column{
		{Name: "SizeNum", Type: "number", JSONPath: ".spec.size"},
		{Name: "SizeBool", Type: "boolean", JSONPath: ".spec.size"},
		{Name: "Ports", Type: "string", JSONPath: ".spec.ports[*].name"},
		{Name: "BadDate", Type: "date", JSONPath: ".spec.color"},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := widget("w", 4, 3*time.Minute)
	w.Spec.Ports = []testapi.WidgetPort{{Name: "http"}, {Name: "https"}}
	table, err := tc.ConvertToTable(context.Background(), &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []interface{}{"w", float64(4), nil, "http", "<invalid>", "3m"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
