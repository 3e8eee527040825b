package webhook

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/cel-go/cel"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	admissioncel "github.com/apigen-dev/apigen/runtime/admission/cel"
	"github.com/apigen-dev/apigen/runtime/admission/informer"
	"github.com/apigen-dev/apigen/runtime/admission/matching"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

// hook is one webhook of a stored configuration, ready to match and call.
type hook struct {
	// uid identifies the webhook across reinvocation rounds: "<configuration>/<index>".
	uid           string
	name          string
	configuration string
	clientConfig  admregv1.WebhookClientConfig
	rules         []matching.NamedRule
	failurePolicy admregv1.FailurePolicyType
	matchPolicy   *admregv1.MatchPolicyType
	nsSelector    labels.Selector
	objSelector   labels.Selector
	selectorErr   error
	sideEffects   *admregv1.SideEffectClass
	timeout       time.Duration // 0: none
	// reviewVersions are the AdmissionReview versions the webhook accepts.
	reviewVersions []string
	conditions     []condition
	// reinvoke is reinvocationPolicy IfNeeded (mutating webhooks).
	reinvoke bool
}

// condition is a compiled match condition; expr is nil and err set when it did not compile.
type condition struct {
	name string
	expr *admissioncel.Expression
	err  error
}

// ignores reports whether the webhook's failures admit the request.
func (h *hook) ignores() bool { return h.failurePolicy == admregv1.Ignore }

// hookFields are what both webhook kinds share, for newHook.
type hookFields struct {
	name         string
	clientConfig admregv1.WebhookClientConfig
	rules        []admregv1.RuleWithOperations
	failure      *admregv1.FailurePolicyType
	match        *admregv1.MatchPolicyType
	ns, obj      *metav1.LabelSelector
	sideEffects  *admregv1.SideEffectClass
	timeout      *int32
	versions     []string
	conditions   []admregv1.MatchCondition
	reinvocation *admregv1.ReinvocationPolicyType
}

// newHook compiles the webhook at index i of configuration.
func newHook(configuration string, i int, f hookFields) *hook {
	h := &hook{uid: fmt.Sprintf("%s/%d", configuration, i), name: f.name, configuration: configuration,
		clientConfig: f.clientConfig, failurePolicy: admregv1.Fail, matchPolicy: f.match, sideEffects: f.sideEffects,
		reviewVersions: f.versions, reinvoke: f.reinvocation != nil && *f.reinvocation == admregv1.IfNeededReinvocationPolicy}
	if f.failure != nil {
		h.failurePolicy = *f.failure
	}
	for j := range f.rules {
		h.rules = append(h.rules, matching.NamedRule{Rule: &f.rules[j]})
	}
	var err1, err2 error
	h.nsSelector, err1 = matching.Selector(f.ns)
	h.objSelector, err2 = matching.Selector(f.obj)
	if err1 != nil {
		h.selectorErr = err1
	} else if err2 != nil {
		h.selectorErr = err2
	}
	if f.timeout != nil {
		h.timeout = time.Duration(*f.timeout) * time.Second
	}
	compiler, err := admissioncel.SharedCompiler(admissioncel.Options{HasAuthorizer: true})
	for _, mc := range f.conditions {
		c := condition{name: mc.Name, err: err}
		if err == nil {
			c.expr, c.err = compiler.Compile(mc.Expression, cel.BoolType)
		}
		h.conditions = append(h.conditions, c)
	}
	return h
}

// source turns the configurations of a cache into hooks, in configuration name order then
// list order, rebuilt when the cache changed. Safe for concurrent use.
type source struct {
	cache *informer.Cache
	// hooksOf compiles the hooks of one stored configuration.
	hooksOf func(runtime.Object) []*hook

	mu      sync.Mutex // held while rebuilding
	current atomic.Pointer[snapshot]
}

// snapshot is the hooks compiled from one generation of the cache.
type snapshot struct {
	gen   uint64
	hooks []*hook
}

// list returns the current hooks; the slice is shared and must not be changed. It takes no
// lock unless the cache changed since the last call (every write asks).
func (s *source) list() []*hook {
	gen := s.cache.Generation()
	if cur := s.current.Load(); cur != nil && cur.gen == gen {
		return cur.hooks
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.current.Load(); cur != nil && cur.gen == gen {
		return cur.hooks
	}
	var hooks []*hook
	for _, obj := range s.cache.List() {
		hooks = append(hooks, s.hooksOf(obj)...)
	}
	s.current.Store(&snapshot{gen: gen, hooks: hooks})
	return hooks
}

// mutatingHooks compiles a MutatingWebhookConfiguration.
func mutatingHooks(obj runtime.Object) []*hook {
	c, ok := obj.(*admregv1.MutatingWebhookConfiguration)
	if !ok {
		return nil
	}
	out := make([]*hook, len(c.Webhooks))
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		out[i] = newHook(c.Name, i, hookFields{name: w.Name, clientConfig: w.ClientConfig, rules: w.Rules,
			failure: w.FailurePolicy, match: w.MatchPolicy, ns: w.NamespaceSelector, obj: w.ObjectSelector,
			sideEffects: w.SideEffects, timeout: w.TimeoutSeconds, versions: w.AdmissionReviewVersions,
			conditions: w.MatchConditions, reinvocation: w.ReinvocationPolicy})
	}
	return out
}

// validatingHooks compiles a ValidatingWebhookConfiguration.
func validatingHooks(obj runtime.Object) []*hook {
	c, ok := obj.(*admregv1.ValidatingWebhookConfiguration)
	if !ok {
		return nil
	}
	out := make([]*hook, len(c.Webhooks))
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		out[i] = newHook(c.Name, i, hookFields{name: w.Name, clientConfig: w.ClientConfig, rules: w.Rules,
			failure: w.FailurePolicy, match: w.MatchPolicy, ns: w.NamespaceSelector, obj: w.ObjectSelector,
			sideEffects: w.SideEffects, timeout: w.TimeoutSeconds, versions: w.AdmissionReviewVersions,
			conditions: w.MatchConditions})
	}
	return out
}
