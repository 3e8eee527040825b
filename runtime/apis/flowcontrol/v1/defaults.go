package v1

// The defaults of kube-apiserver's flowcontrol v1 (pkg/apis/flowcontrol/v1/defaults.go).
const (
	// FlowSchemaDefaultMatchingPrecedence is a FlowSchema's matchingPrecedence when zero.
	FlowSchemaDefaultMatchingPrecedence int32 = 1000
	// PriorityLevelConfigurationDefaultNominalConcurrencyShares is a Limited priority
	// level's nominalConcurrencyShares when unset.
	PriorityLevelConfigurationDefaultNominalConcurrencyShares int32 = 30
	// PriorityLevelConfigurationDefaultQueues, PriorityLevelConfigurationDefaultHandSize and
	// PriorityLevelConfigurationDefaultQueueLengthLimit are a queuing configuration's when
	// zero.
	PriorityLevelConfigurationDefaultQueues           int32 = 64
	PriorityLevelConfigurationDefaultHandSize         int32 = 8
	PriorityLevelConfigurationDefaultQueueLengthLimit int32 = 50
)

// SetDefaults_FlowSchemaSpec defaults matchingPrecedence to 1000, as kube's.
func SetDefaults_FlowSchemaSpec(obj *FlowSchemaSpec) {
	if obj.MatchingPrecedence == 0 {
		obj.MatchingPrecedence = FlowSchemaDefaultMatchingPrecedence
	}
}

// SetDefaults_LimitedPriorityLevelConfiguration defaults nominalConcurrencyShares to 30 and
// lendablePercent to 0, as kube's (v1: an explicit 0 share stays 0).
func SetDefaults_LimitedPriorityLevelConfiguration(obj *LimitedPriorityLevelConfiguration) {
	if obj.NominalConcurrencyShares == nil {
		v := PriorityLevelConfigurationDefaultNominalConcurrencyShares
		obj.NominalConcurrencyShares = &v
	}
	if obj.LendablePercent == nil {
		var v int32
		obj.LendablePercent = &v
	}
}

// SetDefaults_ExemptPriorityLevelConfiguration defaults nominalConcurrencyShares and
// lendablePercent to 0, as kube's.
func SetDefaults_ExemptPriorityLevelConfiguration(obj *ExemptPriorityLevelConfiguration) {
	if obj.NominalConcurrencyShares == nil {
		var v int32
		obj.NominalConcurrencyShares = &v
	}
	if obj.LendablePercent == nil {
		var v int32
		obj.LendablePercent = &v
	}
}

// SetDefaults_QueuingConfiguration defaults queues to 64, handSize to 8 and
// queueLengthLimit to 50 where zero, as kube's.
func SetDefaults_QueuingConfiguration(obj *QueuingConfiguration) {
	if obj.HandSize == 0 {
		obj.HandSize = PriorityLevelConfigurationDefaultHandSize
	}
	if obj.Queues == 0 {
		obj.Queues = PriorityLevelConfigurationDefaultQueues
	}
	if obj.QueueLengthLimit == 0 {
		obj.QueueLengthLimit = PriorityLevelConfigurationDefaultQueueLengthLimit
	}
}
