package endpoints

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestReplacementRetry: the first try gets the decoded body itself, a retry a new decode,
// untouched by what the first try changed.
func TestReplacementRetry(t *testing.T) {
	body := &metav1.Status{Message: "body"}
	decodes := 0
	r := &replacement{obj: body, decode: func() (runtime.Object, error) {
		decodes++
		return &metav1.Status{Message: "body"}, nil
	}}
	first, err := r.UpdatedObject(context.Background(), nil)
	if err != nil || first != runtime.Object(body) || decodes != 0 {
		t.Fatalf("first try: %v, %v (%d decodes), want the body itself without a decode", first, err, decodes)
	}
	first.(*metav1.Status).Message = "changed by the first try"
	second, err := r.UpdatedObject(context.Background(), nil)
	if err != nil || second == first || second.(*metav1.Status).Message != "body" || decodes != 1 {
		t.Fatalf("retry: %v, %v (%d decodes), want a new decode of the body", second, err, decodes)
	}
}
