package validation

import (
	"path/filepath"
	"strings"
	"testing"
)

// fieldBlocks splits a generated validation file into the code generated for each field,
// keyed by the "// field <Type>.<Field>" comment that opens it.
func fieldBlocks(src string) map[string]string {
	blocks := map[string]string{}
	var owner string
	var b strings.Builder
	flush := func() {
		if owner != "" {
			blocks[owner] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "// field "):
			flush()
			owner = strings.TrimPrefix(trimmed, "// field ")
		case line == "}": // the end of a Validate_ function
			flush()
			owner = ""
		}
		b.WriteString(trimmed + "\n")
	}
	return blocks
}

// TestEveryMarker checks, field by field of testdata/shop/v1, that every validation marker of
// DESIGN.md section 4 and its synonyms generates its check on the field it annotates.
func TestEveryMarker(t *testing.T) {
	files, err := New().Generate(sharedTestdata(t, "shop"))
	if err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", "shop", "v1", FileName))
	blocks := fieldBlocks(string(files[path]))
	const args = "(ctx, op, fldPath, obj, oldObj"
	for _, tc := range []struct{ marker, field, want string }{
		{"+required", "ShopSpec.Owner", "if *obj == \"\" && !validation.KeyPresent(ctx, fldPath, true) {\nreturn append(errs, field.Required(fldPath, \"\"))"},
		{"+required (slice)", "ShopSpec.Products", "if obj == nil {\nreturn append(errs, field.Required(fldPath, \"\"))"},
		{"+required (map)", "Billing.Labels", "if obj == nil {\nreturn append(errs, field.Required(fldPath, \"\"))"},
		{"+kubebuilder:validation:Required", "Limits.Orders", "if *obj == 0 && !validation.KeyPresent(ctx, fldPath, true) {\nreturn append(errs, field.Required(fldPath, \"\"))"},
		{"+k8s:required", "Limits.Region", "validate.RequiredValue" + args + ")"},
		{"+optional", "ShopSpec.Homepage", "if *obj == \"\" && !validation.KeyPresent(ctx, fldPath, false) {\nreturn // do not proceed"},
		{"+optional (pointer)", "ShopSpec.Billing", "if obj == nil {\nreturn // do not proceed"},
		{"+kubebuilder:validation:Optional", "Limits.Burst", "if *obj == 0 && !validation.KeyPresent(ctx, fldPath, false) {\nreturn // do not proceed"},
		{"+k8s:optional", "Limits.Zones", "if obj == nil {\nreturn // do not proceed"},
		{"Minimum", "ShopSpec.Slots", "validation.Minimum" + args + ", 1.0, false)"},
		{"Maximum", "ShopSpec.Slots", "validation.Maximum" + args + ", 10.0, false)"},
		{"MultipleOf", "ShopSpec.Slots", "validation.MultipleOf" + args + ", 2.0)"},
		{"ExclusiveMinimum", "ShopSpec.DiscountPercent", "validation.Minimum" + args + ", 0.0, true)"},
		{"ExclusiveMaximum", "ShopSpec.DiscountPercent", "validation.Maximum" + args + ", 100.0, true)"},
		{"+k8s:minimum", "Limits.Orders", "validation.Minimum" + args + ", 1.0, false)"},
		{"+k8s:validation:minimum, exclusiveMinimum", "Limits.Burst", "validation.Minimum" + args + ", 10.0, true)"},
		{"+k8s:maximum", "Limits.Burst", "validation.Maximum" + args + ", 20.0, false)"},
		{"MinLength", "Billing.Account", "validation.MinLength" + args + ", 3)"},
		{"MaxLength", "Product.Name", "validation.MaxLength" + args + ", 8)"},
		{"+k8s:validation:maxLength", "Limits.Region", "validation.MaxLength" + args + ", 5)"},
		{"+k8s:validation:pattern", "Limits.Region", "validation.Pattern" + args + ", patternLimitsRegion)"},
		{"Enum (strings)", "Product.Kind", "validation.Enum" + args + ", enumProductKind...)"},
		{"Enum (numbers)", "ShopSpec.Priority", "validation.Enum" + args + ", enumShopSpecPriority...)"},
		{"Enum (on the field's type)", "ShopSpec.Tier", "Validate_Tier" + args + ")"},
		{"Enum (on the type the field's type is defined from)", "ShopSpec.Premium", "Validate_PremiumTier" + args + ")"},
		{"MaxLength, Pattern: the first failure only", "Limits.Region", "validation.FirstFailure(\nvalidation.MaxLength" + args + ", 5),\nvalidation.Pattern"},
		{"Format=email", "ShopSpec.Owner", `validation.Format` + args + `, "email")`},
		{"Format=uri", "ShopSpec.Homepage", `validation.Format` + args + `, "uri")`},
		{"Format=hostname", "ShopSpec.Host", `validation.Format` + args + `, "hostname")`},
		{"Format=ipv4", "ShopSpec.IPv4", `validation.Format` + args + `, "ipv4")`},
		{"Format=ipv6", "ShopSpec.IPv6", `validation.Format` + args + `, "ipv6")`},
		{"Format=uuid", "ShopSpec.ID", `validation.Format` + args + `, "uuid")`},
		{"Format=date-time", "ShopSpec.OpensAt", `validation.Format` + args + `, "date-time")`},
		{"Format=duration", "ShopSpec.Timeout", `validation.Format` + args + `, "duration")`},
		{"Format=quantity", "ShopSpec.Disk", `validation.Format` + args + `, "quantity")`},
		{"Format=k8s-short-name", "ShopSpec.Name", `validation.Format` + args + `, "k8s-short-name")`},
		{"+k8s:format", "Limits.Gateway", `validation.Format` + args + `, "ipv4")`},
		{"MinItems", "ShopSpec.Tags", "validation.MinItems" + args + ", 1)"},
		{"MaxItems", "ShopSpec.Tags", "validation.MaxItems" + args + ", 3)"},
		{"+k8s:maxItems", "Limits.Zones", "validation.MaxItems" + args + ", 2)"},
		{"+listType=set", "ShopSpec.Tags", "validation.UniqueSet" + args + ")"},
		{"+k8s:listType=set", "Limits.Zones", "validation.UniqueSet" + args + ")"},
		{"UniqueItems", "ShopSpec.Mirrors", "validation.UniqueSet" + args + ")"},
		{"+listType=map +listMapKey", "ShopSpec.Products", `validation.UniqueMapKeys` + args + `, "name", "kind")`},
		{"+listType=map +listMapKey (ratcheting by key)", "ShopSpec.Products", "return a.Name == b.Name && a.Kind == b.Kind"},
		{"slice items (type constraints)", "ShopSpec.Tags", "validate.EachValSliceVal" + args + ", nil, nil, Validate_Tag)"},
		{"slice items (nested struct, by key)", "ShopSpec.Products", "}, SemanticEqual_Product, Validate_Product)"},
		{"slice items behind pointers", "ShopSpec.Extras", "validate.EachPtrSliceVal" + args + ", nil, nil, Validate_Product)"},
		{"MinProperties", "Limits.Quotas", "validation.MinProperties" + args + ", 1)"},
		{"MaxProperties", "ShopSpec.Stock", "validation.MaxProperties" + args + ", 2)"},
		{"map values (nested struct)", "ShopSpec.Stock", "validate.EachMapVal" + args + ", SemanticEqual_Stock, Validate_Stock)"},
		{"map values (type constraints)", "Limits.Quotas", "validate.EachMapVal" + args + ", validate.SemanticDeepEqual[*Tag], Validate_Tag)"},
		{"nested struct", "Shop.Spec", "Validate_ShopSpec" + args + ")"},
		{"nested pointer struct", "ShopSpec.Billing", "Validate_Billing" + args + ")"},
		{"XValidation", "ShopSpec.Tier", "ruleShopSpecTier.Validate(ctx, op, fldPath, cel.Present(obj, false), cel.Present(oldObj, false))"},
		{"XValidation (omitempty pointer)", "ShopSpec.Capacity", "ruleShopSpecCapacity.Validate(ctx, op, fldPath, cel.Present(obj, true), cel.Present(oldObj, true))"},
		{"ratcheting", "ShopSpec.Owner", "if op.Type == operation.Update && (obj == nil) == (oldObj == nil) && (obj == nil || *obj == *oldObj) {"},
	} {
		block, ok := blocks[tc.field]
		if !ok {
			t.Errorf("%s: no code generated for %s", tc.marker, tc.field)
			continue
		}
		if !strings.Contains(block, tc.want) {
			t.Errorf("%s: the code of %s lacks %q:\n%s", tc.marker, tc.field, tc.want, block)
		}
	}
	// A field without markers, whose type needs no checks, gets no code.
	if block, ok := blocks["ShopSpec.Notes"]; ok {
		t.Errorf("code generated for ShopSpec.Notes:\n%s", block)
	}
}
