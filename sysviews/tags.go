package sysviews

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// tagsFields is TagsTable.TABLE_TYPE.
var tagsFields = []types.DataField{
	fString(0, "tag_name", false),
	fBigInt(1, "snapshot_id", false),
	fBigInt(2, "schema_id", false),
	fTimestamp(3, "commit_time", false),
	fBigInt(4, "record_count", true),
	fTimestamp(5, "create_time", true),
	fString(6, "time_retained", true),
}

// newTagsView serves $tags: one row per tag file of the branch, by name.
func newTagsView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, tagsFields, []string{"tag_name"}, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		tags, err := t.Tags(ctx)
		if err != nil {
			return nil, err
		}
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1, FilesTotal: len(tags)}}
		for _, tg := range tags {
			rs.rows = append(rs.rows, tagRow(tg))
		}
		return rs, nil
	}), nil
}

func tagRow(tg paimon.NamedTag) []any {
	row := []any{tg.Name, tg.ID, tg.SchemaID, millisTime(tg.TimeMillis), tg.TotalRecordCount, nil, nil}
	if ct, ok := tg.CreateTime(); ok {
		row[5] = ct
	}
	if tg.TagTimeRetained != nil {
		row[6] = javaDuration(*tg.TagTimeRetained)
	}
	return row
}

// javaDuration renders d as java.time.Duration.toString does (PT1H30M, PT0.5S).
func javaDuration(d time.Duration) string {
	if d == 0 {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteString("PT")
	neg := d < 0
	if neg {
		d = -d
	}
	sign := ""
	if neg {
		sign = "-"
	}
	h := d / time.Hour
	d -= h * time.Hour
	m := d / time.Minute
	d -= m * time.Minute
	if h > 0 {
		fmt.Fprintf(&b, "%s%dH", sign, h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%s%dM", sign, m)
	}
	if d > 0 {
		s := d / time.Second
		ns := d - s*time.Second
		if ns == 0 {
			fmt.Fprintf(&b, "%s%dS", sign, s)
		} else {
			frac := strings.TrimRight(fmt.Sprintf("%09d", int64(ns)), "0")
			fmt.Fprintf(&b, "%s%d.%sS", sign, s, frac)
		}
	}
	return b.String()
}
