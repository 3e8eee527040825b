// Package admissiontest is what the tests of the webhook and policy plugins share: an Env
// holding, as a server does, the admission configurations, namespaces and Widgets (served
// as test.apigen.dev v1 and v2 over one internal type) in a real embedded etcd, and the
// initialisation a server gives its admission plugins. It is imported by tests only.
package admissiontest
