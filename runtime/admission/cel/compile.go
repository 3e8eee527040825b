package cel

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/traits"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"

	validationcel "github.com/apigen-dev/apigen/runtime/validation/cel"
)

// The names expressions refer to their inputs by, as kube's.
const (
	ObjectVar                    = "object"
	OldObjectVar                 = "oldObject"
	ParamsVar                    = "params"
	RequestVar                   = "request"
	NamespaceVar                 = "namespaceObject"
	AuthorizerVar                = "authorizer"
	RequestResourceAuthorizerVar = "authorizer.requestResource"
	VariablesVar                 = "variables"
)

// The cost limits of admission expressions, in CEL cost units, as
// k8s.io/apiserver/pkg/apis/cel's.
const (
	// PerCallLimit bounds one evaluation of one expression.
	PerCallLimit = celconfig.PerCallLimit
	// RuntimeCELCostBudget bounds the expressions a policy evaluates for one request.
	RuntimeCELCostBudget = celconfig.RuntimeCELCostBudget
	// RuntimeCELCostBudgetMatchConditions bounds the match conditions of one webhook or
	// policy for one request.
	RuntimeCELCostBudgetMatchConditions = celconfig.RuntimeCELCostBudgetMatchConditions
)

// variablesTypeName is the type name of the variables variable, as kube's.
const variablesTypeName = "kubernetes.variables"

// Options choose the optional variables of an environment, as kube's
// OptionalVariableDeclarations.
type Options struct {
	// HasParams declares params (a policy with a paramKind).
	HasParams bool
	// HasAuthorizer declares authorizer and authorizer.requestResource.
	HasAuthorizer bool
}

// CompileError is an expression that does not compile or does not yield the type it must;
// Detail is kube's wording ("compilation failed: ...", "must evaluate to bool but got int").
type CompileError struct {
	Detail string
}

// Error returns Detail.
func (e *CompileError) Error() string { return e.Detail }

// Compiler compiles the expressions of one webhook or policy in an environment with the
// admission variables and, for a policy, its variables (AddVariable). It is not safe for
// concurrent compilation; the Expressions it returns are safe for concurrent evaluation.
type Compiler struct {
	env       *cel.Env
	varsType  *apiservercel.DeclType
	variables []*variable
}

// variable is a compiled policy variable; expr is nil when it did not compile.
type variable struct {
	name string
	expr *Expression
	err  error
}

// Expression is a compiled expression.
type Expression struct {
	// Source is the expression's text.
	Source  string
	program cel.Program
	// OutputType is the type the expression yields (dyn when unknown until evaluation).
	OutputType *cel.Type
}

// NewCompiler returns a compiler with the variables opts declare.
// Errors: only an impossible environment conflict.
func NewCompiler(opts Options) (*Compiler, error) {
	base, err := validationcel.BaseEnv()
	if err != nil {
		return nil, err
	}
	varsType := apiservercel.NewObjectType(variablesTypeName, map[string]*apiservercel.DeclField{})
	provider := apiservercel.NewDeclTypeProvider(namespaceType(), requestType(), varsType)
	provider.SetRecognizeKeywordAsFieldName(true)
	providerOpts, err := provider.EnvOptions(base.CELTypeProvider())
	if err != nil {
		return nil, fmt.Errorf("cannot create the admission CEL environment: %w", err)
	}
	envOpts := append(providerOpts,
		cel.Variable(ObjectVar, cel.DynType),
		cel.Variable(OldObjectVar, cel.DynType),
		cel.Variable(NamespaceVar, namespaceType().CelType()),
		cel.Variable(RequestVar, requestType().CelType()),
		cel.Variable(VariablesVar, varsType.CelType()))
	if opts.HasParams {
		envOpts = append(envOpts, cel.Variable(ParamsVar, cel.DynType))
	}
	if opts.HasAuthorizer {
		envOpts = append(envOpts, cel.Variable(AuthorizerVar, library.AuthorizerType),
			cel.Variable(RequestResourceAuthorizerVar, library.ResourceCheckType))
	}
	env, err := base.Extend(envOpts...)
	if err != nil {
		return nil, fmt.Errorf("cannot create the admission CEL environment: %w", err)
	}
	return &Compiler{env: env, varsType: varsType}, nil
}

// sharedCompilers are the compilers without variables, one per Options, built once: match
// conditions of every webhook share them.
var sharedCompilers sync.Map // Options -> *Compiler

// SharedCompiler returns a compiler with the variables opts declare and no policy variables,
// shared by every caller (so AddVariable must not be called on it).
func SharedCompiler(opts Options) (*Compiler, error) {
	if c, ok := sharedCompilers.Load(opts); ok {
		return c.(*Compiler), nil
	}
	c, err := NewCompiler(opts)
	if err != nil {
		return nil, err
	}
	actual, _ := sharedCompilers.LoadOrStore(opts, c)
	return actual.(*Compiler), nil
}

// Compile compiles expr, which must yield one of want (cel.AnyType accepts every type).
// Errors: a *CompileError in kube's words.
func (c *Compiler) Compile(expr string, want ...*cel.Type) (*Expression, error) {
	ast, iss := c.env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, &CompileError{Detail: "compilation failed: " + iss.String()}
	}
	out := ast.OutputType()
	found := false
	for _, w := range want {
		if out.IsExactType(w) || w.IsExactType(cel.AnyType) || out.IsExactType(cel.DynType) {
			found = true
		}
	}
	if !found {
		if len(want) == 1 {
			return nil, &CompileError{Detail: fmt.Sprintf("must evaluate to %v but got %v", want[0], out)}
		}
		return nil, &CompileError{Detail: fmt.Sprintf("must evaluate to one of %v but got %v", want, out)}
	}
	opts := append(validationcel.ProgramOptions(), cel.CostLimit(PerCallLimit))
	prog, err := c.env.Program(ast, opts...)
	if err != nil {
		return nil, &CompileError{Detail: "program instantiation failed: " + err.Error()}
	}
	return &Expression{Source: expr, program: prog, OutputType: out}, nil
}

// AddVariable compiles the policy variable name (any type), visible to the expressions
// compiled after it as variables.<name>, as kube's CompileAndStoreVariable. A variable that
// does not compile is still declared (dyn): using it fails at evaluation with
// `composited variable "<name>" fails to compile: ...`. Errors: its *CompileError.
func (c *Compiler) AddVariable(name, expr string) error {
	e, err := c.Compile(expr, cel.AnyType)
	t := apiservercel.DynType
	if err == nil {
		t = declTypeOf(e.OutputType)
	}
	c.varsType.Fields[name] = apiservercel.NewDeclField(name, t, true, nil, nil)
	c.variables = append(c.variables, &variable{name: name, expr: e, err: err})
	return err
}

// declTypeOf converts a variable's CEL type to the declared type of its field, as kube's
// convertCelTypeToDeclType.
func declTypeOf(t *cel.Type) *apiservercel.DeclType {
	switch {
	case t == nil:
		return apiservercel.DynType
	case t.IsExactType(cel.BoolType):
		return apiservercel.BoolType
	case t.IsExactType(cel.BytesType):
		return apiservercel.BytesType
	case t.IsExactType(cel.DoubleType):
		return apiservercel.DoubleType
	case t.IsExactType(cel.DurationType):
		return apiservercel.DurationType
	case t.IsExactType(cel.IntType):
		return apiservercel.IntType
	case t.IsExactType(cel.NullType):
		return apiservercel.NullType
	case t.IsExactType(cel.StringType):
		return apiservercel.StringType
	case t.IsExactType(cel.TimestampType):
		return apiservercel.TimestampType
	case t.IsExactType(cel.UintType):
		return apiservercel.UintType
	case t.HasTrait(traits.ContainerType) && t.HasTrait(traits.IndexerType):
		switch p := t.Parameters(); len(p) {
		case 1:
			return apiservercel.NewListType(declTypeOf(p[0]), -1)
		case 2:
			return apiservercel.NewMapType(declTypeOf(p[0]), declTypeOf(p[1]), -1)
		}
	}
	return apiservercel.DynType
}

// celIdentifier is CEL's IDENT production.
var celIdentifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// celReserved are CEL's reserved words, which no identifier may be.
var celReserved = map[string]bool{"true": true, "false": true, "null": true, "in": true, "as": true, "break": true,
	"const": true, "continue": true, "else": true, "for": true, "function": true, "if": true, "import": true,
	"let": true, "loop": true, "package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true}

// IsIdentifier reports whether name is a CEL identifier that is not a reserved word, as a
// policy variable's name must be (kube's isCELIdentifier).
func IsIdentifier(name string) bool {
	return celIdentifier.MatchString(name) && !celReserved[name]
}
