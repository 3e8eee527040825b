package webhook

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/admissiontest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// BenchmarkNoConfiguration measures what both webhook plugins add to every write of a server
// with no webhook configured (their caches synced and empty): the cost the default-on
// plugins impose on everyone.
func BenchmarkNoConfiguration(b *testing.B) {
	e := admissiontest.New(b)
	m, _ := NewMutating()
	v, _ := NewValidating()
	e.Start(m)
	e.Start(v)
	a := admissiontest.WidgetAttrs(admission.Create, "team-a", &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}}, nil)
	if err := m.(admission.MutationInterface).Admit(e.Ctx, a); err != nil { // waits for the caches
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = m.(admission.MutationInterface).Admit(e.Ctx, a)
			_ = v.(admission.ValidationInterface).Validate(e.Ctx, a)
		}
	})
}
