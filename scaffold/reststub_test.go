package scaffold

import (
	"strings"
	"testing"
)

// TestCreateAPIRESTStorage: --storage=rest marks the kind +apigen:storage=rest (with
// +genclient:noStatus: its Status is the REST's, not a subresource) and writes the stub
// new<Kind>REST in the version's install package once; a second version moves the stub to
// the hub's install package, its types import pointed at the hub; --storage=rest with a
// subresource, and an unknown --storage, are errors.
func TestCreateAPIRESTStorage(t *testing.T) {
	t.Parallel()
	root := initRepo(t)
	stock := APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Stock", KindOptions: KindOptions{Namespaced: true, Storage: "rest"}}
	apply(t, root, stock)
	files := tree(t, root)
	types := files["apis/shop/v1/stock_types.go"]
	if !strings.Contains(types, "// +apigen:storage=rest\n") || !strings.Contains(types, "// +genclient:noStatus\n") {
		t.Errorf("stock_types.go lacks +apigen:storage=rest and +genclient:noStatus:\n%s", types)
	}
	stub := files["apis/shop/v1/install/stock_rest.go"]
	for _, want := range []string{
		"func newStockREST(scheme *runtime.Scheme, group *registry.APIGroupInfo) (rest.Getter, error) {",
		`types "example.com/shop/apis/shop/v1"`, "return &types.StockList{}, nil",
		`schema.GroupResource{Group: "shop.example.com", Resource: "stocks"}`,
	} {
		if !strings.Contains(stub, want) {
			t.Errorf("stock_rest.go lacks %q:\n%s", want, stub)
		}
	}
	if again, err := CreateAPI(root, stock); err != nil || len(again.Changes) != 0 {
		t.Errorf("second CreateAPI --storage=rest: %v, %v; want no changes", err, again.Summary())
	}
	if _, err := CreateAPI(root, APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Stock", KindOptions: KindOptions{Namespaced: true}}); err == nil ||
		!strings.Contains(err.Error()+"\n", "kind Stock exists in apis/shop/v1 with --namespaced=true --status=false --scale=false --storage=rest; asked for "+
			"--namespaced=true --status=false --scale=false\n") {
		t.Errorf("CreateAPI of the kind with etcd storage: %v, want a clash naming --storage", err)
	}
	for _, bad := range []KindOptions{{Namespaced: true, Storage: "rest", Status: true}, {Storage: "s3"}} {
		if _, err := CreateAPI(root, APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Meter", KindOptions: bad}); err == nil ||
			!strings.Contains(err.Error(), "--storage") {
			t.Errorf("CreateAPI with %s: %v, want an error naming --storage", bad, err)
		}
	}

	beta := stock
	beta.Version = "v1beta1"
	apply(t, root, beta)
	files = tree(t, root)
	if _, ok := files["apis/shop/v1/install/stock_rest.go"]; ok {
		t.Error("the stub is still in the single version's install package")
	}
	moved := files["apis/shop/install/stock_rest.go"]
	if !strings.Contains(moved, `types "example.com/shop/apis/shop"`+"\n") || !strings.Contains(moved, "func newStockREST(") {
		t.Errorf("the hub's install package has no stub using the hub's types:\n%s", moved)
	}
	if !strings.Contains(files["apis/shop/v1beta1/stock_types.go"], "// +apigen:storage=rest\n") {
		t.Error("the v1beta1 copy of Stock lacks +apigen:storage=rest")
	}
}
