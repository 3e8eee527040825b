package cel

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apiserver/pkg/cel/library"
)

// envOptions are the language settings and function libraries of Kubernetes' CEL base
// environment at its current version, as k8s.io/apiserver/pkg/cel/environment's baseOpts for
// Kubernetes 1.37 (every library introduced up to then, none removed since): cel-go's standard
// library with the ext strings (version 2), sets, lists (version 3) and two-variable
// comprehensions, optional types and cross-type numeric comparisons, and Kubernetes' own
// libraries from k8s.io/apiserver/pkg/cel/library: URLs (url(), isURL()), regex (find,
// findAll), lists (isSorted, sum, min, max, indexOf, lastIndexOf), authz (the authorizer
// variable of admission expressions), authz selectors, quantity (quantity(), isQuantity()),
// IP and CIDR (ip(), cidr(), ...), format (format.dns1123Label() ...) and semver (semver(),
// isSemver()). Literal durations, timestamps, regexes and aggregates are checked at compile
// time, as kube's AST validators. ext.Math is kept from the runtime's first CEL environment
// (rules written for it still compile); kube-apiserver does not offer it.
//
// The environment is built from k8s.io/apiserver's leaf library packages only; its
// environment package (which reads feature gates and component versions) is not used.
func envOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		library.URLs(),
		library.Regex(),
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		library.Authz(),
		library.AuthzSelectors(),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		library.Quantity(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		library.IP(),
		library.CIDR(),
		library.Format(),
		ext.TwoVarComprehensions(),
		library.SemverLib(library.SemverVersion(1)),
		ext.Lists(ext.ListsVersion(3)),
		library.Lists(library.ListsVersion(1)),
		ext.Math(),
	}
}

// ProgramOptions are the options every program of the runtime's CEL expressions is built
// with besides its cost limit, as kube's base environment's: evaluation with cost tracking
// through Kubernetes' library cost estimator (so quantity(), isSorted() and the other library
// functions are charged as in kube-apiserver), has() costing nothing, and an interrupt check
// every 100 comprehension iterations.
func ProgramOptions() []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostTracking(&library.CostEstimator{}),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.InterruptCheckFrequency(100),
	}
}

// baseEnv is the environment every expression shares (see envOptions), built once.
var baseEnv = sync.OnceValues(func() (*cel.Env, error) {
	env, err := cel.NewEnv(envOptions()...)
	if err != nil {
		return nil, fmt.Errorf("cannot create the CEL environment: %w", err)
	}
	return env, nil
})

// BaseEnv returns Kubernetes' CEL base environment (see envOptions) without variables, for
// admission expressions (ValidatingAdmissionPolicy, webhook matchConditions) to extend with
// their own. It is built once; the error is only an impossible library conflict.
func BaseEnv() (*cel.Env, error) { return baseEnv() }
