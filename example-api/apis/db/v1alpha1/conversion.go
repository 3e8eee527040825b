package v1alpha1

import (
	"math"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/conversion"

	"github.com/apigen-dev/apigen/example-api/apis/db"
)

// gibibyte is the number of bytes in one GiB.
const gibibyte = 1 << 30

// Convert_v1alpha1_DatabaseSpec_To_db_DatabaseSpec converts spec.sizeGiB (whole gibibytes)
// to the hub's spec.storage quantity; every other field is converted by the generated code.
func Convert_v1alpha1_DatabaseSpec_To_db_DatabaseSpec(in *DatabaseSpec, out *db.DatabaseSpec, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_DatabaseSpec_To_db_DatabaseSpec(in, out, s); err != nil {
		return err
	}
	out.Storage = *resource.NewQuantity(int64(in.SizeGiB)*gibibyte, resource.BinarySI)
	return nil
}

// Convert_db_DatabaseSpec_To_v1alpha1_DatabaseSpec converts the hub's spec.storage quantity
// to whole gibibytes, rounding a size that is not a whole number of GiB up and capping it at
// the largest int32.
func Convert_db_DatabaseSpec_To_v1alpha1_DatabaseSpec(in *db.DatabaseSpec, out *DatabaseSpec, s conversion.Scope) error {
	if err := autoConvert_db_DatabaseSpec_To_v1alpha1_DatabaseSpec(in, out, s); err != nil {
		return err
	}
	bytes := in.Storage.Value()
	gib := bytes / gibibyte
	if bytes%gibibyte > 0 {
		gib++
	}
	out.SizeGiB = int32(min(gib, math.MaxInt32))
	return nil
}
