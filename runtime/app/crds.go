package app

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/apiextensions"
	"github.com/apigen-dev/apigen/runtime/server"
)

// apiextensionsV1 is the --runtime-config name of the CustomResourceDefinition API.
const apiextensionsV1 = "apiextensions.k8s.io/v1"

// serveCRDs returns the typed server's delegate, as kube-apiserver's CreateServerChain puts
// the APIExtensionsServer behind the KubeAPIServer: the extensions server
// (runtime/apiextensions, serving apiextensions.k8s.io/v1 and the custom resources of its
// CRDs, then 404) unless --runtime-config turns apiextensions.k8s.io/v1 off, else the empty
// delegate. Custom resources and CRDs go through chain, the typed groups' admission chain.
// When namespaces are served (namespaces not nil), the namespace controller deletes the
// custom resources of a terminating namespace too.
// The extensions server is returned too (nil when the CRD API is off), for the garbage
// collector.
func serveCRDs(opts *Options, cfg server.Config, scheme *runtime.Scheme, factory storageFactory,
	chain *admission.Chain, namespaces *coreNamespaces) (server.DelegationTarget, *apiextensions.Extensions, error) {
	if !opts.RuntimeConfigEnabled(apiextensionsV1) {
		return server.NewEmptyDelegate(), nil, nil
	}
	ext, err := apiextensions.New(apiextensions.Config{Server: cfg, Scheme: scheme, Storage: factory, Admission: chain})
	if err != nil {
		return nil, nil, err
	}
	if namespaces != nil {
		namespaces.Controller().AddContentDeleter(ext.Handler)
	}
	return ext.Server, ext, nil
}
