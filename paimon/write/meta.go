package write

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// CreateTag creates tag name pointing at snapshot id (0 = the latest
// snapshot), as tag/tag-<name> = snapshot JSON + tagCreateTime. It fails
// with ErrExists when the tag exists.
func (t *Table) CreateTag(ctx context.Context, name string, id int64) error {
	if err := checkName("tag", name); err != nil {
		return err
	}
	var s *paimon.Snapshot
	var err error
	if id == 0 {
		if s, err = t.latestSnapshot(ctx); err == nil && s == nil {
			return fmt.Errorf("%w: table %s has no snapshot to tag", paimon.ErrNotFound, t.root)
		}
	} else {
		s, err = t.meta.Snapshot(ctx, id)
	}
	if err != nil {
		return err
	}
	tag := &paimon.Tag{Snapshot: *s, TagCreateTime: paimon.LocalDateTimeArray(time.Now())}
	data, err := tag.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encode tag %s: %w", name, err)
	}
	created, err := t.io.CreateIfAbsent(ctx, t.branchPath()+"/tag/tag-"+name, data)
	if err != nil {
		return fmt.Errorf("create tag %s of %s: %w", name, t.root, err)
	}
	if !created {
		return fmt.Errorf("%w: tag %q of table %s", ErrExists, name, t.root)
	}
	return nil
}

var numeric = regexp.MustCompile(`^[0-9]+$`)

// CreateBranch creates branch name of the main branch. With fromTag it
// starts at that tag (the tag, its snapshot and the schemas up to the
// snapshot's are copied into branch/branch-<name>/, as
// FileSystemBranchManager does); without, it starts empty with the latest
// schema. It returns a Table writing to the new branch.
func (t *Table) CreateBranch(ctx context.Context, name, fromTag string) (*Table, error) {
	if err := checkName("branch", name); err != nil {
		return nil, err
	}
	if name == paimon.MainBranch || numeric.MatchString(name) {
		return nil, invalidf("branch name %q is reserved or purely numeric", name)
	}
	if t.branch != paimon.MainBranch {
		return nil, invalidf("branches can only be created from the main branch")
	}
	dir := t.root + "/branch/branch-" + name
	if ok, err := t.io.Exists(ctx, dir); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("%w: branch %q of table %s", ErrExists, name, t.root)
	}
	copyFile := func(src, dst string) error {
		b, err := t.io.ReadFile(ctx, src)
		if err != nil {
			return err
		}
		if _, err := t.io.CreateIfAbsent(ctx, dst, b); err != nil {
			return err
		}
		return nil
	}
	schemaUpTo := t.schema.ID
	if fromTag != "" {
		tag, err := t.meta.Tag(ctx, fromTag)
		if err != nil {
			return nil, err
		}
		schemaUpTo = tag.SchemaID
		if err := copyFile(t.root+"/tag/tag-"+fromTag, dir+"/tag/tag-"+fromTag); err != nil {
			return nil, fmt.Errorf("create branch %s: %w", name, err)
		}
		snap := tag.Snapshot
		data, err := snap.MarshalJSON()
		if err != nil {
			return nil, err
		}
		sid := strconv.FormatInt(snap.ID, 10)
		if _, err := t.io.CreateIfAbsent(ctx, dir+"/snapshot/snapshot-"+sid, data); err != nil {
			return nil, fmt.Errorf("create branch %s: %w", name, err)
		}
		for _, h := range []string{"EARLIEST", "LATEST"} {
			if err := t.io.Overwrite(ctx, dir+"/snapshot/"+h, []byte(sid)); err != nil {
				return nil, fmt.Errorf("create branch %s: %w", name, err)
			}
		}
	}
	ids, err := t.meta.SchemaIDs(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if id > schemaUpTo || (fromTag == "" && id != schemaUpTo) {
			continue
		}
		sid := strconv.FormatInt(id, 10)
		if err := copyFile(t.root+"/schema/schema-"+sid, dir+"/schema/schema-"+sid); err != nil {
			return nil, fmt.Errorf("create branch %s: %w", name, err)
		}
	}
	db, tbl := splitTablePath(t.root)
	return OpenTable(ctx, t.io, db, tbl, name)
}

func splitTablePath(root string) (string, string) {
	for i := 0; i < len(root); i++ {
		if root[i] == '/' {
			db := root[:i]
			if len(db) > 3 && db[len(db)-3:] == ".db" {
				db = db[:len(db)-3]
			}
			return db, root[i+1:]
		}
	}
	return "", root
}

// SetConsumer writes consumer/consumer-<id> with nextSnapshot; expiration
// keeps snapshots from the minimum nextSnapshot of all consumers on.
func (t *Table) SetConsumer(ctx context.Context, id string, nextSnapshot int64) error {
	if err := checkName("consumer", id); err != nil {
		return err
	}
	data := []byte(fmt.Sprintf("{\n  \"nextSnapshot\" : %d\n}", nextSnapshot))
	return t.io.Overwrite(ctx, t.branchPath()+"/consumer/consumer-"+id, data)
}
