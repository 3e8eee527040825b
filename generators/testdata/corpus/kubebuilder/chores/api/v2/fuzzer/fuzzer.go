// Package fuzzer keeps randomly filled chores.example.com objects to times of day, which is
// all v1's spec.schedule ("HH:MM") and v2's spec.hour and spec.minute convert between: the
// conversions reject anything else. The generated round-trip test
// (install/zz_generated.roundtrip_test.go) fills objects with Funcs.
package fuzzer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	v1 "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/chores/api/v1"
	v2 "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/chores/api/v2"
)

// Funcs are the group's fuzzer functions, an apimachinery fuzzer.FuzzerFuncs.
func Funcs(codecs serializer.CodecFactory) []interface{} {
	return []interface{}{
		func(s *v1.ChoreSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Schedule = fmt.Sprintf("%02d:%02d", c.Intn(24), c.Intn(60))
		},
		func(s *v2.ChoreSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Hour, s.Minute = c.Int31n(24), c.Int31n(60)
		},
	}
}
