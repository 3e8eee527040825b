package v1beta1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Tier is a store's service tier.
// +enum
type Tier string

// The service tiers.
const (
	// TierBasic is the default tier.
	TierBasic Tier = "Basic"
	// TierPremium adds delivery.
	TierPremium Tier = "Premium"
)

// StorePhase is where a Store is in its life cycle.
// +enum
type StorePhase string

// The phases of a Store.
const (
	StorePending StorePhase = "Pending"
	StoreOpen    StorePhase = "Open"
	StoreClosed  StorePhase = "Closed"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.30
// +k8s:prerelease-lifecycle-gen:replacement=shop.example.com,v1,Store

// Store is a shop front.
type Store struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the store.
	// +optional
	Spec StoreSpec `json:"spec,omitempty"`
	// Status is the observed state of the store.
	// +optional
	Status StoreStatus `json:"status,omitempty"`
}

// StoreSpec is the desired state of a Store.
type StoreSpec struct {
	// Tier is the service tier.
	// +optional
	Tier Tier `json:"tier,omitempty"`
	// Size is the number of tills; v1 calls it replicas.
	// +optional
	Size *int32 `json:"size,omitempty"`
	// Capacity is the warehouse space.
	// +optional
	Capacity resource.Quantity `json:"capacity,omitempty"`
	// Manager is who runs the store; unset means nobody yet.
	// +optional
	Manager *Contact `json:"manager,omitempty"`
	// Shelves are the store's shelves, in display order.
	// +optional
	// +listType=map
	// +listMapKey=name
	Shelves []Shelf `json:"shelves,omitempty"`
	// Prices maps an item's name to its price in cents.
	// +optional
	Prices map[string]int64 `json:"prices,omitempty"`
}

// Contact is a person to reach.
type Contact struct {
	// Name is the person's full name.
	Name string `json:"name"`
	// Email is where to write to them.
	// +optional
	Email string `json:"email,omitempty"`
}

// Shelf is one shelf of a Store.
type Shelf struct {
	// Name identifies the shelf within its store.
	Name string `json:"name"`
	// Slots is how many items fit on the shelf.
	// +optional
	Slots int32 `json:"slots,omitempty"`
	// Tags label the shelf.
	// +optional
	// +listType=set
	Tags []string `json:"tags,omitempty"`
}

// StoreStatus is the observed state of a Store.
type StoreStatus struct {
	// Phase summarises the store's state.
	// +optional
	Phase StorePhase `json:"phase,omitempty"`
	// OpenedAt is when the store opened.
	// +optional
	OpenedAt *metav1.Time `json:"openedAt,omitempty"`
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are the latest observations, one per type.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// StoreList is a list of Stores.
type StoreList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Stores.
	Items []Store `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Region is a cluster-wide sales region that Stores belong to.
type Region struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the region.
	// +optional
	Spec RegionSpec `json:"spec,omitempty"`
}

// RegionSpec is the desired state of a Region.
type RegionSpec struct {
	// Zones are the region's zones.
	// +optional
	// +listType=set
	Zones []string `json:"zones,omitempty"`
	// Quotas caps each resource across the region.
	// +optional
	Quotas map[string]resource.Quantity `json:"quotas,omitempty"`
	// LaunchedAt is when the region opened.
	// +optional
	LaunchedAt metav1.Time `json:"launchedAt,omitempty"`
	// Default marks the region new Stores join.
	// +optional
	// +default=false
	Default *bool `json:"default,omitempty"`
	// Headquarters is the region's main office.
	// +optional
	Headquarters *Contact `json:"headquarters,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RegionList is a list of Regions.
type RegionList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Regions.
	Items []Region `json:"items"`
}
