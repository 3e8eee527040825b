// Package storageversionmigrator is the storage version migrator of a server, as
// kube-controller-manager's storageversionmigrator controller: it carries out
// storagemigration.k8s.io/v1 StorageVersionMigrations by rewriting every stored object of a
// resource into the resource's current storage version, through the server's API (a
// server-side apply of no fields per object), so that a storage version switch is: change
// the marker, deploy, create a migration. Unlike Kubernetes' controller, which lists from the
// garbage collector's cache, it pages through the resource's list (limit/continue) and keeps
// the next page's continue token in the migration, so that a migration interrupted by a
// restart continues where it stopped.
package storageversionmigrator
