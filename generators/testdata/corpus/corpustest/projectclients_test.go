package corpustest_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	robotsv1 "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/api/v1"
	applyrobotsv1 "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/pkg/generated/applyconfiguration/robots/v1"
	robotsclient "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/pkg/generated/clientset/versioned"
	robotsinformers "github.com/apigen-dev/apigen/generators/testdata/corpus/kubebuilder/pkg/generated/informers/externalversions"
)

// TestProjectLevelClients drives the kubebuilder tree's server with the clients that
// +apigen:clients=all, written once in the package comment, generates for types that carry no
// +genclient: Factory's cluster-scoped client applies a Factory (server-side apply through
// its apply configuration), Robot's client creates a Robot and updates its status through
// /status (served because of +kubebuilder:subresource:status, not because of the switch), and
// a typed informer lists it through its lister.
func TestProjectLevelClients(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and an API server")
	}
	cfg := startCorpusServer(t, serveGroups[1])
	client := robotsclient.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	applied, err := client.RobotsV1().Factories().Apply(ctx,
		applyrobotsv1.Factory("leeds").WithSpec(applyrobotsv1.FactorySpec().WithLocation("Leeds")),
		metav1.ApplyOptions{FieldManager: "planner"})
	if err != nil {
		t.Fatalf("apply a Factory: %v", err)
	}
	if applied.Spec.Shifts != 1 || len(applied.ManagedFields) != 1 || applied.ManagedFields[0].Manager != "planner" {
		t.Errorf("applied Factory: shifts %d, managedFields %+v; want the default 1 and one entry of planner",
			applied.Spec.Shifts, applied.ManagedFields)
	}

	robots := client.RobotsV1().Robots("default")
	robot, err := robots.Create(ctx, &robotsv1.Robot{ObjectMeta: metav1.ObjectMeta{Name: "r2"},
		Spec: robotsv1.RobotSpec{Model: "Scout"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a Robot: %v", err)
	}
	robot.Status.Ready = true
	if robot, err = robots.UpdateStatus(ctx, robot, metav1.UpdateOptions{}); err != nil || !robot.Status.Ready {
		t.Fatalf("UpdateStatus = %+v, %v; want status.ready", robot, err)
	}

	factory := robotsinformers.NewSharedInformerFactory(client, 0)
	lister := factory.Robots().V1().Robots().Lister()
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	if res := factory.WaitForCacheSyncWithContext(ctx); res.Err != nil {
		t.Fatalf("the typed informer did not sync: %v", res.Err)
	}
	listed, err := lister.Robots("default").List(labels.Everything())
	if err != nil || len(listed) != 1 || listed[0].Name != "r2" || !listed[0].Status.Ready {
		t.Errorf("lister lists %v, %v; want r2, ready", listed, err)
	}
}
