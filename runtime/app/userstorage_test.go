package app

import (
	"strings"
	"sync/atomic"
	"testing"

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
