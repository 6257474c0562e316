package sysviews

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// branchesFields is BranchesTable.TABLE_TYPE.
var branchesFields = []types.DataField{
	fString(0, "branch_name", false),
	fTimestamp(1, "create_time", false),
}

// newBranchesView serves $branches: "main" first, then every branch
// directory (branch/branch-<name>) by name. create_time is the modification
// time of the branch directory (for main, of the table directory), as
// Java's BranchesTable reads it from the file status.
func newBranchesView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, branchesFields, []string{"branch_name"}, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		names, err := t.ListBranches(ctx)
		if err != nil {
			return nil, err
		}
		io := t.FileIO()
		root := t.Path()
		var mainTime time.Time
		if root == "." || root == "/" {
			// The FileIO is rooted at the table: its schema directory was
			// created with the table.
			mainTime, err = modTime(ctx, io, root, "schema")
		} else {
			mainTime, err = modTime(ctx, io, path.Dir(root), path.Base(root))
		}
		if err != nil {
			return nil, err
		}
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1, FilesTotal: len(names) + 1}}
		rs.rows = append(rs.rows, []any{paimon.MainBranch, mainTime})
		for _, n := range names {
			ts, err := modTime(ctx, io, path.Join(root, "branch"), "branch-"+n)
			if err != nil {
				return nil, err
			}
			rs.rows = append(rs.rows, []any{n, ts})
		}
		return rs, nil
	}), nil
}

// modTime returns the UTC modification time of dir/name.
func modTime(ctx context.Context, io fileio.FileIO, dir, name string) (time.Time, error) {
	ents, err := io.List(ctx, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, fmt.Errorf("listing %s: %w", dir, err)
	}
	for _, e := range ents {
		if e.Name == name {
			return e.ModTime.UTC(), nil
		}
	}
	return time.Time{}, exactf(catalog.ErrNotFound, "%s does not exist", path.Join(dir, name))
}
