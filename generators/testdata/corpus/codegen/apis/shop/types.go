package shop

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Tier is a store's service tier.
type Tier string

// The service tiers.
const (
	TierBasic   Tier = "Basic"
	TierPremium Tier = "Premium"
)

// StorePhase is where a Store is in its life cycle.
type StorePhase string

// The phases of a Store.
const (
	StorePending StorePhase = "Pending"
	StoreOpen    StorePhase = "Open"
	StoreClosed  StorePhase = "Closed"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Store is a shop front.
type Store struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   StoreSpec
	Status StoreStatus
}

// StoreSpec is the desired state of a Store.
type StoreSpec struct {
	// Tier is the service tier.
	Tier Tier
	// Replicas is the number of tills.
	Replicas *int32
	// Capacity is the warehouse space.
	Capacity resource.Quantity
	// Manager is who runs the store; nil means nobody yet.
	Manager *Contact
	// Shelves are the store's shelves, in display order.
	Shelves []Shelf
	// Prices maps an item's name to its price in cents.
	Prices map[string]int64
}

// Contact is a person to reach.
type Contact struct {
	Name  string
	Email string
}

// Shelf is one shelf of a Store.
type Shelf struct {
	Name  string
	Slots int32
	Tags  []string
}

// StoreStatus is the observed state of a Store.
type StoreStatus struct {
	Phase              StorePhase
	OpenedAt           *metav1.Time
	ObservedGeneration int64
	Conditions         []metav1.Condition
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// StoreList is a list of Stores.
type StoreList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Store
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Region is a cluster-wide sales region that Stores belong to.
type Region struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec RegionSpec
}

// RegionSpec is the desired state of a Region.
type RegionSpec struct {
	// Zones are the region's zones.
	Zones []string
	// Quotas caps each resource across the region.
	Quotas map[string]resource.Quantity
	// LaunchedAt is when the region opened.
	LaunchedAt metav1.Time
	// Default marks the region new Stores join.
	Default *bool
	// Headquarters is the region's main office.
	Headquarters *Contact
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RegionList is a list of Regions.
type RegionList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Region
}
