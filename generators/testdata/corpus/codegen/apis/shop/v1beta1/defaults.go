package v1beta1

import "k8s.io/apimachinery/pkg/runtime"

func addDefaultingFuncs(scheme *runtime.Scheme) error {
	return RegisterDefaults(scheme)
}

// SetDefaults_Store gives a Store one till and the basic tier.
func SetDefaults_Store(obj *Store) {
	if obj.Spec.Size == nil {
		size := int32(1)
		obj.Spec.Size = &size
	}
	if obj.Spec.Tier == "" {
		obj.Spec.Tier = TierBasic
	}
}

// SetDefaults_Shelf gives a shelf ten slots.
func SetDefaults_Shelf(obj *Shelf) {
	if obj.Slots == 0 {
		obj.Slots = 10
	}
}
