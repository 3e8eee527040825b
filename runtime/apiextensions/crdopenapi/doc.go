// Package crdopenapi builds the OpenAPI definitions of custom resources from their
// CustomResourceDefinition's schemas, as apiextensions-apiserver's
// pkg/controller/openapi/builder: per served version, the kind's definition (the
// openAPIV3Schema with apiVersion, kind and metadata added, the
// x-kubernetes-group-version-kind extension, and apiVersion, kind and metadata on
// x-kubernetes-embedded-resource nodes) and its list kind's, named as Kubernetes names
// them (openapi.KindModelName: "com.example.stable.v1.CronTab"). Definitions are those of the published documents
// (/openapi/v2 converted as upstream's ToStructuralOpenAPIV2, /openapi/v3 as written);
// TypeConverter turns the value-validation-free form into the structured-merge-diff
// TypeConverter of field management and server-side apply.
package crdopenapi
