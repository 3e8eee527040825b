// Package fuzzer keeps randomly filled db.example.com objects inside what the API can
// represent in every version, as Kubernetes' pkg/apis/<group>/fuzzer packages do. The
// generated round-trip test (install/zz_generated.roundtrip_test.go) and the install
// package's other fuzzing tests fill objects with Funcs.
package fuzzer

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"github.com/apigen-dev/apigen/example-api/apis/db"
	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/apis/db/v1alpha1"
)

const gibibyte = 1 << 30

// Funcs are the group's fuzzer functions, an apimachinery fuzzer.FuzzerFuncs: storage in
// whole gibibytes (v1alpha1's spec.sizeGiB has no finer unit, so a finer quantity cannot
// round-trip through it), fields that defaulting would fill already set (the install
// package's fuzzing tests decode with defaulting), and times at second precision.
var Funcs = func(codecs serializer.CodecFactory) []interface{} {
	return []interface{}{
		func(s *db.DatabaseSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas = ptrTo(c.Int31n(10))
			s.Storage = *resource.NewQuantity(int64(1+c.Int31n(4096))*gibibyte, resource.BinarySI)
		},
		func(s *v1.DatabaseSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas = ptrTo(c.Int31n(10))
			s.Storage = *resource.NewQuantity(int64(1+c.Int31n(4096))*gibibyte, resource.BinarySI)
		},
		func(s *v1alpha1.DatabaseSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Replicas = ptrTo(c.Int31n(10))
			s.SizeGiB = 1 + c.Int31n(4096)
		},
		func(p *db.BackupPolicy, c randfill.Continue) {
			c.FillNoCustom(p)
			p.RetentionDays = 1 + c.Int31n(365)
		},
		func(p *v1.BackupPolicy, c randfill.Continue) {
			c.FillNoCustom(p)
			p.RetentionDays = 1 + c.Int31n(365)
		},
		func(p *v1alpha1.BackupPolicy, c randfill.Continue) {
			c.FillNoCustom(p)
			p.RetentionDays = 1 + c.Int31n(365)
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1<<50), resource.BinarySI)
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy()
		},
	}
}

func ptrTo[T any](v T) *T { return &v }
