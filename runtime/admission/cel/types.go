package cel

import (
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// declField builds an object field of kube's declared admission types.
func declField(name string, t *apiservercel.DeclType, required bool) *apiservercel.DeclField {
	return apiservercel.NewDeclField(name, t, required, nil, nil)
}

func declFields(fields ...*apiservercel.DeclField) map[string]*apiservercel.DeclField {
	out := make(map[string]*apiservercel.DeclField, len(fields))
	for _, f := range fields {
		out[f.Name] = f
	}
	return out
}

// requestType is the type of the request variable, as kube's BuildRequestType: an
// AdmissionRequest without uid, object and oldObject.
func requestType() *apiservercel.DeclType {
	str, strList := apiservercel.StringType, apiservercel.NewListType(apiservercel.StringType, -1)
	gvk := apiservercel.NewObjectType("kubernetes.GroupVersionKind", declFields(
		declField("group", str, true), declField("version", str, true), declField("kind", str, true)))
	gvr := apiservercel.NewObjectType("kubernetes.GroupVersionResource", declFields(
		declField("group", str, true), declField("version", str, true), declField("resource", str, true)))
	userInfo := apiservercel.NewObjectType("kubernetes.UserInfo", declFields(
		declField("username", str, false), declField("uid", str, false), declField("groups", strList, false),
		declField("extra", apiservercel.NewMapType(str, strList, -1), false)))
	return apiservercel.NewObjectType("kubernetes.AdmissionRequest", declFields(
		declField("kind", gvk, true), declField("resource", gvr, true), declField("subResource", str, false),
		declField("requestKind", gvk, true), declField("requestResource", gvr, true),
		declField("requestSubResource", str, false), declField("name", str, true),
		declField("namespace", str, false), declField("operation", str, true),
		declField("userInfo", userInfo, true), declField("dryRun", apiservercel.BoolType, false),
		declField("options", apiservercel.DynType, false)))
}

// namespaceType is the type of the namespaceObject variable, as kube's BuildNamespaceType.
func namespaceType() *apiservercel.DeclType {
	str, strList := apiservercel.StringType, apiservercel.NewListType(apiservercel.StringType, -1)
	strMap := apiservercel.NewMapType(str, str, -1)
	spec := apiservercel.NewObjectType("kubernetes.NamespaceSpec", declFields(declField("finalizers", strList, true)))
	condition := apiservercel.NewObjectType("kubernetes.NamespaceCondition", declFields(
		declField("status", str, true), declField("type", str, true),
		declField("lastTransitionTime", apiservercel.TimestampType, true),
		declField("message", str, true), declField("reason", str, true)))
	status := apiservercel.NewObjectType("kubernetes.NamespaceStatus", declFields(
		declField("conditions", apiservercel.NewListType(condition, -1), true), declField("phase", str, true)))
	metadata := apiservercel.NewObjectType("kubernetes.NamespaceMetadata", declFields(
		declField("name", str, true), declField("generateName", str, true), declField("namespace", str, true),
		declField("labels", strMap, true), declField("annotations", strMap, true), declField("UID", str, true),
		declField("creationTimestamp", apiservercel.TimestampType, true),
		declField("deletionGracePeriodSeconds", apiservercel.IntType, true),
		declField("deletionTimestamp", apiservercel.TimestampType, true),
		declField("generation", apiservercel.IntType, true), declField("resourceVersion", str, true),
		declField("finalizers", strList, true)))
	return apiservercel.NewObjectType("kubernetes.Namespace", declFields(
		declField("metadata", metadata, true), declField("spec", spec, true), declField("status", status, true)))
}
