package catalog

import (
	"context"
	"fmt"
	"path"
	"strconv"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// AlterColumns implements Editor: schema-<latest+1> of db.table (main
// branch) with the column changes applied as Paimon's SchemaManager does
// (write.EvolveSchema). Existing data files are not rewritten: readers map
// their columns to the new schema by field id.
func (c *FS) AlterColumns(ctx context.Context, db, table string, changes []write.ColumnChange) error {
	if err := c.writable("ALTER TABLE"); err != nil {
		return err
	}
	if _, err := c.openDataTable(ctx, db, table, ""); err != nil {
		return err
	}
	return c.nextSchema(ctx, db, table, func(latest *paimon.TableSchema) (*paimon.TableSchema, error) {
		return write.EvolveSchema(latest, changes)
	})
}

// nextSchema writes schema-<latest+1> computed by next from the latest
// schema, create-if-absent; a concurrent ALTER that took the id makes it
// recompute from the new latest (up to 5 times), as SchemaManager.commitChanges
// retries.
func (c *FS) nextSchema(ctx context.Context, db, table string, next func(*paimon.TableSchema) (*paimon.TableSchema, error)) error {
	for attempt := 0; ; attempt++ {
		pt, err := paimon.OpenTable(ctx, c.io, c.TablePath(db, table), "")
		if err != nil {
			return err
		}
		latest, err := pt.LatestSchema(ctx)
		if err != nil {
			return err
		}
		s, err := next(latest)
		if err != nil {
			return err
		}
		data, err := s.MarshalJSON()
		if err != nil {
			return fmt.Errorf("encode schema of %s.%s: %w", db, table, err)
		}
		p := path.Join(c.TablePath(db, table), "schema", "schema-"+strconv.FormatInt(s.ID, 10))
		created, err := c.io.CreateIfAbsent(ctx, p, data)
		if err != nil {
			return fmt.Errorf("ALTER TABLE %s.%s: %w", db, table, err)
		}
		if created {
			return nil
		}
		if attempt == 4 {
			return fmt.Errorf("ALTER TABLE %s.%s: schema-%d was written concurrently 5 times in a row", db, table, s.ID)
		}
	}
}
