package admission

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// Operation is the kind of write being admitted, as admission.Operation.
type Operation string

// The operations, named as kube-apiserver's.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Attributes describe the write being admitted, as admission.Attributes.
type Attributes struct {
	Operation Operation
	// Kind is the object's kind in the request's version; Resource is the resource written
	// and Subresource its subresource ("status", "scale") or "".
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	Subresource string
	// Namespace is "" for a cluster-scoped object; Name may be "" on create with
	// generateName.
	Namespace string
	Name      string
	// Object is the new object (nil on delete); OldObject the stored one (nil on create).
	// Both are the internal (hub) version; mutating plugins change Object in place.
	Object    runtime.Object
	OldObject runtime.Object
	// User made the request; DryRun means nothing will be persisted (plugins with side
	// effects must not act).
	User   *request.User
	DryRun bool
}

// Interface is what every plugin is: which operations it handles.
type Interface interface {
	Handles(op Operation) bool
}

// MutationInterface is a plugin that may change the object, as admission.MutationInterface.
type MutationInterface interface {
	Interface
	Admit(ctx context.Context, a *Attributes) error
}

// ValidationInterface is a plugin that only accepts or refuses, as
// admission.ValidationInterface.
type ValidationInterface interface {
	Interface
	Validate(ctx context.Context, a *Attributes) error
}

// WantsListers is a plugin that reads stored objects (a quota counting them), as
// kube-apiserver's plugins that want informers: the server calls SetListers once, before
// serving, with a function returning the lister of a served resource ("databases" of
// db.example.com), or nil.
type WantsListers interface {
	SetListers(lister func(schema.GroupResource) rest.Lister)
}

// Plugins returns the enabled plugins, in order (one that both mutates and validates once).
func (c *Chain) Plugins() []Interface {
	var out []Interface
	seen := map[Interface]bool{}
	for _, m := range c.mut {
		out, seen[m] = append(out, m), true
	}
	for _, v := range c.val {
		if !seen[v] {
			out = append(out, v)
		}
	}
	return out
}

// Chain is the enabled plugins, in order. The zero Chain admits everything.
type Chain struct {
	names []string
	mut   []MutationInterface
	val   []ValidationInterface
}

// Names returns the enabled plugins' names, in order.
func (c *Chain) Names() []string { return slices.Clone(c.names) }

// Admit runs the chain on a: Mutate, then Validate.
func (c *Chain) Admit(ctx context.Context, a *Attributes) error {
	if err := c.Mutate(ctx, a); err != nil {
		return err
	}
	return c.Validate(ctx, a)
}

// Mutate runs every mutating plugin that handles a.Operation, in order; they may change
// a.Object. It returns the first refusal: a Kubernetes status error as it is, another error
// as 403 Forbidden `<resource> "<name>" is forbidden: <error>`, as admission.NewForbidden. A
// nil Chain admits everything.
// A traced request records the chain as a span "Admit" (tracing.Start).
func (c *Chain) Mutate(ctx context.Context, a *Attributes) (err error) {
	if c == nil || len(c.mut) == 0 {
		return nil
	}
	ctx, span := startSpan(ctx, "Admit", a)
	defer func() { span.End(err) }()
	for _, p := range c.mut {
		if p.Handles(a.Operation) {
			if err := p.Admit(ctx, a); err != nil {
				return forbidden(a, err)
			}
		}
	}
	return nil
}

// Validate runs every validating plugin that handles a.Operation, in order, as Mutate does;
// they must not change the object. A traced request records the chain as a span
// "Validate".
func (c *Chain) Validate(ctx context.Context, a *Attributes) (err error) {
	if c == nil || len(c.val) == 0 {
		return nil
	}
	ctx, span := startSpan(ctx, "Validate", a)
	defer func() { span.End(err) }()
	for _, p := range c.val {
		if p.Handles(a.Operation) {
			if err := p.Validate(ctx, a); err != nil {
				return forbidden(a, err)
			}
		}
	}
	return nil
}

// startSpan starts the span name of a chain's run on a, with the operation and the
// resource as attributes.
func startSpan(ctx context.Context, name string, a *Attributes) (context.Context, *tracing.Span) {
	ctx, span := tracing.Start(ctx, name)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("operation", string(a.Operation)),
			attribute.String("resource", a.Resource.String()), attribute.String("subresource", a.Subresource))
	}
	return ctx, span
}

// forbidden turns a plugin's refusal into the error the client gets.
func forbidden(a *Attributes, err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, err)
}

// Factory makes a plugin.
type Factory func() (Interface, error)

// Plugins is a registry of plugins by name, with the order they run in when enabled, as
// kube-apiserver's admission.Plugins and its recommended order. Safe for use by one
// goroutine (main) at start-up.
type Plugins struct {
	order     []string
	factories map[string]Factory
	defaultOn map[string]bool
}

// Register adds a plugin called name that runs after those registered before it; onByDefault
// enables it when neither flag names it. Registering a name twice is an error.
func (p *Plugins) Register(name string, onByDefault bool, f Factory) error {
	if p.factories == nil {
		p.factories, p.defaultOn = map[string]Factory{}, map[string]bool{}
	}
	if _, dup := p.factories[name]; dup {
		return fmt.Errorf("admission plugin %q is registered twice", name)
	}
	p.order = append(p.order, name)
	p.factories[name] = f
	p.defaultOn[name] = onByDefault
	return nil
}

// Registered returns every registered name, sorted.
func (p *Plugins) Registered() []string {
	names := slices.Clone(p.order)
	sort.Strings(names)
	return names
}

// NewChain builds the chain of the plugins on by default plus enable, minus disable, in
// registration order (the order of the flags does not matter, as kube-apiserver).
// Errors: a name in either list that is not registered, a name in both, or a factory's error.
func (p *Plugins) NewChain(enable, disable []string) (*Chain, error) {
	var unknown []string
	for _, n := range slices.Concat(enable, disable) {
		if _, ok := p.factories[n]; !ok {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown admission plugins %s; registered: %s", strings.Join(unknown, ", "), strings.Join(p.Registered(), ", "))
	}
	for _, n := range enable {
		if slices.Contains(disable, n) {
			return nil, fmt.Errorf("admission plugin %q is both enabled and disabled", n)
		}
	}
	c := &Chain{}
	for _, n := range p.order {
		if !(p.defaultOn[n] || slices.Contains(enable, n)) || slices.Contains(disable, n) {
			continue
		}
		plugin, err := p.factories[n]()
		if err != nil {
			return nil, fmt.Errorf("cannot create admission plugin %q: %w", n, err)
		}
		m, isMut := plugin.(MutationInterface)
		v, isVal := plugin.(ValidationInterface)
		if !isMut && !isVal {
			return nil, fmt.Errorf("admission plugin %q implements neither Admit nor Validate", n)
		}
		if isMut {
			c.mut = append(c.mut, m)
		}
		if isVal {
			c.val = append(c.val, v)
		}
		c.names = append(c.names, n)
	}
	return c, nil
}
