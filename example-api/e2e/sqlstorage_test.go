package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	dbv1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/pkg/generated/clientset/versioned"
	"github.com/apigen-dev/apigen/internal/pgtest"
)

// backupRecord is a BackupRecord manifest.
func backupRecord(name, backup string, size int) string {
	return fmt.Sprintf(`{"apiVersion":"db.example.com/v1","kind":"BackupRecord","metadata":{"name":%q,"namespace":"default"},`+
		`"spec":{"backupName":%q,"databaseName":"orders","location":"s3://backups/%s","sizeBytes":%d}}`, name, backup, name, size)
}

// TestBackupRecordsInPostgres: BackupRecords (+apigen:storage=interface) are kept in the
// PostgreSQL table of --backup-records-dsn, through example-api/storage/sqlstore, and served
// as any kind: create, get, list with paging (kubectl --chunk-size, client-go Limit and
// Continue), an update from a stale resourceVersion (409 Conflict), delete, watch (kubectl
// get -w and client-go), with the generated Store's validation in front; the server's etcd
// holds none of them, the table all.
func TestBackupRecordsInPostgres(t *testing.T) {
	t.Parallel() // a server and a PostgreSQL of its own
	pg := pgtest.Start(t)
	etcd := startEtcd(t)
	s := startServer(t, "--etcd-servers="+etcd.URL(), "--backup-records-dsn="+pg.URL("postgres"))
	if !strings.Contains(s.proc.Output(), "backuprecords.db.example.com are kept in PostgreSQL") {
		t.Errorf("the server does not say where backup records are kept:\n%s", s.proc.Output())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	records := versioned.NewForConfigOrDie(unthrottledConfig(s.config)).DbV1().BackupRecords("default")

	// A client-go watch from the start, and kubectl's.
	w, err := records.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	lines := s.watchLines(t, "get", "backuprecords", "-w", "--output-watch-events", "--no-headers")

	// Create through kubectl and client-go; validation (the generated Store's) still runs.
	dir := t.TempDir()
	for i, name := range []string{"r1", "r2", "r3", "r4", "r5"} {
		file := filepath.Join(dir, name+".json")
		if err := os.WriteFile(file, []byte(backupRecord(name, "nightly", 100*(i+1))), 0o600); err != nil {
			t.Fatal(err)
		}
		s.mustKubectl(t, "create", "-f", file)
	}
	if _, err := records.Create(ctx, &dbv1.BackupRecord{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}, metav1.CreateOptions{}); err == nil {
		t.Errorf("create of a record without spec.backupName: no error")
	} else {
		wantTypedStatus(t, "create without spec.backupName", err, 422, metav1.StatusReasonInvalid)
	}
	waitForLine(t, lines, regexp.MustCompile(`^ADDED\s+r5\s+nightly\s+orders\s+500\s`), s)
	for _, name := range []string{"r1", "r2", "r3", "r4", "r5"} {
		ev := nextEvent(t, w)
		if got := ev.Object.(*dbv1.BackupRecord); ev.Type != watch.Added || got.Name != name {
			t.Fatalf("client-go watch event %s %s, want ADDED %s", ev.Type, got.Name, name)
		}
	}

	// Get and list with paging.
	if out := s.mustKubectl(t, "get", "backuprecord", "r3", "-o", "jsonpath={.spec.location} {.spec.sizeBytes}"); out != "s3://backups/r3 300" {
		t.Errorf("kubectl get r3: %q", out)
	}
	out := s.mustKubectl(t, "get", "backuprecords", "--chunk-size=2", "-o", "name", "-v=6")
	if got := regexp.MustCompile(`backuprecord\.db\.example\.com/(r\d)`).FindAllStringSubmatch(out, -1); len(got) != 5 {
		t.Errorf("kubectl get --chunk-size=2 listed %d records, want 5:\n%s", len(got), out)
	}
	if n := strings.Count(out, "limit=2"); n != 3 || !strings.Contains(out, "continue=") {
		t.Errorf("kubectl get --chunk-size=2 made %d requests with limit=2, want 3 with continue tokens:\n%s", n, out)
	}
	var names []string
	opts := metav1.ListOptions{Limit: 2}
	for pages := 0; ; pages++ {
		page, err := records.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Items {
			names = append(names, r.Name)
		}
		if page.Continue == "" {
			if pages != 2 {
				t.Errorf("client-go listed %d pages, want 3", pages+1)
			}
			break
		}
		if page.RemainingItemCount == nil || *page.RemainingItemCount != int64(5-len(names)) {
			t.Errorf("page %d: remainingItemCount %v, want %d", pages, page.RemainingItemCount, 5-len(names))
		}
		opts.Continue = page.Continue
	}
	if strings.Join(names, ",") != "r1,r2,r3,r4,r5" {
		t.Errorf("client-go pages: %v", names)
	}

	// Optimistic concurrency: an update from a stale resourceVersion is 409 Conflict.
	r1, err := records.Get(ctx, "r1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := r1.DeepCopy()
	r1.Spec.SizeBytes = 111
	if _, err := records.Update(ctx, r1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Spec.SizeBytes = 999
	_, err = records.Update(ctx, stale, metav1.UpdateOptions{})
	wantTypedStatus(t, "update from a stale resourceVersion", err, 409, metav1.StatusReasonConflict)
	if ev := nextEvent(t, w); ev.Type != watch.Modified || ev.Object.(*dbv1.BackupRecord).Spec.SizeBytes != 111 {
		t.Errorf("client-go watch event %s %+v, want MODIFIED r1 of size 111", ev.Type, ev.Object)
	}
	waitForLine(t, lines, regexp.MustCompile(`^MODIFIED\s+r1\s+nightly\s+orders\s+111\s`), s)

	// Delete.
	s.mustKubectl(t, "delete", "backuprecord", "r2")
	if _, err := records.Get(ctx, "r2", metav1.GetOptions{}); err == nil {
		t.Errorf("get after delete: no error")
	} else {
		wantTypedStatus(t, "get after delete", err, 404, metav1.StatusReasonNotFound)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Deleted || ev.Object.(*dbv1.BackupRecord).Name != "r2" {
		t.Errorf("client-go watch event %s, want DELETED r2", ev.Type)
	}
	waitForLine(t, lines, regexp.MustCompile(`^DELETED\s+r2\s`), s)

	// The records are in the table, not in etcd.
	db, err := sql.Open("pgx", pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM backup_records WHERE namespace = 'default' AND object->'spec'->>'backupName' = 'nightly'`).Scan(&rows); err != nil || rows != 4 {
		t.Errorf("rows of backup_records: %d, %v; want 4", rows, err)
	}
	if kvs := etcdGet(t, etcd.URL(), "/registry/db.example.com/backuprecords", clientv3.WithPrefix(), clientv3.WithCountOnly()); kvs.Count != 0 {
		t.Errorf("etcd holds %d backup records", kvs.Count)
	}
}

// wantTypedStatus is wantStatus for an error of the typed clientset, whose decoding of the
// Status drops its kind and apiVersion (the dynamic client keeps them).
func wantTypedStatus(t *testing.T, what string, err error, code int32, reason metav1.StatusReason) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("%s: want a metav1.Status error (%d %s), got %v", what, code, reason, err)
	}
	if s := status.Status(); s.Status != metav1.StatusFailure || s.Code != code || s.Reason != reason {
		t.Errorf("%s: status = {status %q code %d reason %q message %q}, want code %d reason %q",
			what, s.Status, s.Code, s.Reason, s.Message, code, reason)
	}
}

// nextEvent returns the next event of w, failing the test after 30s or when w ends.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch ended")
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event within 30s")
	}
	return watch.Event{}
}
