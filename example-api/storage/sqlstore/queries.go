package sqlstore

import "strings"

// queries are the Store's SQL statements for one table name.
type queries struct {
	// schema creates the tables (idempotent).
	schema []string
	// nextRevision increments the revision, locking its row until the transaction ends.
	nextRevision string
	// revisions reads the current and compacted revisions.
	revisions                              string
	get, insert, update, remove, logChange string
	// latest lists current rows from $1 (inclusive) to $2 (exclusive), $3 at most.
	latest string
	// at lists the state at revision $3 from $1 to $2, $4 at most, from the log.
	at string
	// countLatest and countAt count the keys after $1 up to $2 (at revision $3).
	countLatest, countAt string
	// changes reads the log after revision $1 up to $2, keys from $3 to $4, in order.
	changes string
	// compact trims the log at revision $1 (see Compact); setCompacted records it.
	compact, setCompacted string
	// notify notifies the LISTEN/NOTIFY channel $1 (at commit).
	notify string
}

// newQueries returns the statements of table t (a checked name).
func newQueries(t string) queries {
	r := func(s string) string { return strings.ReplaceAll(s, "{T}", t) }
	// Keys compare byte-wise (COLLATE "C"), as etcd's: list order and continue tokens
	// are the same as on etcd.
	atRev := `SELECT key, revision, object FROM (
			SELECT DISTINCT ON (key) key, revision, type, object FROM {T}_changes
			WHERE key >= $1 AND key < $2 AND revision <= $3 ORDER BY key, revision DESC) s
		WHERE type <> 'DELETED'`
	return queries{
		schema: []string{
			r(`CREATE TABLE IF NOT EXISTS {T} (
				key text COLLATE "C" PRIMARY KEY,
				namespace text NOT NULL,
				name text NOT NULL,
				resource_version bigint NOT NULL,
				object jsonb NOT NULL)`),
			r(`CREATE TABLE IF NOT EXISTS {T}_changes (
				revision bigint PRIMARY KEY,
				key text COLLATE "C" NOT NULL,
				type text NOT NULL,
				object jsonb NOT NULL,
				prev_object jsonb)`),
			r(`CREATE INDEX IF NOT EXISTS {T}_changes_key ON {T}_changes (key, revision)`),
			r(`CREATE TABLE IF NOT EXISTS {T}_revision (
				id int PRIMARY KEY CHECK (id = 1),
				revision bigint NOT NULL,
				compacted bigint NOT NULL)`),
			r(`INSERT INTO {T}_revision VALUES (1, 1, 0) ON CONFLICT DO NOTHING`),
		},
		nextRevision: r(`UPDATE {T}_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision`),
		revisions:    r(`SELECT revision, compacted FROM {T}_revision WHERE id = 1`),
		get:          r(`SELECT resource_version, object FROM {T} WHERE key = $1`),
		insert: r(`INSERT INTO {T} (key, namespace, name, resource_version, object) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (key) DO NOTHING`),
		update:      r(`UPDATE {T} SET resource_version = $3, object = $4 WHERE key = $1 AND resource_version = $2`),
		remove:      r(`DELETE FROM {T} WHERE key = $1 AND resource_version = $2`),
		logChange:   r(`INSERT INTO {T}_changes (revision, key, type, object, prev_object) VALUES ($1, $2, $3, $4, $5)`),
		latest:      r(`SELECT key, resource_version, object FROM {T} WHERE key >= $1 AND key < $2 ORDER BY key LIMIT $3`),
		at:          r(atRev + ` ORDER BY key LIMIT $4`),
		countLatest: r(`SELECT count(*) FROM {T} WHERE key > $1 AND key < $2`),
		countAt:     r(`SELECT count(*) FROM (` + strings.Replace(atRev, "key >= $1", "key > $1", 1) + `) c`),
		changes: r(`SELECT revision, key, type, object, prev_object FROM {T}_changes
			WHERE revision > $1 AND revision <= $2 AND key >= $3 AND key < $4 ORDER BY revision`),
		// Every change at or before $1 goes, but the last of a key that is not a delete:
		// the state at $1 and after can still be read.
		compact: r(`DELETE FROM {T}_changes c WHERE c.revision <= $1 AND (c.type = 'DELETED' OR EXISTS (
			SELECT 1 FROM {T}_changes n WHERE n.key = c.key AND n.revision > c.revision AND n.revision <= $1))`),
		setCompacted: r(`UPDATE {T}_revision SET compacted = $1 WHERE id = 1 AND compacted < $1`),
		notify:       `SELECT pg_notify($1, '')`,
	}
}
