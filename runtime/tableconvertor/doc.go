// Package tableconvertor renders objects as a metav1.Table for `kubectl get`, from printer
// columns given as JSONPaths, with the semantics of kube-apiserver's CustomResourceDefinition
// printer columns (k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor):
// a NAME column first, then the given columns, then AGE.
package tableconvertor
