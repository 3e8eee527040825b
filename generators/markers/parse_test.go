package markers_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/markerset"
	"github.com/apigen-dev/apigen/generators/model"
)

func ptr[T any](v T) *T { return &v }

func lines(texts ...string) []markers.Line {
	out := make([]markers.Line, len(texts))
	for i, t := range texts {
		out[i] = markers.Line{Text: " " + t, Pos: model.Position{File: "types.go", Line: 10 + i, Col: 1}}
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		lines     []string
		want      model.Markers
		wantError string // substring of the joined diagnostics; "" means none
	}{
		{name: "gengo package", lines: []string{"Package doc.", "+groupName=db.example.com", "+k8s:deepcopy-gen=package", "+versionName=v1"},
			want: model.Markers{GroupName: "db.example.com", VersionName: "v1"}},
		{name: "bare flags", lines: []string{"+optional", "+listType=map", "+listMapKey=type", "+listMapKey=name"},
			want: model.Markers{Optional: true, ListType: "map", ListMapKey: []string{"type", "name"}}},
		{name: "minimum synonyms agree", lines: []string{"+kubebuilder:validation:Minimum=0", "+k8s:minimum=0", "+k8s:validation:minimum=0"},
			want: model.Markers{Validation: model.Validation{Minimum: ptr(0.0)}}},
		{name: "minimum conflict", lines: []string{"+kubebuilder:validation:Minimum=1", "+k8s:minimum=2"},
			want: model.Markers{Validation: model.Validation{Minimum: ptr(1.0)}}, wantError: "types.go:11:1: +k8s:minimum=2: conflicts with +kubebuilder:validation:Minimum=1"},
		{name: "wrong type", lines: []string{"+kubebuilder:validation:Minimum=abc"},
			wantError: "types.go:10:1: +kubebuilder:validation:Minimum=abc: cannot parse abc as a number"},
		{name: "wrong int", lines: []string{"+k8s:validation:maxLength=6.5"}, wantError: "cannot parse 6.5 as an integer"},
		{name: "kube-openapi maxLength", lines: []string{"+k8s:validation:maxLength=63", "+k8s:validation:pattern=`^[a-z]+$`"},
			want: model.Markers{Validation: model.Validation{MaxLength: ptr(int64(63)), Pattern: "^[a-z]+$"}}},
		{name: "codetag ifEnabled", lines: []string{"+k8s:ifEnabled(MyFeature)=+k8s:maxItems=10"},
			want: model.Markers{Validation: model.Validation{MaxItems: ptr(int64(10))}}},
		{name: "list item codetag", lines: []string{`+k8s:item(type: "Approved")=+k8s:zeroOrOneOfMember`}, wantError: "warning: +k8s:item(type: \"Approved\")=+k8s:zeroOrOneOfMember does nothing in apigen: list-item scoped validation is not generated"},
		{name: "required synonyms", lines: []string{"+required", "+kubebuilder:validation:Required"},
			want: model.Markers{Required: true}},
		{name: "k8s:required is also non-zero", lines: []string{"+required", "+k8s:required"},
			want: model.Markers{Required: true, NonZero: true}},
		{name: "default json", lines: []string{"+default=1"}, want: model.Markers{Default: ptr("1")}},
		{name: "default json object compacted", lines: []string{`+default={"a": [1, 2]}`}, want: model.Markers{Default: ptr(`{"a":[1,2]}`)}},
		{name: "default ref", lines: []string{"+default=ref(DefaultEngine)"}, wantError: "ref() defaults are not supported"},
		{name: "default invalid json", lines: []string{"+default=10Gi"}, wantError: "cannot parse 10Gi as JSON"},
		{name: "kubebuilder default bare", lines: []string{"+kubebuilder:default=10Gi"}, want: model.Markers{Default: ptr(`"10Gi"`)}},
		{name: "kubebuilder default quoted", lines: []string{`+kubebuilder:default="10Gi"`}, want: model.Markers{Default: ptr(`"10Gi"`)}},
		{name: "kubebuilder default number", lines: []string{"+kubebuilder:default=1"}, want: model.Markers{Default: ptr(`1`)}},
		{name: "kubebuilder default bool", lines: []string{"+kubebuilder:default=true"}, want: model.Markers{Default: ptr(`true`)}},
		{name: "kubebuilder default list", lines: []string{"+kubebuilder:default={a,b}"}, want: model.Markers{Default: ptr(`["a","b"]`)}},
		{name: "kubebuilder default map", lines: []string{`+kubebuilder:default={size: 1, name: "x,y"}`}, want: model.Markers{Default: ptr(`{"name":"x,y","size":1}`)}},
		{name: "default conflict", lines: []string{"+default=1", "+kubebuilder:default=2"}, want: model.Markers{Default: ptr("1")},
			wantError: "conflicts with +default=1"},
		{name: "default on required", lines: []string{"+required", "+default=1"}, want: model.Markers{Required: true, Default: ptr("1")},
			wantError: "types.go:11:1: +default=1: a required field cannot have a default"},
		{name: "optional and required", lines: []string{"+optional", "+kubebuilder:validation:Required"}, want: model.Markers{Optional: true, Required: true},
			wantError: "types.go:11:1: +kubebuilder:validation:Required: a field cannot be both optional and required (+optional); keep one"},
		{name: "optional synonyms", lines: []string{"+optional", "+kubebuilder:validation:Optional", "+k8s:optional"}, want: model.Markers{Optional: true}},
		{name: "codetag ifDisabled", lines: []string{"+k8s:ifDisabled(Gate)=+k8s:minLength=2"},
			want: model.Markers{Validation: model.Validation{MinLength: ptr(int64(2))}}},
		{name: "codetag ifEnabled kube-openapi inner", lines: []string{"+k8s:ifEnabled(Gate)=+k8s:validation:maxItems=3", "+k8s:maxItems=3"},
			want: model.Markers{Validation: model.Validation{MaxItems: ptr(int64(3))}}},
		{name: "codetag ifEnabled conflict", lines: []string{"+k8s:ifEnabled(Gate)=+k8s:maxItems=10", "+kubebuilder:validation:MaxItems=5"},
			want: model.Markers{Validation: model.Validation{MaxItems: ptr(int64(10))}}, wantError: "types.go:11:1: +kubebuilder:validation:MaxItems=5: conflicts with +k8s:ifEnabled(Gate)=+k8s:maxItems=10"},
		{name: "codetag ifEnabled not a marker", lines: []string{"+k8s:ifEnabled(Gate)=maxItems"}, wantError: "the value must be a marker"},
		{name: "all validation synonyms", lines: []string{
			"+kubebuilder:validation:Maximum=9", "+k8s:maximum=9", "+k8s:validation:maximum=9",
			"+kubebuilder:validation:ExclusiveMaximum=true", "+k8s:exclusiveMaximum=true",
			"+kubebuilder:validation:MinLength=1", "+k8s:minLength=1", "+k8s:validation:minLength=1",
			"+kubebuilder:validation:MinItems=2", "+k8s:validation:minItems=2",
			"+kubebuilder:validation:UniqueItems=true", "+k8s:validation:uniqueItems=true",
			"+kubebuilder:validation:Format=uuid", "+k8s:format=uuid", "+k8s:validation:format=uuid",
			"+kubebuilder:validation:Enum=a;b", "+k8s:validation:enum={a,b}"},
			want: model.Markers{Validation: model.Validation{Maximum: ptr(9.0), ExclusiveMaximum: true, MinLength: ptr(int64(1)),
				MinItems: ptr(int64(2)), UniqueItems: true, Format: "uuid", Enum: []string{`"a"`, `"b"`}}}},
		{name: "controller-tools list forms agree", lines: []string{"+kubebuilder:resource:shortName={db,dbs}", "+kubebuilder:printcolumn:name=N,type=string,JSONPath=.a"},
			want: model.Markers{Resource: &model.ResourceMarker{ShortNames: []string{"db", "dbs"}},
				PrinterColumns: []model.PrinterColumn{{Name: "N", Type: "string", JSONPath: ".a"}}}},
		{name: "gengo key value", lines: []string{"+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object", "+k8s:conversion-gen=example.com/apis/db", "+listType=set"},
			want: model.Markers{Root: true, ListType: "set", ConversionGen: "example.com/apis/db"}},
		{name: "xvalidation", lines: []string{`+kubebuilder:validation:XValidation:rule="self == oldSelf",message="engine is immutable"`,
			`+kubebuilder:validation:XValidation:rule="self.size() > 1",reason=FieldValueForbidden,fieldPath=".name",optionalOldSelf=true`},
			want: model.Markers{Validation: model.Validation{Rules: []model.ValidationRule{
				{Rule: "self == oldSelf", Message: "engine is immutable", Reason: "FieldValueInvalid", Pos: model.Position{File: "types.go", Line: 10, Col: 1}},
				{Rule: "self.size() > 1", Reason: "FieldValueForbidden", FieldPath: ".name", OptionalOldSelf: true, Pos: model.Position{File: "types.go", Line: 11, Col: 1}},
			}}}},
		{name: "xvalidation without rule", lines: []string{`+kubebuilder:validation:XValidation:message="x"`}, wantError: "rule is required"},
		{name: "xvalidation bad reason", lines: []string{`+kubebuilder:validation:XValidation:rule="true",reason=Oops`}, wantError: "reason must be one of"},
		{name: "multipleOf and properties", lines: []string{"+kubebuilder:validation:MultipleOf=5", "+k8s:minProperties=1", "+k8s:validation:maxProperties=3"},
			want: model.Markers{Validation: model.Validation{MultipleOf: ptr(5.0), MinProperties: ptr(int64(1)), MaxProperties: ptr(int64(3))}}},
		{name: "enum", lines: []string{"+kubebuilder:validation:Enum=postgres;mysql;3"},
			want: model.Markers{Validation: model.Validation{Enum: []string{`"postgres"`, `"mysql"`, `3`}}}},
		{name: "enum braces", lines: []string{`+kubebuilder:validation:Enum={"a b",c}`},
			want: model.Markers{Validation: model.Validation{Enum: []string{`"a b"`, `"c"`}}}},
		{name: "resource", lines: []string{"+kubebuilder:resource:path=dbs,scope=Cluster,shortName=db;dbs,categories={all,data},singular=db"},
			want: model.Markers{Resource: &model.ResourceMarker{Path: "dbs", Scope: "Cluster", ShortNames: []string{"db", "dbs"}, Categories: []string{"all", "data"}, Singular: "db"}}},
		{name: "resource bad scope", lines: []string{"+kubebuilder:resource:scope=Global"}, wantError: "scope must be Namespaced or Cluster"},
		{name: "resource unknown arg", lines: []string{"+kubebuilder:resource:paht=x"}, wantError: `unknown argument "paht"`},
		{name: "root and status", lines: []string{"+kubebuilder:object:root=true", "+kubebuilder:subresource:status", "+kubebuilder:storageversion"},
			want: model.Markers{Root: true, StatusSub: true, StorageVersion: true}},
		{name: "genclient", lines: []string{"+genclient", "+genclient:nonNamespaced", "+genclient:noStatus"},
			want: model.Markers{Root: true, GenClient: true, NonNamespaced: true, NoStatus: true}},
		{name: "deepcopy interfaces", lines: []string{"+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"},
			want: model.Markers{Root: true}},
		{name: "scale", lines: []string{"+kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector"},
			want: model.Markers{Scale: &model.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"}}},
		{name: "scale missing path", lines: []string{"+kubebuilder:subresource:scale:specpath=.spec.replicas"}, wantError: "specpath and statuspath are required"},
		{name: "selectable fields", lines: []string{"+kubebuilder:selectablefield:JSONPath=`.spec.engine`", `+kubebuilder:selectablefield:JSONPath=".spec.tier"`},
			want: model.Markers{SelectableFields: []string{".spec.engine", ".spec.tier"}}},
		{name: "selectable field repeated", lines: []string{"+kubebuilder:selectablefield:JSONPath=.spec.a", "+kubebuilder:selectablefield:JSONPath=.spec.a"},
			want: model.Markers{SelectableFields: []string{".spec.a"}}, wantError: "types.go:11:1: +kubebuilder:selectablefield:JSONPath=.spec.a: field .spec.a is already selectable"},
		{name: "selectable field not dotted", lines: []string{"+kubebuilder:selectablefield:JSONPath=spec.a"}, wantError: "JSONPath must be a dotted path"},
		{name: "selectable field filter", lines: []string{"+kubebuilder:selectablefield:JSONPath=`.spec.items[0].name`"}, wantError: "JSONPath must be a dotted path"},
		{name: "CRD metadata", lines: []string{`+kubebuilder:metadata:labels="gateway.networking.k8s.io/policy=Direct"`,
			`+kubebuilder:metadata:annotations="a.example.com/x=1";"b=2",labels=app=shop`},
			want: model.Markers{CRDAnnotations: []string{"a.example.com/x=1", "b=2"}, CRDLabels: []string{"gateway.networking.k8s.io/policy=Direct", "app=shop"}}},
		{name: "CRD annotation without value", lines: []string{`+kubebuilder:metadata:annotations=approved`}, wantError: "annotation approved is not in 'key=value' format"},
		{name: "printcolumns", lines: []string{
			"+kubebuilder:printcolumn:name=\"Engine\",type=string,JSONPath=`.spec.engine`",
			`+kubebuilder:printcolumn:name="Max, Storage",type=integer,JSONPath=".spec.max",priority=1,description="the max"`},
			want: model.Markers{PrinterColumns: []model.PrinterColumn{
				{Name: "Engine", Type: "string", JSONPath: ".spec.engine"},
				{Name: "Max, Storage", Type: "integer", JSONPath: ".spec.max", Priority: 1, Description: "the max"}}}},
		{name: "printcolumn bad type", lines: []string{"+kubebuilder:printcolumn:name=x,type=text,JSONPath=.a"}, wantError: "type must be one of"},
		{name: "misspelt kubebuilder", lines: []string{"+kubebuilder:validaton:Minimum=0"},
			wantError: "types.go:10:1: warning: unknown marker +kubebuilder:validaton:Minimum (did you mean +kubebuilder:validation:Minimum?)"},
		{name: "misspelt kubebuilder resource", lines: []string{"+kubebuilder:resourse:path=x"},
			wantError: "did you mean +kubebuilder:resource?"},
		{name: "misspelt bare", lines: []string{"+optinal"}, wantError: "did you mean +optional?"},
		{name: "misspelt k8s", lines: []string{"+k8s:maxLenght=3"}, wantError: "did you mean +k8s:maxLength?"},
		{name: "colon-equals form", lines: []string{"+kubebuilder:default:=Allow", "+kubebuilder:validation:Minimum:=1", "+kubebuilder:validation:Enum:=Allow;Deny"},
			want: model.Markers{Default: ptr(`"Allow"`), Validation: model.Validation{Minimum: ptr(1.0), Enum: []string{`"Allow"`, `"Deny"`}}}},
		{name: "book and scaffold markers quiet", lines: []string{"+kubebuilder:docs-gen:collapse=Imports", "+kubebuilder:scaffold:imports",
			"+operator-sdk:csv:customresourcedefinitions:displayName=\"Size\""}},
		{name: "unknown kubebuilder marker far from any", lines: []string{"+kubebuilder:frobnicate=1"},
			wantError: "types.go:10:1: warning: unknown marker +kubebuilder:frobnicate: apigen and controller-gen ignore it"},
		{name: "externalDocs not written", lines: []string{`+kubebuilder:externalDocs:url="https://example.com",description="more"`},
			wantError: "warning: +kubebuilder:externalDocs:url=\"https://example.com\",description=\"more\" does nothing in apigen: apigen writes no externalDocs"},
		{name: "unknown namespaces ignored", lines: []string{"+protobuf=true", "+x-kubernetes-foo=bar", "+k8s:somethingNew=1"}},
		{name: "unhonored", lines: []string{"+patchStrategy=merge"}, wantError: "types.go:10:1: warning: +patchStrategy=merge does nothing in apigen: apigen publishes no x-kubernetes-patch-strategy"},
		{name: "switched off", lines: []string{"+k8s:deepcopy-gen=false"}, wantError: "warning: +k8s:deepcopy-gen=false does nothing in apigen: it generates deepcopy for every type anyway"},
		{name: "switched on", lines: []string{"+k8s:deepcopy-gen=package", "+k8s:openapi-gen=true", "+kubebuilder:object:generate=true"}},
		{name: "unhonored families", lines: []string{"+kubebuilder:rbac:groups=x,resources=y,verbs=get", "+k8s:validation:cel[0]:rule>self > 0"},
			wantError: "types.go:11:1: warning: +k8s:validation:cel[0]:rule>self > 0 does nothing in apigen: kube-openapi's CEL tags are not generated"},
		{name: "items", lines: []string{"+kubebuilder:validation:items:Minimum=1", "+kubebuilder:validation:items:MaxLength=5", "+kubebuilder:validation:MaxItems=3"},
			want: model.Markers{Validation: model.Validation{MaxItems: ptr[int64](3), Items: &model.Validation{Minimum: ptr(1.0), MaxLength: ptr[int64](5)}}}},
		{name: "eachVal and eachKey", lines: []string{"+k8s:eachVal=+k8s:minimum=1", "+k8s:eachVal=+k8s:maximum=9", "+k8s:eachKey=+k8s:maxLength=8"},
			want: model.Markers{Validation: model.Validation{Items: &model.Validation{Minimum: ptr(1.0), Maximum: ptr(9.0)}, Keys: &model.Validation{MaxLength: ptr[int64](8)}}}},
		{name: "eachVal without a marker", lines: []string{"+k8s:eachVal=3"}, wantError: "the value must be a marker"},
		{name: "declarative", lines: []string{"+k8s:immutable", "+k8s:update=NoUnset", "+k8s:update=NoModify", "+k8s:maxBytes=64", `+k8s:neq="none"`, "+k8s:neq=0", "+k8s:unique=set", "+nullable"},
			want: model.Markers{Validation: model.Validation{Immutable: true, Update: []string{"NoUnset", "NoModify"}, MaxBytes: ptr[int64](64),
				NEQ: []string{`"none"`, "0"}, Unique: "set", Nullable: true}}},
		{name: "update bad value", lines: []string{"+k8s:update=NoChange"}, wantError: `the value must be one of NoSet, NoUnset, NoModify, NoAddItem, NoRemoveItem, not "NoChange"`},
		{name: "unique bad value", lines: []string{"+k8s:unique=list"}, wantError: "the value must be set or map"},
		{name: "union", lines: []string{`+k8s:unionMember(union: "source", memberName: "Git")`, `+k8s:unionDiscriminator(union: "source")`},
			want: model.Markers{Validation: model.Validation{UnionMember: &model.UnionMember{Union: "source", MemberName: "Git"}, UnionDiscriminator: ptr("source")}}},
		{name: "union unnamed", lines: []string{"+k8s:unionMember", "+k8s:unionDiscriminator"},
			want: model.Markers{Validation: model.Validation{UnionMember: &model.UnionMember{}, UnionDiscriminator: ptr("")}}},
		{name: "union bad argument", lines: []string{`+k8s:unionMember(group: "x")`}, wantError: `unknown argument "group"`},
		{name: "codetag syntax", lines: []string{`+k8s:unionMember(union: "x"`}, wantError: "(as gengo's codetags parses it)"},
		{name: "one of", lines: []string{"+kubebuilder:validation:ExactlyOneOf={git,oci}", "+kubebuilder:validation:AtMostOneOf=a;b;c",
			"+kubebuilder:validation:AtLeastOneOf={x,y}", `+kubebuilder:validation:XValidation:rule="self.a != 'z'"`},
			want: model.Markers{Validation: model.Validation{Rules: []model.ValidationRule{
				{Rule: "self.a != 'z'", Reason: "FieldValueInvalid", Pos: model.Position{File: "types.go", Line: 13, Col: 1}},
				{Rule: "(has(self.a)?1:0)+(has(self.b)?1:0)+(has(self.c)?1:0) <= 1", Message: "at most one of the fields in [a b c] may be set",
					Reason: "FieldValueInvalid", Pos: model.Position{File: "types.go", Line: 11, Col: 1}},
				{Rule: "(has(self.git)?1:0)+(has(self.oci)?1:0) == 1", Message: "exactly one of the fields in [git oci] must be set",
					Reason: "FieldValueInvalid", Pos: model.Position{File: "types.go", Line: 10, Col: 1}},
				{Rule: "has(self.x)||has(self.y)", Message: "at least one of the fields in [x y] must be set",
					Reason: "FieldValueInvalid", Pos: model.Position{File: "types.go", Line: 12, Col: 1}},
			}}}},
		{name: "one of needs two", lines: []string{"+kubebuilder:validation:ExactlyOneOf={git}"}, wantError: "name at least two fields"},
		{name: "not markers", lines: []string{"+ a plus sign", "+1 is a number", "text"}},
		{name: "genclient verbs", lines: []string{"+genclient", "+genclient:onlyVerbs=get,list", "+genclient:skipVerbs=apply", "+genclient:readonly", "+genclient:noVerbs"},
			want: model.Markers{Root: true, GenClient: true, OnlyVerbs: []string{"get", "list"}, SkipVerbs: []string{"apply"}, ReadOnly: true, NoVerbs: true}},
		{name: "genclient unknown verb", lines: []string{"+genclient:onlyVerbs=get,frob"}, wantError: `unknown verb "frob"`},
		{name: "genclient methods", lines: []string{
			"+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale",
			"+genclient:method=CreateToken,verb=create,subresource=token,input=TokenRequest,result=TokenRequest"},
			want: model.Markers{ClientMethods: []model.ClientMethod{
				{Name: "GetScale", Verb: "get", Subresource: "scale", Result: "k8s.io/api/autoscaling/v1.Scale", Pos: model.Position{File: "types.go", Line: 10, Col: 1}},
				{Name: "CreateToken", Verb: "create", Subresource: "token", Input: "TokenRequest", Result: "TokenRequest", Pos: model.Position{File: "types.go", Line: 11, Col: 1}}}}},
		{name: "genclient method without verb", lines: []string{"+genclient:method=GetScale"}, wantError: "the verb must be given"},
		{name: "genclient method bad verb", lines: []string{"+genclient:method=Stream,verb=watch"}, wantError: `verb "watch" is not supported`},
		{name: "genclient method unknown argument", lines: []string{"+genclient:method=GetScale,verb=get,colour=red"}, wantError: `unknown argument "colour"`},
		{name: "genclient method input on get", lines: []string{"+genclient:method=GetScale,verb=get,input=Scale"}, wantError: "an input type is not supported"},
		{name: "genclient method twice", lines: []string{"+genclient:method=A,verb=get", "+genclient:method=A,verb=list"}, wantError: "method A is declared twice",
			want: model.Markers{ClientMethods: []model.ClientMethod{{Name: "A", Verb: "get", Pos: model.Position{File: "types.go", Line: 10, Col: 1}}}}},
		{name: "version markers", lines: []string{"+kubebuilder:skipversion", "+kubebuilder:unservedversion", `+kubebuilder:deprecatedversion:warning="going away"`},
			want: model.Markers{SkipVersion: true, UnservedVersion: true, DeprecatedVersion: true, DeprecationText: ptr("going away")}},
		{name: "deprecated without warning", lines: []string{"+kubebuilder:deprecatedversion"}, want: model.Markers{DeprecatedVersion: true}},
		{name: "deprecated bad argument", lines: []string{"+kubebuilder:deprecatedversion:message=x"}, wantError: `unknown argument "message"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := markerset.Registry().Parse(lines(tt.lines...))
			if tt.wantError == "" && len(diags) > 0 {
				t.Fatalf("Parse() diagnostics:\n%v", diags)
			}
			if tt.wantError != "" && !strings.Contains(diags.Error(), tt.wantError) {
				t.Fatalf("Parse() diagnostics = %q, want substring %q", diags.Error(), tt.wantError)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDocAndHas(t *testing.T) {
	ls := lines("Database is a managed database.", "", "+genclient", "+genclient:noStatus", "It has a spec.")
	ls = append(ls, markers.Line{Text: "go:generate echo hi"}, markers.Line{Text: "nolint:lll"})
	if got, want := markers.Doc(ls), "Database is a managed database.\n\nIt has a spec."; got != want {
		t.Errorf("Doc() = %q, want %q", got, want)
	}
	if !markers.Has(ls, "genclient:noStatus") || markers.Has(ls, "genclient:nonNamespaced") {
		t.Errorf("Has() wrong for %v", ls)
	}
}

func TestGluedToFunc(t *testing.T) {
	for text, want := range map[string]string{
		" +kubebuilder:validation:Minimum=0":              "kubebuilder:validation:Minimum",
		" +optional":                                      "optional",
		" +k8s:ifEnabled(X)=+k8s:maxItems=1":              "k8s:ifEnabled",
		" +k8s:conversion-fn=copy-only":                   "",
		" +kubebuilder:rbac:groups=x,resources=y":         "",
		" +kubebuilder:webhook:path=/mutate,verbs=create": "",
		" +protobuf=true":                                 "",
		" SetDefaults_Database sets defaults.":            "",
	} {
		if got := markerset.Registry().GluedToFunc(text); got != want {
			t.Errorf("GluedToFunc(%q) = %q, want %q", text, got, want)
		}
	}
}
