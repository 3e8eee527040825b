// Package corpustest holds the compatibility corpus's behaviour tests: each corpus group
// served in-process (real etcd, real HTTP, client-go's dynamic and discovery clients) and
// round-tripped through every version (apimachinery's roundtrip tests and fuzzed objects
// through the storage version). generators' TestCorpusBuilds runs them with `go test -overlay`
// over the files generated in that run, so they test what apigen generates now, even before
// the committed files are updated; `go test ./generators/testdata/corpus/...` runs them over
// the committed files.
package corpustest
