package catalog

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// RefEditor is implemented by catalogs whose tables' tags and branches can
// be created and deleted (CALL sys.create_tag / delete_tag / create_branch /
// delete_branch).
type RefEditor interface {
	CreateTag(ctx context.Context, id Identifier, tag string, snapshot int64) error
	DeleteTag(ctx context.Context, id Identifier, tag string) error
	CreateBranch(ctx context.Context, id Identifier, branch, fromTag string) error
	DeleteBranch(ctx context.Context, id Identifier, branch string) error
	// RollbackTo makes snapshot (tag == "") or the tag's snapshot the
	// latest of the identifier's branch (write.Table.RollbackTo); it
	// returns the number of snapshots removed.
	RollbackTo(ctx context.Context, id Identifier, snapshot int64, tag string) (int, error)
}

var _ RefEditor = (*FS)(nil)

func refName(kind, n string) error {
	if err := validName(kind, n); err != nil {
		return err
	}
	if strings.HasPrefix(n, ".") {
		return paimon.Errorf(ErrInvalid, "invalid %s name %q", kind, n)
	}
	return nil
}

// CreateTag implements RefEditor: tag of snapshot (0 = the latest) on the
// identifier's branch.
func (c *FS) CreateTag(ctx context.Context, id Identifier, tag string, snapshot int64) error {
	if err := refName("tag", tag); err != nil {
		return err
	}
	if err := c.writable("sys.create_tag"); err != nil {
		return err
	}
	if _, err := c.openDataTable(ctx, id.Database, id.Table, id.Branch); err != nil {
		return err
	}
	wt, err := write.OpenTable(ctx, c.io, id.Database, id.Table, id.Branch)
	if err != nil {
		return err
	}
	return wt.CreateTag(ctx, tag, snapshot)
}

func (c *FS) branchRoot(id Identifier) string {
	p := c.TablePath(id.Database, id.Table)
	if id.Branch != "" && id.Branch != paimon.MainBranch {
		p = path.Join(p, "branch", "branch-"+id.Branch)
	}
	return p
}

// DeleteTag implements RefEditor. Only the tag file is removed: data files
// only the tag referenced become orphans (CALL sys.remove_orphan_files).
func (c *FS) DeleteTag(ctx context.Context, id Identifier, tag string) error {
	if err := refName("tag", tag); err != nil {
		return err
	}
	if err := c.writable("sys.delete_tag"); err != nil {
		return err
	}
	p := path.Join(c.branchRoot(id), "tag", "tag-"+tag)
	ok, err := c.io.Exists(ctx, p)
	if err != nil {
		return err
	}
	if !ok {
		return paimon.Errorf(ErrNotFound, "tag %q of table %s does not exist", tag, SQLName(id))
	}
	return c.io.Delete(ctx, p)
}

// CreateBranch implements RefEditor: a branch of the main branch, empty or
// starting at fromTag.
func (c *FS) CreateBranch(ctx context.Context, id Identifier, branch, fromTag string) error {
	if err := refName("branch", branch); err != nil {
		return err
	}
	if err := c.writable("sys.create_branch"); err != nil {
		return err
	}
	if _, err := c.openDataTable(ctx, id.Database, id.Table, ""); err != nil {
		return err
	}
	wt, err := write.OpenTable(ctx, c.io, id.Database, id.Table, "")
	if err != nil {
		return err
	}
	_, err = wt.CreateBranch(ctx, branch, fromTag)
	return err
}

// DeleteBranch implements RefEditor: the branch directory is removed, as
// Paimon's FileSystemBranchManager does.
func (c *FS) DeleteBranch(ctx context.Context, id Identifier, branch string) error {
	if err := refName("branch", branch); err != nil {
		return err
	}
	if branch == paimon.MainBranch {
		return paimon.Errorf(ErrInvalid, "the main branch cannot be deleted")
	}
	if err := c.writable("sys.delete_branch"); err != nil {
		return err
	}
	p := path.Join(c.TablePath(id.Database, id.Table), "branch", "branch-"+branch)
	ok, err := c.io.Exists(ctx, p)
	if err != nil {
		return err
	}
	if !ok {
		return paimon.Errorf(ErrNotFound, "branch %q of table %s does not exist", branch, SQLName(Identifier{Database: id.Database, Table: id.Table}))
	}
	if err := removeAll(ctx, c.io, p); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	return nil
}

// RollbackTo implements RefEditor.
func (c *FS) RollbackTo(ctx context.Context, id Identifier, snapshot int64, tag string) (int, error) {
	if tag != "" {
		if err := refName("tag", tag); err != nil {
			return 0, err
		}
	}
	if err := c.writable("sys.rollback_to"); err != nil {
		return 0, err
	}
	if _, err := c.openDataTable(ctx, id.Database, id.Table, id.Branch); err != nil {
		return 0, err
	}
	wt, err := write.OpenTable(ctx, c.io, id.Database, id.Table, id.Branch)
	if err != nil {
		return 0, err
	}
	return wt.RollbackTo(ctx, snapshot, tag)
}
