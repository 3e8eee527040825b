package corpustest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// discovered is what discovery says of one resource.
type discovered struct {
	Kind                   string
	Namespaced             bool
	ShortNames, Categories []string
}

// checkDiscovery checks that every served version lists each kind with its scope, short names
// and categories (+genclient:nonNamespaced, +kubebuilder:resource).
func checkDiscovery(t *testing.T, cfg *rest.Config, g serveGroup) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range g.versions {
		gv := schema.GroupVersion{Group: g.group, Version: v}
		list, err := dc.ServerResourcesForGroupVersion(gv.String())
		if err != nil {
			t.Fatalf("discovery of %s: %v", gv, err)
		}
		got := map[string]discovered{}
		for _, r := range list.APIResources {
			got[r.Name] = discovered{Kind: r.Kind, Namespaced: r.Namespaced, ShortNames: r.ShortNames, Categories: r.Categories}
		}
		want := map[string]discovered{}
		for _, k := range g.kinds {
			want[k.resource] = discovered{Kind: k.kind, Namespaced: k.namespaced, ShortNames: k.shortNames, Categories: k.categories}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				delete(got, name) // subresources
			}
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("discovery of %s (-want +got):\n%s", gv, diff)
		}
	}
}

// tableAccept asks for a Table, as kubectl get does.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// checkTable lists k in gvr as a Table, as kubectl get does, and checks the column names
// (+kubebuilder:printcolumn) and that the one object of the list is a row.
func checkTable(ctx context.Context, t *testing.T, cfg *rest.Config, gvr schema.GroupVersionResource, k serveKind) {
	t.Helper()
	url := cfg.Host + "/apis/" + gvr.Group + "/" + gvr.Version + "/"
	if k.namespaced {
		url += "namespaces/default/"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+gvr.Resource, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", tableAccept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("list as Table: %v", err)
	}
	defer resp.Body.Close()
	var table metav1.Table
	if err := json.NewDecoder(resp.Body).Decode(&table); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("list as Table: status %d, %v", resp.StatusCode, err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff(k.columns, names); diff != "" || table.Kind != "Table" || len(table.Rows) != 1 {
		t.Errorf("Table of %s: kind %q, %d rows, columns (-want +got):\n%s", gvr, table.Kind, len(table.Rows), diff)
	}
}
