package app

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// widgetDSN is set by --test-widget-dsn, a flag a main would add with app.Flags (added before
// any test runs, as a main adds it before app.Main).
var widgetDSN = func() *string {
	return Flags.String("test-widget-dsn", "", "where TestUserStorage's widgets are kept")
}()

// closingStorage is a storage that counts its Close calls.
type closingStorage struct {
	storage.Interface
	closed *atomic.Int32
}

func (s closingStorage) Close() error {
	s.closed.Add(1)
	return nil
}

// TestUserStorage: a group's own storage (registry.NewUserStorage, as an
// +apigen:storage=interface kind's generated store builds it) is built after the main's
// flags (app.Flags) are parsed, gets the server's logger and storage (Default), serves, and
// is closed once the server has stopped.
func TestUserStorage(t *testing.T) {
	t.Parallel()
	var closed atomic.Int32
	var dsn string
	t.Cleanup(func() { // after the server's own cleanup has stopped it
		if n := closed.Load(); n != 1 && !t.Skipped() {
			t.Errorf("the storage was closed %d times at shutdown, want once", n)
		}
	})
	gv := schema.GroupVersion{Group: "own.apigen.dev", Version: "v1"}
	group := func(scheme *runtime.Scheme, factory registry.StorageFactory) (*registry.APIGroupInfo, error) {
		return buildWidgetGroup(gv, scheme, ownStorage{factory, func(cfg registry.UserStorageConfig) (storage.Interface, error) {
			dsn = *widgetDSN
			if cfg.Logger == nil {
				t.Errorf("no logger in the configuration")
			}
			def, err := cfg.Default()
			if err != nil {
				return nil, err
			}
			return closingStorage{def, &closed}, nil
		}})
	}
	url, _ := startArgs(t, []string{"--plain-http", "--test-widget-dsn=postgres://here"}, group)
	if dsn != "postgres://here" {
		t.Errorf("the constructor read --test-widget-dsn %q, want postgres://here", dsn)
	}
	if code, body := httpGet(t, url+"/apis/own.apigen.dev/v1/namespaces/default/widgets"); code != 200 || !strings.Contains(body, `"kind":"WidgetList"`) {
		t.Errorf("list of widgets: %d %s", code, body)
	}
}

// ownStorage is a registry.StorageFactory whose NewStorage builds the storage with
// registry.NewUserStorage over the server's factory, as generated code of an
// +apigen:storage=interface kind does.
type ownStorage struct {
	server    registry.StorageFactory
	construct func(registry.UserStorageConfig) (storage.Interface, error)
}

func (o ownStorage) NewStorage(resource schema.GroupResource, version schema.GroupVersion, scheme *runtime.Scheme,
	newFunc func() runtime.Object) (storage.Interface, error) {
	return registry.NewUserStorage(o.server, scheme, registry.UserStorageConfig{Resource: resource, StorageVersion: version,
		NewFunc: newFunc, NewListFunc: testapi.NewWidgetList}, o.construct)
}

// TestMainFlagsShared: servers started side by side in one process each get the main's flags
// (app.Flags) without writing what the other reads; the race pass (make test) runs it under
// the race detector, which reported pflag's AddFlagSet rewriting the shared Flags. (The flags'
// values stay shared: they are the main's variables.)
func TestMainFlagsShared(t *testing.T) {
	t.Parallel()
	sets := make([]*pflag.FlagSet, 8)
	var wg sync.WaitGroup
	for i := range sets {
		sets[i] = pflag.NewFlagSet("server", pflag.ContinueOnError)
		wg.Go(func() {
			addMainFlags(sets[i])
			if err := sets[i].Parse(nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, fs := range sets {
		if f := fs.Lookup("test-widget-dsn"); f == nil || f == Flags.Lookup("test-widget-dsn") {
			t.Errorf("server %d: --test-widget-dsn is %p, want a Flag of its own", i, f)
		}
	}
}
