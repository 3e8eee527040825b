// Package storagetest is the conformance suite every storage.Interface implementation runs:
// RunTests drives a backend through create, get, list (paging, continue tokens, selectors,
// compaction), guaranteed updates, deletes with preconditions and watches (initial state,
// selector transitions, 410 after compaction, bookmarks, streaming lists), lists equal to a
// reference's (etcd's) at random revisions with random selectors and page sizes, and
// read-your-writes across replicas, with one subtest per behaviour. Objects are testapi.Widgets. The suite is modelled on
// k8s.io/apiserver/pkg/storage/testing; it runs subtests sequentially and keeps every wait
// bounded, so a whole run takes a few seconds.
package storagetest
