// Package storagetest is the storage contract as a test kit: the conformance suite every
// storage.Interface implementation runs, the runtime's own (etcd3, the watch cache, etcd3
// on kine) and a backend author's. One call,
//
//	storagetest.Run(t, storagetest.Backend{New: newStore})
//
// drives the backend through create, get, list (paging, continue tokens, selectors,
// compaction), guaranteed updates, deletes with preconditions and watches (initial state,
// selector transitions, 410 after compaction, bookmarks, streaming lists), lists equal to a
// reference's (etcd's) at random revisions with random selectors and page sizes, and
// read-your-writes across replicas: one subtest per Guarantee, whose failure ends with
// "broken guarantee <name>: <what the layers above rely on>". Objects are
// storagetest/testapi.Widgets: a backend under test stores them with testapi.Codec() and
// testapi.NewWidget. The kit is modelled on k8s.io/apiserver/pkg/storage/testing; it runs
// subtests sequentially and keeps every wait bounded, so a whole run takes a few seconds.
package storagetest
