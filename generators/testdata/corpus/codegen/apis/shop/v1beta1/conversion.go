package v1beta1

import (
	"k8s.io/apimachinery/pkg/conversion"

	"github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop"
)

// Convert_v1beta1_StoreSpec_To_shop_StoreSpec converts spec.size to the hub's Replicas; every
// other field is converted by the generated code.
func Convert_v1beta1_StoreSpec_To_shop_StoreSpec(in *StoreSpec, out *shop.StoreSpec, s conversion.Scope) error {
	if err := autoConvert_v1beta1_StoreSpec_To_shop_StoreSpec(in, out, s); err != nil {
		return err
	}
	out.Replicas = in.Size
	return nil
}

// Convert_shop_StoreSpec_To_v1beta1_StoreSpec converts the hub's Replicas to spec.size.
func Convert_shop_StoreSpec_To_v1beta1_StoreSpec(in *shop.StoreSpec, out *StoreSpec, s conversion.Scope) error {
	if err := autoConvert_shop_StoreSpec_To_v1beta1_StoreSpec(in, out, s); err != nil {
		return err
	}
	out.Size = in.Replicas
	return nil
}
