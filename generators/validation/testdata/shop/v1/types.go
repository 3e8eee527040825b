package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Tier is a service tier; the enum is on the type.
// +kubebuilder:validation:Enum=free;pro;enterprise
type Tier string

// PremiumTier is the tier of a premium shop. It is defined from Tier, whose enum it keeps,
// as controller-gen's schema of it does.
type PremiumTier Tier

// Tag is a label on a shop; the constraints on the type apply to every item of a []Tag.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=16
// +kubebuilder:validation:Pattern=`^[a-z]+$`
type Tag string

// Shop is a web shop.
// +kubebuilder:object:root=true
type Shop struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ShopSpec `json:"spec"`
}

// ShopSpec is the desired state of a Shop.
// +kubebuilder:validation:XValidation:rule="!has(self.discountPercent) || self.tier != 'free'",message="free shops have no discount",fieldPath=".discountPercent"
type ShopSpec struct {
	// Tier is immutable once set, but may be set later (optionalOldSelf).
	// +required
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || oldSelf.value() == self",message="tier is immutable",optionalOldSelf=true
	Tier Tier `json:"tier"`
	// Premium is the tier of the shop's premium plan.
	// +optional
	Premium PremiumTier `json:"premium,omitempty"`
	// Owner is an email address.
	// +required
	// +kubebuilder:validation:Format=email
	Owner string `json:"owner"`
	// Homepage is a URI.
	// +optional
	// +kubebuilder:validation:Format=uri
	Homepage string `json:"homepage,omitempty"`
	// Host is a host name.
	// +optional
	// +kubebuilder:validation:Format=hostname
	Host string `json:"host,omitempty"`
	// IPv4 and IPv6 are addresses.
	// +optional
	// +kubebuilder:validation:Format=ipv4
	IPv4 string `json:"ipv4,omitempty"`
	// +optional
	// +kubebuilder:validation:Format=ipv6
	IPv6 string `json:"ipv6,omitempty"`
	// ID is a UUID.
	// +optional
	// +kubebuilder:validation:Format=uuid
	ID string `json:"id,omitempty"`
	// OpensAt is a date-time.
	// +optional
	// +kubebuilder:validation:Format=date-time
	OpensAt string `json:"opensAt,omitempty"`
	// Timeout is a duration.
	// +optional
	// +kubebuilder:validation:Format=duration
	Timeout string `json:"timeout,omitempty"`
	// Disk is a quantity.
	// +optional
	// +kubebuilder:validation:Format=quantity
	Disk string `json:"disk,omitempty"`
	// Name is a Kubernetes name.
	// +optional
	// +kubebuilder:validation:Format=k8s-short-name
	Name string `json:"name,omitempty"`
	// Slots is a count, 1 to 10, in steps of 2 from 0.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:validation:MultipleOf=2
	// +default=2
	Slots int32 `json:"slots"`
	// DiscountPercent is strictly between 0 and 100.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:ExclusiveMaximum=true
	DiscountPercent *float64 `json:"discountPercent,omitempty"`
	// Priority is one of a few numbers.
	// +optional
	// +kubebuilder:validation:Enum=1;5;10
	Priority int `json:"priority,omitempty"`
	// Tags are unique, 1 to 3 of them.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	Tags []Tag `json:"tags,omitempty"`
	// Mirrors are unique URLs.
	// +optional
	// +kubebuilder:validation:UniqueItems=true
	Mirrors []string `json:"mirrors,omitempty"`
	// Products are keyed by name and kind.
	// +required
	// +listType=map
	// +listMapKey=name
	// +listMapKey=kind
	Products []Product `json:"products"`
	// Stock maps a product name to its stock.
	// +optional
	// +kubebuilder:validation:MaxProperties=2
	Stock map[string]Stock `json:"stock,omitempty"`
	// Billing is optional.
	// +optional
	Billing *Billing `json:"billing,omitempty"`
	// Capacity is a quantity; rules on it see its JSON string.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self).startsWith('-')",message="capacity must not be negative"
	Capacity *resource.Quantity `json:"capacity,omitempty"`
	// Extras are products held by pointer; each is checked as Products' items are.
	// +optional
	Extras []*Product `json:"extras,omitempty"`
	// Notes are free text: no markers, no checks.
	// +optional
	Notes string `json:"notes,omitempty"`
	// Limits are written with the other tool families' markers.
	// +optional
	Limits *Limits `json:"limits,omitempty"`
}

// Limits uses the synonyms of controller-tools' markers: Kubernetes' codetags (+k8s:minimum),
// kube-openapi's markers (+k8s:validation:maxLength) and +kubebuilder:validation:Required.
type Limits struct {
	// +kubebuilder:validation:Required
	// +k8s:minimum=1
	Orders int32 `json:"orders"`
	// +k8s:required
	// +k8s:validation:maxLength=5
	// +k8s:validation:pattern=`^[A-Z]+$`
	Region string `json:"region"`
	// +kubebuilder:validation:Optional
	// +k8s:validation:minimum=10
	// +k8s:validation:exclusiveMinimum=true
	// +k8s:maximum=20
	Burst int64 `json:"burst,omitempty"`
	// +k8s:optional
	// +k8s:maxItems=2
	// +k8s:listType=set
	Zones []string `json:"zones,omitempty"`
	// Quotas are checked item by item against their value type, Tag.
	// +optional
	// +k8s:minProperties=1
	Quotas map[string]Tag `json:"quotas,omitempty"`
	// +optional
	// +k8s:format=ipv4
	Gateway string `json:"gateway,omitempty"`
}

// Product is one product of a Shop.
type Product struct {
	// +required
	// +kubebuilder:validation:MaxLength=8
	Name string `json:"name"`
	// +required
	// +kubebuilder:validation:Enum=book;game
	Kind string `json:"kind"`
	// Price is in cents.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self < 100000",messageExpression="'price ' + string(self) + ' is too high'",reason=FieldValueForbidden
	Price int64 `json:"price"`
}

// Stock is the stock of one product.
type Stock struct {
	// +kubebuilder:validation:Minimum=0
	Count int32 `json:"count"`
}

// Billing says how a Shop is billed.
type Billing struct {
	// +required
	// +kubebuilder:validation:MinLength=3
	Account string `json:"account"`
	// Labels are free-form.
	// +required
	Labels map[string]string `json:"labels"`
}

// ShopList is a list of Shops.
// +kubebuilder:object:root=true
type ShopList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Shop `json:"items"`
}
