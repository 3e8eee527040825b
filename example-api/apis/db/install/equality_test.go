package install_test

import (
	"math/rand"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/apigen-dev/apigen/example-api/apis/db"
	dbfuzzer "github.com/apigen-dev/apigen/example-api/apis/db/fuzzer"
	"github.com/apigen-dev/apigen/example-api/apis/db/install"
	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/apis/db/v1alpha1"
	"github.com/apigen-dev/apigen/generators/equality/equalitytest"
)

var dbCodecs = sync.OnceValue(func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	return serializer.NewCodecFactory(scheme)
})

// dbFill fills obj from seed with the round-trip test's fuzzer (metafuzzer's funcs and the
// group's fuzzer package, dbfuzzer.Funcs).
func dbFill[T any](seed int64, obj *T) {
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, dbfuzzer.Funcs), rand.NewSource(seed), dbCodecs())
	f.Fill(obj)
}

// TestSemanticEqualMatchesReference holds every generated SemanticEqual_T of the hub, v1 and
// v1alpha1 to equality.Semantic.DeepEqual on fuzzed values, copies, values sharing memory and
// one-field mutations (equalitytest.Check).
func TestSemanticEqualMatchesReference(t *testing.T) {
	const n = 60
	// The hub.
	equalitytest.Check(t, db.SemanticEqual_Backup, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_BackupList, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_BackupPolicy, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_BackupSpec, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_BackupStatus, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_Database, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_DatabaseClass, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_DatabaseClassList, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_DatabaseClassSpec, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_DatabaseList, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_DatabaseSpec, n, dbFill)
	equalitytest.Check(t, db.SemanticEqual_DatabaseStatus, n, dbFill)
	// v1.
	equalitytest.Check(t, v1.SemanticEqual_Backup, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_BackupList, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_BackupPolicy, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_BackupSpec, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_BackupStatus, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_Database, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_DatabaseClass, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_DatabaseClassList, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_DatabaseClassSpec, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_DatabaseList, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_DatabaseSpec, n, dbFill)
	equalitytest.Check(t, v1.SemanticEqual_DatabaseStatus, n, dbFill)
	// v1alpha1.
	equalitytest.Check(t, v1alpha1.SemanticEqual_BackupPolicy, n, dbFill)
	equalitytest.Check(t, v1alpha1.SemanticEqual_Database, n, dbFill)
	equalitytest.Check(t, v1alpha1.SemanticEqual_DatabaseClass, n, dbFill)
	equalitytest.Check(t, v1alpha1.SemanticEqual_DatabaseClassList, n, dbFill)
	equalitytest.Check(t, v1alpha1.SemanticEqual_DatabaseClassSpec, n, dbFill)
	equalitytest.Check(t, v1alpha1.SemanticEqual_DatabaseList, n, dbFill)
	equalitytest.Check(t, v1alpha1.SemanticEqual_DatabaseSpec, n, dbFill)
	equalitytest.Check(t, v1alpha1.SemanticEqual_DatabaseStatus, n, dbFill)
}
