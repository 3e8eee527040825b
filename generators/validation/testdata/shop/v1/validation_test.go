package v1

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/validation"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// valid returns a Shop that passes every check.
func valid() *Shop {
	return &Shop{Spec: ShopSpec{
		Tier: "pro", Owner: "ann@example.com", Homepage: "https://shop.example.com/", Host: "shop.example.com",
		IPv4: "10.0.0.1", IPv6: "fe80::1", ID: "3f1c3b5e-8d2a-4a57-9a53-1c2d3e4f5a6b",
		OpensAt: "2026-01-02T15:04:05Z", Timeout: "1h30m", Disk: "10Gi", Name: "main",
		Slots: 4, DiscountPercent: ptr(12.5), Priority: 5,
		Tags: []Tag{"books", "games"}, Mirrors: []string{"a", "b"},
		Products: []Product{{Name: "b1", Kind: "book", Price: 100}, {Name: "b1", Kind: "game", Price: 100}},
		Stock:    map[string]Stock{"b1": {Count: 3}},
		Billing:  &Billing{Account: "acme", Labels: map[string]string{"a": "b"}},
		Capacity: ptr(resource.MustParse("1Gi")),
	}}
}

// causes renders errors as sorted "type path: detail" lines.
func causes(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + " " + e.Field + ": " + e.Detail
	}
	sort.Strings(out)
	return out
}

func TestValid(t *testing.T) {
	if errs := newScheme(t).Validate(context.Background(), nil, valid()); len(errs) != 0 {
		t.Fatalf("valid shop rejected: %v", errs)
	}
}

func TestCreateErrors(t *testing.T) {
	s := valid()
	s.Spec = ShopSpec{
		Tier: "free", Owner: "not an email", Homepage: "::", Host: "-bad-", IPv4: "10.0.0", IPv6: "fe80:::1",
		ID: "nope", OpensAt: "yesterday", Timeout: "forever", Disk: "lots", Name: "Main",
		Slots: 11, DiscountPercent: ptr(100.0), Priority: 2,
		Tags: []Tag{"ok", "ok", "Bad", "toolongtoolongtoolong", "TOOLONGTOOLONGTOOLONG"}, Mirrors: []string{"a", "a"},
		Premium:  "gold",
		Products: []Product{{Name: "b1", Kind: "book", Price: 100000}, {Name: "b1", Kind: "book", Price: 1}, {Kind: "toy"}},
		Stock:    map[string]Stock{"x": {Count: -1}, "y": {}, "z": {}},
		Billing:  &Billing{Account: "ab"},
		Capacity: ptr(resource.MustParse("-1")),
		Extras:   []*Product{nil, {Name: "x", Kind: "book", Price: 0}},
	}
	// The messages of the schema constraints are kube-apiserver's for a CRD schema.
	want := []string{
		"FieldValueDuplicate spec.mirrors[1]: ",
		"FieldValueDuplicate spec.products[1]: ",
		"FieldValueDuplicate spec.tags[1]: ",
		// Blocking errors (NotSupported, Required, TooLong, TooMany, TypeInvalid) keep the
		// CEL rules from running, as on a CRD: TestRules checks the rules' errors.
		"FieldValueInvalid <nil>: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
		"FieldValueInvalid spec.billing.account: spec.billing.account in body should be at least 3 chars long",
		"FieldValueInvalid spec.discountPercent: spec.discountPercent in body should be less than 100",
		"FieldValueInvalid spec.extras[1].price: spec.extras[1].price in body should be greater than or equal to 1",
		"FieldValueInvalid spec.products[2].price: spec.products[2].price in body should be greater than or equal to 1",
		"FieldValueInvalid spec.slots: spec.slots in body should be a multiple of 2",
		"FieldValueInvalid spec.slots: spec.slots in body should be less than or equal to 10",
		"FieldValueInvalid spec.stock[x].count: spec.stock[x].count in body should be greater than or equal to 0",
		"FieldValueInvalid spec.tags[2]: spec.tags[2] in body should match '^[a-z]+$'",
		"FieldValueNotSupported spec.priority: supported values: \"1\", \"5\", \"10\"",
		"FieldValueNotSupported spec.products[2].kind: supported values: \"book\", \"game\"",
		"FieldValueRequired spec.billing.labels: ",
		"FieldValueNotSupported spec.premium: supported values: \"free\", \"pro\", \"enterprise\"",
		// kube-openapi's string checks stop at the first failure: too long, so no pattern.
		"FieldValueTooLong spec.tags[3]: may not be more than 16 bytes",
		"FieldValueTooLong spec.tags[4]: may not be more than 16 bytes",
		"FieldValueTooMany spec.stock: must have at most 2 items",
		"FieldValueTooMany spec.tags: must have at most 3 items",
		"FieldValueTypeInvalid spec.disk: spec.disk in body must be of type quantity: \"lots\"",
		"FieldValueTypeInvalid spec.homepage: spec.homepage in body must be of type uri: \"::\"",
		"FieldValueTypeInvalid spec.host: spec.host in body must be of type hostname: \"-bad-\"",
		"FieldValueTypeInvalid spec.id: spec.id in body must be of type uuid: \"nope\"",
		"FieldValueTypeInvalid spec.ipv4: spec.ipv4 in body must be of type ipv4: \"10.0.0\"",
		"FieldValueTypeInvalid spec.ipv6: spec.ipv6 in body must be of type ipv6: \"fe80:::1\"",
		"FieldValueTypeInvalid spec.name: spec.name in body must be of type k8s-short-name: \"Main\"",
		"FieldValueTypeInvalid spec.opensAt: spec.opensAt in body must be of type date-time: \"yesterday\"",
		"FieldValueTypeInvalid spec.owner: spec.owner in body must be of type email: \"not an email\"",
		"FieldValueTypeInvalid spec.timeout: spec.timeout in body must be of type duration: \"forever\"",
	}
	sort.Strings(want)
	got := causes(newScheme(t).Validate(context.Background(), nil, s))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
}

// TestRules checks the CEL rules' errors, which are reported when no schema error blocks them.
func TestRules(t *testing.T) {
	s := valid()
	s.Spec.Tier, s.Spec.DiscountPercent = "free", ptr(10.0)
	s.Spec.Products[0].Price = 100000
	s.Spec.Capacity = ptr(resource.MustParse("-1"))
	s.Spec.Slots = 3 // a non-blocking schema error: the rules run
	want := []string{
		"FieldValueForbidden spec.products[0].price: price 100000 is too high",
		"FieldValueInvalid spec.capacity: capacity must not be negative",
		"FieldValueInvalid spec.discountPercent: free shops have no discount",
		"FieldValueInvalid spec.slots: spec.slots in body should be a multiple of 2",
	}
	if diff := cmp.Diff(want, causes(newScheme(t).Validate(context.Background(), nil, s))); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
}

// TestRequired checks required fields as a CRD's validation does: a key the request left out
// (the request's document, request.Document) is Required value; a zero value the request sent,
// or one a stored object's JSON holds (no document: a non-omitempty field is written), is
// present and validated; a nil list is absent (left out, or null).
func TestRequired(t *testing.T) {
	const gate = "FieldValueInvalid <nil>: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
	scheme := newScheme(t)
	gvks, _, err := scheme.ObjectKinds(&Shop{})
	if err != nil {
		t.Fatal(err)
	}
	validate := func(doc string, obj *Shop) []string {
		ctx := context.Background()
		if doc != "" {
			ctx = request.WithDocument(ctx, request.NewDocument(gvks[0], []byte(doc)))
		}
		return causes(validation.Declarative(ctx, scheme, obj, nil))
	}
	tests := []struct {
		name, doc string
		obj       *Shop
		want      []string
	}{{
		name: "left out",
		doc:  `{"spec": {"slots": 2}}`,
		obj:  &Shop{Spec: ShopSpec{Slots: 2}},
		want: []string{gate, "FieldValueRequired spec.owner: ", "FieldValueRequired spec.products: ", "FieldValueRequired spec.tier: "},
	}, {
		name: "sent empty",
		doc:  `{"spec": {"slots": 2, "owner": "", "tier": "", "products": []}}`,
		obj:  &Shop{Spec: ShopSpec{Slots: 2, Products: []Product{}}},
		want: []string{gate, `FieldValueNotSupported spec.tier: supported values: "free", "pro", "enterprise"`,
			`FieldValueTypeInvalid spec.owner: spec.owner in body must be of type email: ""`},
	}, {
		name: "null is left out",
		doc:  `{"spec": {"slots": 2, "owner": null, "tier": null, "products": null}}`,
		obj:  &Shop{Spec: ShopSpec{Slots: 2}},
		want: []string{gate, "FieldValueRequired spec.owner: ", "FieldValueRequired spec.products: ", "FieldValueRequired spec.tier: "},
	}, {
		name: "no document: the object's JSON",
		obj:  &Shop{Spec: ShopSpec{Slots: 2}},
		want: []string{gate, `FieldValueNotSupported spec.tier: supported values: "free", "pro", "enterprise"`, "FieldValueRequired spec.products: ",
			`FieldValueTypeInvalid spec.owner: spec.owner in body must be of type email: ""`},
	}}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, validate(tt.doc, tt.obj)); diff != "" {
			t.Errorf("%s: errors differ (-want +got):\n%s", tt.name, diff)
		}
	}
	other := request.NewDocument(gvks[0].GroupVersion().WithKind("Other"), []byte(`{"spec": {}}`))
	got := causes(validation.Declarative(request.WithDocument(context.Background(), other), scheme, &Shop{Spec: ShopSpec{Slots: 2}}, nil))
	if diff := cmp.Diff(tests[3].want, got); diff != "" {
		t.Errorf("a document of another kind: errors differ (-want +got):\n%s", diff)
	}
}

func TestUpdate(t *testing.T) {
	scheme := newScheme(t)
	old := valid()
	old.Spec.Owner = "legacy owner" // stored before the format was enforced

	changed := valid()
	changed.Spec.Owner = old.Spec.Owner
	changed.Spec.Tier = "enterprise"
	got := causes(scheme.ValidateUpdate(context.Background(), nil, changed, old))
	want := []string{"FieldValueInvalid spec.tier: tier is immutable"} // owner ratchets: unchanged
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}

	same := valid()
	same.Spec.Owner = old.Spec.Owner
	same.Spec.Slots = 6
	if errs := scheme.ValidateUpdate(context.Background(), nil, same, old); len(errs) != 0 {
		t.Errorf("valid update rejected: %v", errs)
	}
}

func TestRegisterTwice(t *testing.T) {
	// RegisterValidations compiles the rules once; registering into a second scheme reuses them.
	if err := RegisterValidations(runtime.NewScheme()); err != nil {
		t.Fatal(err)
	}
	first := ruleShopSpecTier
	if err := RegisterValidations(runtime.NewScheme()); err != nil {
		t.Fatal(err)
	}
	if first == nil || ruleShopSpecTier != first {
		t.Errorf("the rule was compiled again by a second RegisterValidations (%p, then %p)", first, ruleShopSpecTier)
	}
	if !strings.Contains(ruleShopSpecTier.Validate(context.Background(), operation.Operation{Type: operation.Update}, field.NewPath("tier"), Tier("a"), Tier("b")).ToAggregate().Error(), "tier is immutable") {
		t.Error("compiled rule does not report its message")
	}
}

// TestSynonyms checks the markers of the other tool families (Limits): each behaves as its
// controller-tools synonym.
func TestSynonyms(t *testing.T) {
	scheme := newScheme(t)
	s := valid()
	s.Spec.Limits = &Limits{Orders: 5, Region: "EU", Burst: 15, Zones: []string{"a", "b"}, Quotas: map[string]Tag{"x": "books"}, Gateway: "10.0.0.1"}
	if errs := scheme.Validate(context.Background(), nil, s); len(errs) != 0 {
		t.Fatalf("valid limits rejected: %v", errs)
	}

	// Absent optionals are not checked; +kubebuilder:validation:Required is satisfied by a zero
	// value written (no request document here), +k8s:required (validation-gen's) is not.
	s.Spec.Limits = &Limits{Burst: 0}
	want := []string{
		"FieldValueInvalid <nil>: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
		"FieldValueInvalid spec.limits.orders: spec.limits.orders in body should be greater than or equal to 1",
		"FieldValueRequired spec.limits.region: ",
	}
	if diff := cmp.Diff(want, causes(scheme.Validate(context.Background(), nil, s))); diff != "" {
		t.Errorf("required synonyms (-want +got):\n%s", diff)
	}

	s.Spec.Limits = &Limits{Orders: -1, Region: "europe", Burst: 10, Zones: []string{"a", "a", "b"}, Quotas: map[string]Tag{"x": "Bad"}, Gateway: "10.0.0"}
	want = []string{
		"FieldValueDuplicate spec.limits.zones[1]: ",
		"FieldValueInvalid <nil>: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
		"FieldValueInvalid spec.limits.burst: spec.limits.burst in body should be greater than 10",
		"FieldValueInvalid spec.limits.orders: spec.limits.orders in body should be greater than or equal to 1",
		"FieldValueInvalid spec.limits.quotas[x]: spec.limits.quotas[x] in body should match '^[a-z]+$'",
		// +k8s:validation:maxLength and pattern are kube-openapi's: the first failure only.
		"FieldValueTooLong spec.limits.region: may not be more than 5 bytes",
		"FieldValueTooMany spec.limits.zones: must have at most 2 items",
		`FieldValueTypeInvalid spec.limits.gateway: spec.limits.gateway in body must be of type ipv4: "10.0.0"`,
	}
	if diff := cmp.Diff(want, causes(scheme.Validate(context.Background(), nil, s))); diff != "" {
		t.Errorf("constraint synonyms (-want +got):\n%s", diff)
	}
	s.Spec.Limits = &Limits{Orders: 1, Region: "EU", Burst: 21}
	want = []string{"FieldValueInvalid spec.limits.burst: spec.limits.burst in body should be less than or equal to 20"}
	if diff := cmp.Diff(want, causes(scheme.Validate(context.Background(), nil, s))); diff != "" {
		t.Errorf("maximum synonym (-want +got):\n%s", diff)
	}
}
