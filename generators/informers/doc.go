// Package informers is the generator of shared informers, as Kubernetes' informer-gen v0.37
// writes them (the same exported API), from the model apigen already loaded.
//
// For every +genclient kind whose tags allow list and watch (and not +genclient:noVerbs), in
// informers/externalversions of the tree of generated clients
// (generators/clientlayout):
//
//	factory.go, generic.go            SharedInformerFactory (WithNamespace, WithTweakListOptions,
//	                                  WithTransform, WithCustomResyncConfig, WithInformerName),
//	                                  ForResource and GenericInformer
//	internalinterfaces/               the factory interface informers are built on
//	<group>/interface.go              the group's versions
//	<group>/<version>/interface.go    the version's informers
//	<group>/<version>/<kind>.go       <Kind>Informer, Typed<Kind>Informer and their constructors
//
// An informer lists and watches through the typed clientset with client-go's
// ToListWatcherWithWatchListSemantics, so client-go's reflector syncs it with a streaming list
// (WatchList, sendInitialEvents=true) where the server supports it, and its lister reads the
// informer's indexer.
package informers
