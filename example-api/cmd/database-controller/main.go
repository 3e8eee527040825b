// Command database-controller is the example API's controller, written against the typed
// clients apigen generates (example-api/pkg/generated), as a controller is written against
// code-generator's: a typed shared informer and lister watch Databases, and the typed
// clientset writes each Database's status through its /status subresource, setting
// status.phase to Ready, status.readyReplicas to spec.replicas and status.observedGeneration
// to metadata.generation, and records a Normal "Ready" Event on the Database (client-go's
// tools/record recorder, core/v1 Events) for `kubectl describe database` and `kubectl events`.
//
//	go run ./example-api/cmd/database-controller --kubeconfig apiserver-data/kubeconfig
//
// It runs until SIGINT or SIGTERM. Status is written with an update (UpdateStatus); see
// statusWriter for where server-side apply (ApplyStatus, --status-write=apply) takes over.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"

	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/informers/externalversions"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the controller until ctx ends and returns the exit code: 0 after a
// clean stop, 1 when it cannot start, 2 on a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("database-controller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "path to the kubeconfig of the API server (required)")
	namespace := fs.String("namespace", "", "namespace to watch; empty watches all")
	workers := fs.Int("workers", 2, "number of Databases reconciled concurrently")
	resync := fs.Duration("resync", 10*time.Minute, "how often every Database is reconciled again; 0 disables")
	write := fs.String("status-write", "update", `how status is written: "update" (PUT /status) or "apply" (server-side apply to /status)`)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	writer, err := newStatusWriter(*write)
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "database-controller:", err)
		return 2
	case *kubeconfig == "" || fs.NArg() > 0 || *workers < 1:
		fmt.Fprintln(stderr, "database-controller: --kubeconfig is required, no arguments are taken, --workers must be at least 1")
		return 2
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(stderr, "database-controller: cannot load %s: %v\n", *kubeconfig, err)
		return 1
	}
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "database-controller: cannot create the clientset: %v\n", err)
		return 1
	}
	recorder, stopEvents, err := newRecorder(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "database-controller: %v\n", err)
		return 1
	}
	defer stopEvents()
	factory := externalversions.NewSharedInformerFactoryWithOptions(client, *resync, externalversions.WithNamespace(*namespace))
	c := newController(client, factory, writer, recorder, stdout)
	if err := c.run(ctx, *workers); err != nil {
		fmt.Fprintf(stderr, "database-controller: %v\n", err)
		return 1
	}
	return 0
}

// newRecorder returns a client-go event recorder writing core/v1 Events through cfg's server
// as "database-controller", as kube's controllers record theirs, and the function that
// flushes and stops it.
func newRecorder(cfg *rest.Config) (record.EventRecorder, func(), error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create the events client: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := dbv1.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme, corev1.EventSource{Component: fieldManager})
	return recorder, broadcaster.Shutdown, nil
}
