package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission/informer"
	fcinstall "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1/install"
	"github.com/apigen-dev/apigen/runtime/flowcontrol"
	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/server"
)

// flowcontrolV1 is the --runtime-config name of the API Priority and Fairness API.
const flowcontrolV1 = "flowcontrol.apiserver.k8s.io/v1"

// The post-start hooks of API Priority and Fairness, named as kube-apiserver's: the consumer
// reads the configuration (a list, then a watch) and returns once it has; the producer
// creates kube's default objects and keeps them.
const (
	apfConsumerHook = "priority-and-fairness-config-consumer"
	apfProducerHook = "priority-and-fairness-config-producer"
)

// flowControl is API Priority and Fairness: its API group and, with
// --enable-priority-and-fairness, the controller the handler chain admits requests through.
type flowControl struct {
	info       *registry.APIGroupInfo
	controller *flowcontrol.Controller // nil when APF is off
	log        *slog.Logger
}

// serveFlowControl builds flowcontrol.apiserver.k8s.io (unless --runtime-config turns it
// off) and, with --enable-priority-and-fairness and a concurrency limit, the controller
// sharing --max-requests-inflight plus --max-mutating-requests-inflight seats among the
// priority levels, as kube-apiserver. Errors: the group cannot be built, or APF is enabled
// while the API is turned off (kube-apiserver refuses that too).
func serveFlowControl(o *Options, log *slog.Logger, scheme *runtime.Scheme, factory registry.StorageFactory, m *metrics.Metrics) (*flowControl, error) {
	if !o.RuntimeConfigEnabled(flowcontrolV1) {
		if o.EnablePriorityAndFairness {
			return nil, fmt.Errorf("--enable-priority-and-fairness needs %s, turned off by --runtime-config (or --enable-priority-and-fairness=false)", flowcontrolV1)
		}
		return nil, nil
	}
	info, err := fcinstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		return nil, fmt.Errorf("cannot build the flowcontrol.apiserver.k8s.io API: %w", err)
	}
	fc := &flowControl{info: info, log: log}
	seats := o.MaxRequestsInFlight + o.MaxMutatingRequestsInFlight
	if o.EnablePriorityAndFairness && seats > 0 {
		if fc.controller, err = flowcontrol.New(seats, m.FlowControl(), log); err != nil {
			return nil, err
		}
		// A list takes a seat per 100 objects stored (the storage-object-count-tracker's
		// counts), as kube's work estimation.
		fc.controller.SetObjectCounts(func(group, resource string) (int64, bool) {
			return m.StorageObjects(schema.GroupResource{Group: group, Resource: resource}.String())
		})
	}
	return fc, nil
}

// handler is the handler chain's PriorityAndFairness filter, or nil when APF is off.
func (fc *flowControl) handler() func(http.Handler) http.Handler {
	if fc == nil || fc.controller == nil {
		return nil
	}
	return fc.controller.Handler
}

// install adds the consumer and producer hooks to srv: the first reads the configuration
// through the group's own storage and returns once it has it; the second creates kube's
// default objects (retrying every second until it can) and then keeps them.
func (fc *flowControl) install(srv *server.Server) error {
	if fc == nil || fc.controller == nil {
		return nil
	}
	stores := fc.info.VersionedResourcesStorageMap["v1"]
	schemas, ok1 := stores["flowschemas"].(flowcontrol.ObjectStore)
	levels, ok2 := stores["prioritylevelconfigurations"].(flowcontrol.ObjectStore)
	schemaSrc, ok3 := stores["flowschemas"].(informer.Source)
	levelSrc, ok4 := stores["prioritylevelconfigurations"].(informer.Source)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return fmt.Errorf("the flowcontrol.apiserver.k8s.io group serves no flowschemas or prioritylevelconfigurations store")
	}
	if err := srv.AddPostStartHook(apfConsumerHook, func(ctx context.Context) error {
		fc.controller.Run(ctx, schemaSrc, levelSrc)
		fc.controller.WaitForSync(ctx)
		return nil
	}); err != nil {
		return err
	}
	status, ok := stores["flowschemas/status"].(rest.Updater)
	if !ok {
		return fmt.Errorf("the flowcontrol.apiserver.k8s.io group serves no flowschemas/status store")
	}
	ensurer := &flowcontrol.Ensurer{Schemas: schemas, Levels: levels, SchemaStatus: status}
	return srv.AddPostStartHook(apfProducerHook, func(ctx context.Context) error {
		for {
			err := ensurer.Ensure(ctx)
			if err == nil {
				break
			}
			fc.log.Warn("cannot create the default flow control configuration; retrying", "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		}
		go fc.controller.Maintain(ctx, ensurer, func(err error) {
			fc.log.Warn("cannot keep the default flow control configuration", "err", err)
		})
		return nil
	})
}
