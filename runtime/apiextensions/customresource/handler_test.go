package customresource

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	crschema "github.com/apigen-dev/apigen/runtime/validation/structural"
)

// TestCRUDWithDynamicClient creates, reads, lists, watches, updates, patches and deletes
// CronTabs with client-go's dynamic client, in the storage version and in another served
// version, and checks the admission chain saw every write.
func TestCRUDWithDynamicClient(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ns := f.dyn.Resource(cronTabs).Namespace("default")

	w, err := ns.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(cronTabJSON("v1", "my-new-cron-object", `"cronSpec":"* * * * */5","image":"my-awesome-cron-image","replicas":2`))); err != nil {
		t.Fatal(err)
	}
	created, err := ns.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 1 || created.GetAPIVersion() != "stable.example.com/v1" {
		t.Errorf("created = %v", created.Object)
	}
	select {
	case ev := <-w.ResultChan():
		if u, ok := ev.Object.(*unstructured.Unstructured); ev.Type != watch.Added || !ok || u.GetName() != "my-new-cron-object" {
			t.Errorf("watch event = %v %v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}

	// Read in the other served version: the same object, with that apiVersion.
	beta, err := f.dyn.Resource(cronTabsBeta).Namespace("default").Get(ctx, "my-new-cron-object", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get v1beta1: %v", err)
	}
	if beta.GetAPIVersion() != "stable.example.com/v1beta1" || beta.GetUID() != created.GetUID() {
		t.Errorf("v1beta1 object = %v", beta.Object)
	}
	if got := f.warnings.take(); !slices.Contains(got, "stable.example.com/v1beta1 CronTab is deprecated") {
		t.Errorf("warnings = %q, want the deprecation warning", got)
	}

	list, err := f.dyn.Resource(cronTabs).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list.Items) != 1 || list.GetKind() != "CronTabList" || list.Items[0].GetKind() != "CronTab" {
		t.Errorf("list = %v", list.UnstructuredContent())
	}

	betaList, err := f.dyn.Resource(cronTabsBeta).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list v1beta1: %v", err)
	}
	if len(betaList.Items) != 1 || betaList.GetAPIVersion() != "stable.example.com/v1beta1" || betaList.Items[0].GetAPIVersion() != "stable.example.com/v1beta1" {
		t.Errorf("v1beta1 list = %v", betaList.UnstructuredContent())
	}

	if err := unstructured.SetNestedField(created.Object, "other-image", "spec", "image"); err != nil {
		t.Fatal(err)
	}
	updated, err := ns.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.GetGeneration() != 2 {
		t.Errorf("generation after a spec change = %d, want 2", updated.GetGeneration())
	}
	patched, err := ns.Patch(ctx, "my-new-cron-object", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patch: %v", err)
	}
	if patched.GetLabels()["a"] != "b" || patched.GetGeneration() != 2 {
		t.Errorf("patched = %v", patched.Object)
	}
	if _, err := ns.Patch(ctx, "my-new-cron-object", types.StrategicMergePatchType, []byte(`{"spec":{"image":"x"}}`), metav1.PatchOptions{}); !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch: %v, want 415 UnsupportedMediaType", err)
	}
	if _, err := ns.Update(ctx, created, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v, want 409 Conflict", err)
	}

	if err := ns.Delete(ctx, "my-new-cron-object", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := ns.Get(ctx, "my-new-cron-object", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want 404", err)
	}
	want := []string{"CREATE crontabs/ CronTab", "UPDATE crontabs/ CronTab", "UPDATE crontabs/ CronTab", "DELETE crontabs/ CronTab"}
	if got := f.admitted.seen(); !slices.Equal(got, want) {
		t.Errorf("admission saw %q, want %q", got, want)
	}
}

// TestDiscovery reads the group and its resources with client-go's discovery client, as
// kubectl's RESTMapper does.
func TestDiscovery(t *testing.T) {
	f := newFixture(t)
	groups, err := f.disc.ServerGroups()
	if err != nil {
		t.Fatalf("groups: %v", err)
	}
	i := slices.IndexFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == "stable.example.com" })
	if i < 0 || groups.Groups[i].PreferredVersion.Version != "v1" || len(groups.Groups[i].Versions) != 2 ||
		groups.Groups[i].Versions[1].Version != "v1beta1" {
		t.Fatalf("groups = %+v", groups.Groups)
	}
	list, err := f.disc.ServerResourcesForGroupVersion("stable.example.com/v1")
	if err != nil {
		t.Fatalf("resources: %v", err)
	}
	byName := map[string]metav1.APIResource{}
	for _, r := range list.APIResources {
		byName[r.Name] = r
	}
	main := byName["crontabs"]
	if main.Kind != "CronTab" || !main.Namespaced || main.SingularName != "crontab" ||
		!slices.Equal(main.ShortNames, []string{"ct"}) || !slices.Equal(main.Categories, []string{"all"}) ||
		!slices.Contains(main.Verbs, "watch") || !slices.Contains(main.Verbs, "deletecollection") {
		t.Errorf("crontabs = %+v", main)
	}
	if s := byName["crontabs/status"]; s.Kind != "CronTab" {
		t.Errorf("crontabs/status = %+v", s)
	}
	if s := byName["crontabs/scale"]; s.Kind != "Scale" || s.Group != "autoscaling" || s.Version != "v1" {
		t.Errorf("crontabs/scale = %+v", s)
	}
	if got := f.h.APIGroups(); len(got) != 1 || got[0].PreferredVersion.GroupVersion != "stable.example.com/v1" {
		t.Errorf("APIGroups = %+v", got)
	}
}

// TestValidation checks a schema violation is a 422 Invalid naming the kind, the object and
// the field, as kube-apiserver words it.
func TestValidation(t *testing.T) {
	f := newFixture(t)
	code, _, body := f.do(t, http.MethodPost, "/apis/stable.example.com/v1/namespaces/default/crontabs", "application/json",
		cronTabJSON("v1", "my-new-cron-object", `"cronSpec":"* * * *","replicas":20`))
	st := decode(t, body)
	msg, _ := st["message"].(string)
	if code != http.StatusUnprocessableEntity || st["reason"] != "Invalid" ||
		!strings.HasPrefix(msg, `CronTab.stable.example.com "my-new-cron-object" is invalid: `) ||
		!strings.Contains(msg, "spec.replicas") || !strings.Contains(msg, "spec.cronSpec") {
		t.Fatalf("create = %d %s", code, body)
	}
	details, _ := st["details"].(map[string]any)
	causes, _ := details["causes"].([]any)
	var fields []string
	for _, c := range causes {
		fields = append(fields, c.(map[string]any)["field"].(string))
	}
	slices.Sort(fields)
	if !slices.Equal(fields, []string{"spec.cronSpec", "spec.replicas"}) || details["kind"] != "CronTab" || details["group"] != "stable.example.com" {
		t.Errorf("details = %v", details)
	}
}

// TestFieldValidation checks unknown fields: Strict is a 400 listing them (in kube's
// transformDecodeError words), Warn (the
// default) Warning headers, Ignore nothing; every mode drops them from the stored object.
func TestFieldValidation(t *testing.T) {
	f := newFixture(t)
	path := "/apis/stable.example.com/v1/namespaces/default/crontabs"
	body := func(name string) string {
		return cronTabJSON("v1", name, `"cronSpec":"* * * * */5","foo":1,"bar":{"x":2}`)
	}
	code, _, data := f.do(t, http.MethodPost, path+"?fieldValidation=Strict", "application/json", body("strict"))
	if st := decode(t, data); code != http.StatusBadRequest || st["reason"] != "BadRequest" ||
		st["message"] != `CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.bar", unknown field "spec.foo"` {
		t.Errorf("Strict: %d %s", code, data)
	}
	code, header, data := f.do(t, http.MethodPost, path, "application/json", body("warn"))
	if warnings := header.Values("Warning"); code != http.StatusCreated ||
		!slices.Equal(warnings, []string{`299 - "unknown field \"spec.bar\""`, `299 - "unknown field \"spec.foo\""`}) {
		t.Errorf("Warn: %d %q %s", code, warnings, data)
	}
	if spec := decode(t, data)["spec"].(map[string]any); spec["foo"] != nil || spec["bar"] != nil {
		t.Errorf("Warn kept unknown fields: %v", spec)
	}
	code, header, data = f.do(t, http.MethodPost, path+"?fieldValidation=Ignore", "application/json", body("ignore"))
	if code != http.StatusCreated || len(header.Values("Warning")) != 0 {
		t.Errorf("Ignore: %d %q %s", code, header.Values("Warning"), data)
	}
	if spec := decode(t, data)["spec"].(map[string]any); spec["foo"] != nil || spec["cronSpec"] != "* * * * */5" {
		t.Errorf("Ignore kept unknown fields: %v", spec)
	}
	// Metadata is ObjectMeta: unknown fields are reported, malformed ones refused.
	code, _, data = f.do(t, http.MethodPost, path+"?fieldValidation=Strict", "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"m","foo":1},"spec":{}}`)
	if st := decode(t, data); code != http.StatusBadRequest ||
		st["message"] != `CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "metadata.foo"` {
		t.Errorf("Strict metadata: %d %s", code, data)
	}
	code, _, data = f.do(t, http.MethodPost, path, "application/json",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"m","labels":{"a":1}},"spec":{}}`)
	if code != http.StatusBadRequest || !strings.Contains(string(data), "cannot decode metadata") {
		t.Errorf("malformed labels: %d %s", code, data)
	}
	code, _, data = f.do(t, http.MethodPost, path+"?fieldValidation=Strict", "application/json",
		cronTabJSON("v1", "dup", `"image":"a","image":"b"`))
	if code != http.StatusBadRequest || !strings.Contains(string(data), `duplicate field \"spec.image\"`) {
		t.Errorf("Strict duplicate field: %d %s", code, data)
	}
	// A patch adding an unknown field, strictly: 422 on field "patch", as kube-apiserver's patch handler.
	code, _, data = f.do(t, http.MethodPatch, path+"/ignore?fieldValidation=Strict", "application/merge-patch+json", `{"spec":{"baz":true}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(data), `unknown field \"spec.baz\"`) {
		t.Errorf("strict patch: %d %s", code, data)
	}
}

// TestDefaults checks schema defaults apply on create and to objects stored before the
// default was added, once the new definition is Set.
func TestDefaults(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ns := f.dyn.Resource(cronTabs).Namespace("default")
	old := &unstructured.Unstructured{}
	if err := old.UnmarshalJSON([]byte(cronTabJSON("v1", "old", `"cronSpec":"* * * * */5"`))); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Create(ctx, old, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.h.Set(cronTabDefinition(t, true)); err != nil {
		t.Fatal(err)
	}
	got, err := ns.Get(ctx, "old", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if image, _, _ := unstructured.NestedString(got.Object, "spec", "image"); image != "busybox" {
		t.Errorf("old object read after the default was added: spec.image = %q, want busybox", image)
	}
	code, _, data := f.do(t, http.MethodPost, "/apis/stable.example.com/v1/namespaces/default/crontabs", "application/json",
		cronTabJSON("v1", "new", `"cronSpec":"* * * * */5"`))
	if spec, _ := decode(t, data)["spec"].(map[string]any); code != http.StatusCreated || spec["image"] != "busybox" {
		t.Errorf("create: %d %s", code, data)
	}
}

// TestCELTransitionRule checks x-kubernetes-validations run on create and, with oldSelf, on
// update, through the request path.
func TestCELTransitionRule(t *testing.T) {
	f := newFixture(t)
	raw := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"image":    map[string]any{"type": "string"},
					"replicas": map[string]any{"type": "integer"},
				},
				"x-kubernetes-validations": []any{
					map[string]any{"rule": "self.replicas <= 5", "message": "too many replicas"},
					map[string]any{"rule": "self.image == oldSelf.image", "message": "image is immutable"},
				},
			},
		},
	}
	s, errs := crschema.New(raw, field.NewPath("schema"))
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	def := cronTabDefinition(t, false)
	for i := range def.Versions {
		def.Versions[i].Schema, def.Versions[i].Scale = s, nil
	}
	if err := f.h.Set(def); err != nil {
		t.Fatal(err)
	}
	path := "/apis/stable.example.com/v1/namespaces/default/crontabs"
	code, _, data := f.do(t, http.MethodPost, path, "application/json", cronTabJSON("v1", "c", `"image":"a","replicas":9`))
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(data), "too many replicas") {
		t.Errorf("create breaking a rule: %d %s", code, data)
	}
	if code, _, data = f.do(t, http.MethodPost, path, "application/json", cronTabJSON("v1", "c", `"image":"a","replicas":1`)); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, data)
	}
	code, _, data = f.do(t, http.MethodPatch, path+"/c", "application/merge-patch+json", `{"spec":{"image":"b"}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(data), "image is immutable") {
		t.Errorf("update breaking a transition rule: %d %s", code, data)
	}
	if code, _, data = f.do(t, http.MethodPatch, path+"/c", "application/merge-patch+json", `{"spec":{"replicas":2}}`); code != http.StatusOK {
		t.Errorf("allowed update: %d %s", code, data)
	}
}
