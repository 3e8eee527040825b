package endpoints

import (
	"net/http/httptest"
	"testing"
)

func TestNegotiateOutput(t *testing.T) {
	kubectl := "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	for _, tc := range []struct {
		accept      string
		list, table bool
		want        output
		wantErr     bool
	}{
		{accept: "", want: output{}},
		{accept: "application/json", want: output{}},
		{accept: " application/json ", want: output{}},
		{accept: "*/*", want: output{}},
		{accept: "application/*", want: output{}},
		{accept: "application/json, */*", want: output{}},
		{accept: "application/yaml", want: output{yaml: true}},
		{accept: "application/yaml;q=0.5, application/json", want: output{}},
		{accept: kubectl, table: true, want: output{as: asTable, metaVersion: "v1"}},
		{accept: kubectl, table: false, want: output{}},
		{accept: "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", want: output{as: asPartialObjectMetadata, metaVersion: "v1"}},
		{accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", list: true,
			want: output{as: asPartialObjectMetadataList, metaVersion: "v1"}},
		{accept: "text/plain", wantErr: true},
		{accept: "application/json;as=Table;v=v1;g=meta.k8s.io", table: false, wantErr: true},
	} {
		req := httptest.NewRequest("GET", "/", nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		got, err := negotiateOutput(req, tc.list, tc.table)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("Accept %q (list %v, table %v): got %+v, %v; want %+v, error %v",
				tc.accept, tc.list, tc.table, got, err, tc.want, tc.wantErr)
		}
	}
}
