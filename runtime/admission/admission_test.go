package admission

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// labeler is a mutating plugin that adds a label on create, recording the order it ran in.
type labeler struct{ trace *[]string }

func (labeler) Handles(op Operation) bool { return op == Create }
func (l labeler) Admit(_ context.Context, a *Attributes) error {
	*l.trace = append(*l.trace, "labeler")
	m := a.Object.(*metav1.PartialObjectMetadata)
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels["team"] = "unknown"
	return nil
}

// quota refuses more than max objects, seeing the mutated object.
type quota struct {
	trace *[]string
	seen  *map[string]string
}

func (quota) Handles(op Operation) bool { return op == Create || op == Update }
func (q quota) Validate(_ context.Context, a *Attributes) error {
	*q.trace = append(*q.trace, "quota")
	*q.seen = a.Object.(*metav1.PartialObjectMetadata).Labels
	if a.Name == "too-many" {
		return errors.New("exceeded quota: at most 3 databases per namespace")
	}
	if a.Name == "conflict" {
		return apierrors.NewConflict(a.Resource.GroupResource(), a.Name, errors.New("retry"))
	}
	return nil
}

func newPlugins(trace *[]string, seen *map[string]string) *Plugins {
	p := &Plugins{}
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	// Registered validating first to show that mutating plugins still run first.
	must(p.Register("Quota", false, func() (Interface, error) { return quota{trace, seen}, nil }))
	must(p.Register("Labeler", true, func() (Interface, error) { return labeler{trace}, nil }))
	must(p.Register("Broken", false, func() (Interface, error) { return nil, errors.New("no config") }))
	return p
}

func TestChain(t *testing.T) {
	var trace []string
	var seen map[string]string
	p := newPlugins(&trace, &seen)
	c, err := p.NewChain([]string{"Quota"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Quota", "Labeler"}, c.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	dbs := schema.GroupVersionResource{Group: "db.example.com", Version: "v1", Resource: "databases"}
	a := &Attributes{Operation: Create, Resource: dbs, Namespace: "team-a", Name: "main", Object: &metav1.PartialObjectMetadata{}}
	if err := c.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"labeler", "quota"}, trace); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if seen["team"] != "unknown" {
		t.Errorf("the validating plugin saw %v, not the mutated object", seen)
	}

	a.Name = "too-many"
	err = c.Admit(context.Background(), a)
	if !apierrors.IsForbidden(err) || err.Error() != `databases.db.example.com "too-many" is forbidden: exceeded quota: at most 3 databases per namespace` {
		t.Errorf("plain error: %v", err)
	}
	a.Name = "conflict"
	if err := c.Admit(context.Background(), a); !apierrors.IsConflict(err) {
		t.Errorf("status error kept: %v", err)
	}
	trace = nil
	a.Operation, a.Name = Delete, "main"
	if err := c.Admit(context.Background(), a); err != nil || len(trace) != 0 {
		t.Errorf("delete: %v, plugins ran: %v", err, trace)
	}

	c, err = p.NewChain(nil, []string{"Labeler"})
	if err != nil || len(c.Names()) != 0 {
		t.Errorf("disable the default: %v %v", c.Names(), err)
	}
}

func TestNewChainErrors(t *testing.T) {
	p := newPlugins(new([]string), new(map[string]string))
	for _, tc := range []struct {
		enable, disable []string
		want            string
	}{
		{[]string{"Qouta"}, nil, "unknown admission plugins Qouta; registered: Broken, Labeler, Quota"},
		{[]string{"Quota"}, []string{"Quota"}, `"Quota" is both enabled and disabled`},
		{[]string{"Broken"}, nil, `cannot create admission plugin "Broken": no config`},
	} {
		if _, err := p.NewChain(tc.enable, tc.disable); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v/%v: %v, want %q", tc.enable, tc.disable, err, tc.want)
		}
	}
	if err := p.Register("Quota", false, nil); err == nil {
		t.Error("registered a name twice")
	}
}
