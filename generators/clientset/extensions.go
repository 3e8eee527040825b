package clientset

import (
	"path"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/model"
)

// applyRequestPkg builds server-side apply requests, as client-gen's apply methods do.
const applyRequestPkg = "k8s.io/client-go/util/apply"

// extension is one +genclient:method resolved against its kind: the shape of the method as
// client-gen's templates give it for the verb, with or without a subresource.
type extension struct {
	kc kindClient
	m  model.ClientMethod
}

// sub reports whether the method uses client-gen's subresource template (create, list,
// update, get and apply have one; patch takes its subresources as arguments).
func (e extension) sub() bool {
	if e.m.Subresource == "" {
		return false
	}
	switch e.m.Verb {
	case "create", "list", "update", "get", "apply":
		return true
	}
	return false
}

// typeRef resolves an input or result override ("" for the kind, "Scale" in the kind's
// package, "k8s.io/api/autoscaling/v1.Scale") to its package path and name.
func (e extension) typeRef(override string) (pkg, name string) {
	if override == "" {
		return e.kc.k.Type.Name.Package, e.kc.k.Name
	}
	if i := strings.LastIndex(override, "."); i >= 0 {
		return override[:i], override[i+1:]
	}
	return e.kc.k.Type.Name.Package, override
}

func (e extension) input() *jen.Statement  { return jen.Qual(e.typeRef(e.m.Input)) }
func (e extension) result() *jen.Statement { return jen.Qual(e.typeRef(e.m.Result)) }

// resultList is the result type's list type (<Result>List in its package).
func (e extension) resultList() *jen.Statement {
	pkg, name := e.typeRef(e.m.Result)
	return jen.Qual(pkg, name+"List")
}

// inputApply is the apply configuration of the input type: in the tree for a type of the
// kind's package, else, as client-gen, under the tree's applyconfiguration at the input
// package's last two path elements ("autoscaling/v1").
func (e extension) inputApply() *jen.Statement {
	pkg, name := e.typeRef(e.m.Input)
	if pkg == e.kc.k.Type.Name.Package {
		return jen.Qual(e.kc.t.ApplyPath(e.kc.gv.Segment()), name+"ApplyConfiguration")
	}
	return jen.Qual(e.kc.t.ApplyPath(path.Join(path.Base(path.Dir(pkg)), path.Base(pkg))), name+"ApplyConfiguration")
}

// inputName is the parameter name of the input object: the input type's name, lower-cased first.
func (e extension) inputName() string {
	_, name := e.typeRef(e.m.Input)
	return clientlayout.Private(name)
}

// nameParam is the parameter naming the object: "<kind>Name" in subresource methods.
func (e extension) nameParam() string {
	if e.sub() {
		return e.kc.private() + "Name"
	}
	return "name"
}

// params returns the method's parameters after ctx.
func (e extension) params() []jen.Code {
	named := func(extra ...jen.Code) []jen.Code {
		if e.sub() {
			return append([]jen.Code{jen.Id(e.nameParam()).String()}, extra...)
		}
		return extra
	}
	switch e.m.Verb {
	case "get":
		return []jen.Code{jen.Id(e.nameParam()).String(), jen.Id("options").Add(meta("GetOptions"))}
	case "list":
		return named(jen.Id("opts").Add(meta("ListOptions")))
	case "create":
		return named(jen.Id(e.inputName()).Op("*").Add(e.input()), jen.Id("opts").Add(meta("CreateOptions")))
	case "update":
		return named(jen.Id(e.inputName()).Op("*").Add(e.input()), jen.Id("opts").Add(meta("UpdateOptions")))
	case "patch":
		return []jen.Code{jen.Id("name").String(), jen.Id("pt").Qual(clientlayout.TypesPkg, "PatchType"), jen.Id("data").Index().Byte(),
			jen.Id("opts").Add(meta("PatchOptions")), jen.Id("subresources").Op("...").String()}
	case "apply":
		return named(jen.Id(e.inputName()).Op("*").Add(e.inputApply()), jen.Id("opts").Add(meta("ApplyOptions")))
	}
	return nil
}

// resultType is what the method returns besides the error.
func (e extension) resultType() *jen.Statement {
	if e.m.Verb == "list" {
		return jen.Op("*").Add(e.resultList())
	}
	return jen.Op("*").Add(e.result())
}

// extensionSignature is the method as listed in the kind's Interface.
func (kc kindClient) extensionSignature(m model.ClientMethod) *jen.Statement {
	e := extension{kc: kc, m: m}
	return jen.Id(m.Name).Params(append([]jen.Code{ctx()}, e.params()...)...).
		Params(jen.Id("result").Add(e.resultType()), jen.Err().Error())
}

// extensionMethod adds the method's implementation on the typed client, as client-gen's
// templates: a request built on the gentype client's REST client.
func (kc kindClient) extensionMethod(f *jen.File, m model.ClientMethod) {
	e := extension{kc: kc, m: m}
	var body []jen.Code
	req := jen.Id("c").Dot("GetClient").Call()
	switch m.Verb {
	case "get", "list":
		req = req.Dot("Get").Call()
	case "create":
		req = req.Dot("Post").Call()
	case "update":
		req = req.Dot("Put").Call()
	case "patch":
		req = req.Dot("Patch").Call(jen.Id("pt"))
	case "apply":
		body = append(body,
			jen.If(jen.Id(e.inputName()).Op("==").Nil()).Block(jen.Return(jen.Nil(),
				jen.Qual("fmt", "Errorf").Call(jen.Lit(e.inputName()+" provided to "+m.Name+" must not be nil")))),
			jen.Id("patchOpts").Op(":=").Id("opts").Dot("ToPatchOptions").Call())
		if !e.sub() {
			body = append(body, jen.Id("name").Op(":=").Id(e.inputName()).Dot("Name"),
				jen.If(jen.Id("name").Op("==").Nil()).Block(jen.Return(jen.Nil(),
					jen.Qual("fmt", "Errorf").Call(jen.Lit(e.inputName()+".Name must be provided to "+m.Name)))))
		}
		body = append(body, jen.List(jen.Id("request"), jen.Err()).Op(":=").Qual(applyRequestPkg, "NewRequest").Call(jen.Id("c").Dot("GetClient").Call(), jen.Id(e.inputName())),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		req = jen.Id("request")
	}
	if m.Verb == "list" {
		body = append(body, jen.Var().Id("timeout").Qual("time", "Duration"),
			jen.If(jen.Id("opts").Dot("TimeoutSeconds").Op("!=").Nil()).Block(
				jen.Id("timeout").Op("=").Qual("time", "Duration").Call(jen.Op("*").Id("opts").Dot("TimeoutSeconds")).Op("*").Qual("time", "Second")))
	}
	if kc.k.Namespaced {
		req = req.Dot("Namespace").Call(jen.Id("c").Dot("GetNamespace").Call())
	}
	req = req.Dot("Resource").Call(jen.Lit(kc.k.Plural))
	req = e.chainName(req)
	if e.sub() {
		req = req.Dot("SubResource").Call(jen.Lit(m.Subresource))
	} else if m.Verb == "patch" {
		req = req.Dot("SubResource").Call(jen.Id("subresources").Op("..."))
	}
	req = e.chainParams(req)
	body = append(body, jen.Id("result").Op("=").Add(e.newResult()))
	body = append(body, jen.Err().Op("=").Add(req.Dot("Do").Call(jen.Id("ctx")).Dot("Into").Call(jen.Id("result"))), jen.Return())
	f.Commentf("%s %s.", m.Name, e.describe())
	f.Func().Params(jen.Id("c").Op("*").Id(kc.privatePlural())).Id(m.Name).Params(append([]jen.Code{ctx()}, e.params()...)...).
		Params(jen.Id("result").Add(e.resultType()), jen.Err().Error()).Block(body...)
}

// newResult is the expression allocating the result: &Result{} or &ResultList{}.
func (e extension) newResult() *jen.Statement {
	if e.m.Verb == "list" {
		return jen.Op("&").Add(e.resultList()).Values()
	}
	return jen.Op("&").Add(e.result()).Values()
}

// chainName adds .Name(...) to req where the method names an object.
func (e extension) chainName(req *jen.Statement) *jen.Statement {
	switch {
	case e.sub():
		return req.Dot("Name").Call(jen.Id(e.nameParam()))
	case e.m.Verb == "get", e.m.Verb == "patch":
		return req.Dot("Name").Call(jen.Id("name"))
	case e.m.Verb == "update":
		return req.Dot("Name").Call(jen.Id(e.inputName()).Dot("Name"))
	case e.m.Verb == "apply":
		return req.Dot("Name").Call(jen.Op("*").Id("name"))
	}
	return req
}

// chainParams adds the options and the body to req.
func (e extension) chainParams(req *jen.Statement) *jen.Statement {
	codec := jen.Qual(e.kc.t.ClientsetPath()+"/scheme", "ParameterCodec")
	switch e.m.Verb {
	case "get":
		return req.Dot("VersionedParams").Call(jen.Op("&").Id("options"), codec)
	case "list":
		return req.Dot("VersionedParams").Call(jen.Op("&").Id("opts"), codec).Dot("Timeout").Call(jen.Id("timeout"))
	case "create", "update":
		return req.Dot("VersionedParams").Call(jen.Op("&").Id("opts"), codec).Dot("Body").Call(jen.Id(e.inputName()))
	case "patch":
		return req.Dot("VersionedParams").Call(jen.Op("&").Id("opts"), codec).Dot("Body").Call(jen.Id("data"))
	case "apply":
		return req.Dot("VersionedParams").Call(jen.Op("&").Id("patchOpts"), codec)
	}
	return req
}

// describe is the doc comment of the method after its name.
func (e extension) describe() string {
	what := "the " + e.kc.private()
	if e.m.Subresource != "" {
		what = "the " + e.m.Subresource + " subresource of the " + e.kc.private()
	}
	switch e.m.Verb {
	case "get":
		return "reads " + what
	case "list":
		return "lists " + what
	case "create":
		return "creates " + what
	case "update":
		return "replaces " + what
	case "patch":
		return "patches " + what
	}
	return "applies the given apply configuration to " + what
}
