package paimon

import "context"

// This file reads a branch's schema files (schema/schema-<id>).

// SchemaIDs lists the schema ids of this branch, ascending.
func (t *Table) SchemaIDs(ctx context.Context) ([]int64, error) {
	return t.listIDs(ctx, t.SchemaDir(), "schema-")
}

// Schema reads schema-<id>.
func (t *Table) Schema(ctx context.Context, id int64) (*TableSchema, error) {
	if t.known != nil && t.known.ID == id {
		return t.known, nil
	}
	return t.schemaVersion(ctx, id, t.listed[id])
}

// schemaVersion reads schema-<id>, whose version the caller may have just
// obtained from storage (ver; "" = ask storage).
func (t *Table) schemaVersion(ctx context.Context, id int64, ver string) (*TableSchema, error) {
	p := t.SchemaPath(id)
	b, _, ok, err := t.readVersioned(ctx, p, ver)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf(nil, "schema %d does not exist", id)
	}
	s, err := ParseSchema(b)
	if err != nil {
		return nil, corruptErr(p, err)
	}
	return s, nil
}

// LatestSchema reads the schema with the highest id. When the listing of
// schema/ names the file's version (S3: ETag and size, the same the HEAD
// would send), that version validates a cached copy: one LIST, no HEAD.
func (t *Table) LatestSchema(ctx context.Context) (*TableSchema, error) {
	sc, _, err := t.ListedLatestSchema(ctx)
	return sc, err
}

// ListedLatestSchema is LatestSchema that also returns a handle on the
// same table and branch that remembers the versions the listing named for
// every schema file: its Schema(id) validates a cached copy by them
// instead of a HEAD each, and its Schema(latest id) returns the schema
// read here. For one query's lookup: the handle sees the schema files as
// they were when it listed them (a file deleted since is served from the
// cache as it was, like a read made just before the deletion).
//
// With a freshness window (WithFreshness) a listing this process made less
// than the window ago is reused instead of listing again.
func (t *Table) ListedLatestSchema(ctx context.Context) (*TableSchema, *Table, error) {
	ids, vers, ok := t.cachedSchemas()
	if !ok {
		start, gen, rec := t.freshStamp(t.SchemaDir())
		var err error
		ids, vers, err = t.listIDVersions(ctx, t.SchemaDir(), "schema-")
		if err != nil {
			return nil, nil, err
		}
		if rec {
			t.recordSchemas(start, gen, ids, vers)
		}
	}
	if len(ids) == 0 {
		return nil, nil, notFoundf(nil, "table %s has no schema", t.describe())
	}
	sc, err := t.schemaVersion(ctx, ids[len(ids)-1], vers[len(vers)-1])
	if err != nil {
		return nil, nil, err
	}
	u := *t
	u.known = sc
	u.listed = make(map[int64]string, len(ids))
	for i, id := range ids {
		if vers[i] != "" {
			u.listed[id] = vers[i]
		}
	}
	return sc, &u, nil
}

// Schemas reads all schemas, ascending by id.
func (t *Table) Schemas(ctx context.Context) ([]*TableSchema, error) {
	ids, err := t.SchemaIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*TableSchema, 0, len(ids))
	for _, id := range ids {
		s, err := t.Schema(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
