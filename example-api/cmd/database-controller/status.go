package main

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	applydbv1 "github.com/apigen-dev/apigen/example-api/pkg/generated/applyconfiguration/db/v1"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
)

// statusWriter writes a Database's status through its /status subresource. This is the one
// place that chooses update or server-side apply: the controller uses updateStatus (PUT,
// optimistic on the object's resourceVersion) until the example server serves apply patches;
// then --status-write=apply (applyStatus, the default to switch to) applies only the fields
// the controller owns, without conflicts with other writers of status.
type statusWriter interface {
	write(ctx context.Context, client versioned.Interface, db *dbv1.Database, status dbv1.DatabaseStatus) error
	name() string
}

// newStatusWriter returns the writer named by --status-write.
func newStatusWriter(name string) (statusWriter, error) {
	switch name {
	case "update":
		return updateStatus{}, nil
	case "apply":
		return applyStatus{}, nil
	}
	return nil, fmt.Errorf("--status-write must be update or apply, not %q", name)
}

// updateStatus writes status with UpdateStatus on a copy of the object read from the lister;
// a stale resourceVersion is a 409 Conflict, which the controller retries.
type updateStatus struct{}

func (updateStatus) name() string { return "update" }

func (updateStatus) write(ctx context.Context, client versioned.Interface, db *dbv1.Database, status dbv1.DatabaseStatus) error {
	obj := db.DeepCopy()
	obj.Status = status
	_, err := client.DbV1().Databases(db.Namespace).UpdateStatus(ctx, obj, updateOptions)
	return err
}

// applyStatus writes the controller's status fields with ApplyStatus (a server-side apply
// patch to /status, forced: the controller is the owner of these fields).
type applyStatus struct{}

func (applyStatus) name() string { return "apply" }

func (applyStatus) write(ctx context.Context, client versioned.Interface, db *dbv1.Database, status dbv1.DatabaseStatus) error {
	cfg := applydbv1.Database(db.Name, db.Namespace).WithStatus(applydbv1.DatabaseStatus().
		WithPhase(status.Phase).WithReadyReplicas(status.ReadyReplicas).WithObservedGeneration(status.ObservedGeneration))
	_, err := client.DbV1().Databases(db.Namespace).ApplyStatus(ctx, cfg, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	return err
}
