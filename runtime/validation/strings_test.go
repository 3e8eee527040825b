package validation

import (
	"fmt"
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestPattern(t *testing.T) {
	re := regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
	if got := detail(t, Pattern(ctx, create, path, ptr("16.2"), nil, re)); got != "" {
		t.Errorf("16.2: %q", got)
	}
	if got := detail(t, Pattern(ctx, create, path, ptr(version("sixteen")), nil, re)); got != `FieldValueInvalid: spec.value in body should match '^[0-9]+(\.[0-9]+)*$'` {
		t.Errorf("sixteen: %q", got)
	}
	if got := detail(t, Pattern[string](ctx, create, path, nil, nil, re)); got != "" {
		t.Errorf("nil: %q", got)
	}
}

type version string

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		format, valid, invalid string
	}{
		{"date-time", "2026-01-02T15:04:05Z", "yesterday"},
		{"date", "2026-01-02", "2026-13-02"},
		{"uri", "https://example.com/a?b=c", "::"},
		{"email", "ann@example.com", "ann at example.com"},
		{"hostname", "db-1.example.com", "-bad-"},
		{"ipv4", "10.0.0.1", "10.0.0"},
		{"ipv6", "fe80::1", "fe80:::1"},
		{"uuid", "3f1c3b5e-8d2a-4a57-9a53-1c2d3e4f5a6b", "3f1c3b5e"},
		{"duration", "1h30m", "forever"},
		{"quantity", "10Gi", "ten gigs"},
		{"cidr", "10.0.0.0/8", "10.0.0.0/33"},
		{"mac", "01:23:45:67:89:ab", "01:23:45"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			if !KnownFormat(tc.format) {
				t.Errorf("KnownFormat(%q) = false", tc.format)
			}
			if got := detail(t, Format(ctx, create, path, &tc.valid, nil, tc.format)); got != "" {
				t.Errorf("%q: %s", tc.valid, got)
			}
			want := fmt.Sprintf("FieldValueTypeInvalid: spec.value in body must be of type %s: %q", tc.format, tc.invalid)
			if got := detail(t, Format(ctx, create, path, &tc.invalid, nil, tc.format)); got != want {
				t.Errorf("%q: got %q, want %q", tc.invalid, got, want)
			}
		})
	}
	if KnownFormat("no-such-format") {
		t.Error("KnownFormat(no-such-format) = true")
	}
	if err := FormatError("no-such-format", "anything"); err != nil {
		t.Errorf("an unknown format rejected a string: %v", err)
	}
	if got := detail(t, Format[string](ctx, create, path, nil, nil, "email")); got != "" {
		t.Errorf("nil: %q", got)
	}
}

func TestLengths(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  field.ErrorList
		want string
	}{
		{"at min length", MinLength(ctx, create, path, ptr("ab"), nil, 2), ""},
		{"under min length", MinLength(ctx, create, path, ptr(version("")), nil, 1), "FieldValueInvalid: spec.value in body should be at least 1 chars long"},
		{"characters, not bytes", MinLength(ctx, create, path, ptr("é"), nil, 2), "FieldValueInvalid: spec.value in body should be at least 2 chars long"},
		{"at max length", MaxLength(ctx, create, path, ptr("éé"), nil, 2), ""},
		{"over max length", MaxLength(ctx, create, path, ptr("abc"), nil, 2), "FieldValueTooLong: may not be more than 2 bytes"},
		{"nil passes", MinLength[string](ctx, create, path, nil, nil, 3), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detail(t, tc.got); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
