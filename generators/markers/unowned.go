package markers

// UnownedOwner is the owner RegisterUnowned gives its markers: this package, the parser.
const UnownedOwner = "markers"

// RegisterUnowned registers the marker families of the ecosystem that no apigen generator
// owns, so that they are known rather than unknown: controller-gen's RBAC and webhook
// markers and code-generator's prerelease-lifecycle-gen and protobuf tags (accepted, each
// use a warning saying why apigen does nothing with it), and the families that generate
// nothing an API server or a CRD needs, accepted without a word as controller-gen accepts
// them (the kubebuilder book's +kubebuilder:docs-gen, kubebuilder's +kubebuilder:scaffold,
// operator-sdk's +operator-sdk:csv).
func RegisterUnowned(reg *Registry) {
	anywhere := PackageLevel | TypeLevel | FieldLevel | FuncLevel
	reg.MustRegister(
		Definition{Name: "kubebuilder:rbac", Level: anywhere, Owner: UnownedOwner, Family: true,
			Unhonored: "controller-gen writes RBAC rules from it; apigen writes none",
			Help:      "controller-gen's RBAC rules (+kubebuilder:rbac:groups=...,resources=...,verbs=...); accepted with a warning."},
		Definition{Name: "kubebuilder:webhook", Level: anywhere, Owner: UnownedOwner, Family: true,
			Unhonored: "controller-gen writes webhook configurations from it; apigen writes none",
			Help:      "controller-gen's webhook configurations (+kubebuilder:webhook:path=...); accepted with a warning."},
		Definition{Name: "k8s:prerelease-lifecycle-gen", Level: PackageLevel | TypeLevel, Owner: UnownedOwner, Family: true,
			Unhonored: "apigen generates no APILifecycle methods; mark a deprecated version with +kubebuilder:deprecatedversion",
			Help:      "prerelease-lifecycle-gen's tags (introduced, deprecated, removed); accepted with a warning."},
		Definition{Name: "k8s:protobuf", Level: PackageLevel | TypeLevel, Owner: UnownedOwner, Family: true,
			Unhonored: "apigen serves no protobuf encoding of the API types",
			Help:      "go-to-protobuf's tags; accepted with a warning."},
		Definition{Name: "kubebuilder:docs-gen", Level: anywhere, Owner: UnownedOwner, Family: true,
			Help: "The kubebuilder book's documentation markers; accepted quietly."},
		Definition{Name: "kubebuilder:scaffold", Level: anywhere, Owner: UnownedOwner, Family: true,
			Help: "kubebuilder's scaffolding anchors; accepted quietly."},
		Definition{Name: "operator-sdk:", Level: anywhere, Owner: UnownedOwner, Family: true,
			Help: "operator-sdk's CSV markers (+operator-sdk:csv:...); accepted quietly."},
	)
}
