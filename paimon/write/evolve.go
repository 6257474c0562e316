package write

import (
	"fmt"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// ColumnChangeKind names one ALTER TABLE column change.
type ColumnChangeKind int

const (
	AddColumn ColumnChangeKind = iota + 1
	RenameColumn
	DropColumn
	UpdateColumnType
	UpdateColumnNullability
	UpdateColumnComment
	UpdateColumnPosition
)

// ColumnChange is one column change of ALTER TABLE (Paimon's SchemaChange
// for top-level columns).
type ColumnChange struct {
	Kind    ColumnChangeKind
	Column  string
	NewName string         // RenameColumn
	Type    types.DataType // AddColumn, UpdateColumnType (Nullable as written)
	// KeepNullability: UpdateColumnType keeps the column's nullability
	// (Flink's MODIFY without NULL/NOT NULL, Spark's ALTER COLUMN TYPE).
	KeepNullability bool
	Nullable        bool    // UpdateColumnNullability
	Comment         *string // AddColumn, UpdateColumnComment
	// Position: "" (last), "FIRST" or "AFTER" (After names the column).
	Position string
	After    string
}

// EvolveSchema returns the next schema after old with changes applied, as
// Paimon's SchemaManager.generateTableSchema does: new columns take
// highestFieldId+1 (their nested fields the following ids), renamed and
// retyped columns keep their id, keys and key-naming options follow renames,
// options are otherwise untouched. Errors wrap ErrInvalid (bad request) or
// ErrUnsupported (a change Paimon refuses, or a type change other than a
// lossless widening).
func EvolveSchema(old *paimon.TableSchema, changes []ColumnChange) (*paimon.TableSchema, error) {
	fields := append([]types.DataField(nil), old.Fields...)
	highest := old.HighestFieldID
	pks := append([]string{}, old.PrimaryKeys...)
	opts := make(map[string]string, len(old.Options))
	for k, v := range old.Options {
		opts[k] = v
	}
	find := func(name string) int {
		for i, f := range fields {
			if f.Name == name {
				return i
			}
		}
		return -1
	}
	mustFind := func(name string) (int, error) {
		i := find(name)
		if i < 0 {
			return -1, invalidf("column %s does not exist", name)
		}
		return i, nil
	}
	isPart := func(c string) bool { return contains(old.PartitionKeys, c) }
	isPK := func(c string) bool { return contains(old.PrimaryKeys, c) }
	for _, ch := range changes {
		switch ch.Kind {
		case AddColumn:
			if !ch.Type.Nullable {
				return nil, unsupportedf("column %s cannot specify NOT NULL: Paimon adds columns as nullable (old files have no value for them)", ch.Column)
			}
			if find(ch.Column) >= 0 {
				return nil, invalidf("column %s already exists", ch.Column)
			}
			highest++
			id := highest
			dt := reassignNested(ch.Type, &highest)
			f := types.DataField{ID: id, Name: ch.Column, Type: dt, Description: ch.Comment}
			at := len(fields)
			switch ch.Position {
			case "FIRST":
				at = 0
			case "AFTER":
				i, err := mustFind(ch.After)
				if err != nil {
					return nil, err
				}
				at = i + 1
			default:
				if old.OptionBool("add-column-before-partition", false) && len(old.PartitionKeys) > 0 {
					for i, f := range fields {
						if isPart(f.Name) {
							at = i
							break
						}
					}
				}
			}
			fields = append(fields[:at], append([]types.DataField{f}, fields[at:]...)...)
		case RenameColumn:
			if isPart(ch.Column) {
				return nil, unsupportedf("cannot rename partition column: [%s]", ch.Column)
			}
			i, err := mustFind(ch.Column)
			if err != nil {
				return nil, err
			}
			if find(ch.NewName) >= 0 {
				return nil, invalidf("column %s already exists", ch.NewName)
			}
			if fields[i].Type.Root == types.Blob {
				return nil, unsupportedf("cannot rename BLOB column: [%s]", ch.Column)
			}
			fields[i].Name = ch.NewName
			for k, p := range pks {
				if p == ch.Column {
					pks[k] = ch.NewName
				}
			}
			renameInOptions(opts, ch.Column, ch.NewName)
		case DropColumn:
			if isPart(ch.Column) || isPK(ch.Column) {
				return nil, unsupportedf("cannot drop partition key or primary key: [%s]", ch.Column)
			}
			i, err := mustFind(ch.Column)
			if err != nil {
				return nil, err
			}
			fields = append(fields[:i], fields[i+1:]...)
			if len(fields) == 0 {
				return nil, invalidf("cannot drop all fields in table")
			}
		case UpdateColumnType:
			if isPart(ch.Column) {
				return nil, unsupportedf("cannot update partition column: [%s]", ch.Column)
			}
			if isPK(ch.Column) {
				return nil, unsupportedf("cannot update primary key [%s]", ch.Column)
			}
			i, err := mustFind(ch.Column)
			if err != nil {
				return nil, err
			}
			from, to := fields[i].Type, ch.Type
			if ch.KeepNullability {
				to = to.WithNullable(from.Nullable)
			} else if err := nullabilityChange(old, from.Nullable, to.Nullable, ch.Column); err != nil {
				return nil, err
			}
			if !from.Equal(to.WithNullable(from.Nullable)) {
				if from.IsNested() || to.IsNested() || !format.ExactWidening(from, to) {
					return nil, unsupportedf("column %s: changing type %s to %s is not supported (only lossless widening: TINYINT→SMALLINT→INT→BIGINT, integers→DOUBLE, FLOAT→DOUBLE, DECIMAL with more digits, longer VARCHAR/VARBINARY, more TIMESTAMP precision)", ch.Column, from, to)
				}
			}
			fields[i].Type = to
		case UpdateColumnNullability:
			if ch.Nullable && isPK(ch.Column) {
				return nil, unsupportedf("cannot change nullability of primary key [%s]", ch.Column)
			}
			i, err := mustFind(ch.Column)
			if err != nil {
				return nil, err
			}
			if err := nullabilityChange(old, fields[i].Type.Nullable, ch.Nullable, ch.Column); err != nil {
				return nil, err
			}
			fields[i].Type = fields[i].Type.WithNullable(ch.Nullable)
		case UpdateColumnComment:
			i, err := mustFind(ch.Column)
			if err != nil {
				return nil, err
			}
			fields[i].Description = ch.Comment
		case UpdateColumnPosition:
			i, err := mustFind(ch.Column)
			if err != nil {
				return nil, err
			}
			f := fields[i]
			rest := append(append([]types.DataField(nil), fields[:i]...), fields[i+1:]...)
			at := len(rest)
			switch ch.Position {
			case "FIRST":
				at = 0
			case "AFTER":
				if ch.After == ch.Column {
					return nil, invalidf("column %s cannot be moved after itself", ch.Column)
				}
				j := -1
				for k, g := range rest {
					if g.Name == ch.After {
						j = k
					}
				}
				if j < 0 {
					return nil, invalidf("column %s does not exist", ch.After)
				}
				at = j + 1
			}
			fields = append(rest[:at], append([]types.DataField{f}, rest[at:]...)...)
		default:
			return nil, invalidf("unknown column change %d", ch.Kind)
		}
	}
	// SchemaValidation: columns named by options must still exist.
	for _, k := range []string{"bucket-key", "sequence.field"} {
		for _, c := range splitList(opts[k]) {
			if find(c) < 0 {
				return nil, invalidf("option %s names column %s, which would no longer exist", k, c)
			}
		}
	}
	next := *old // keeps the options' key order
	next.Version, next.ID, next.Fields, next.HighestFieldID = paimon.SchemaCurrentVersion, old.ID+1, fields, highest
	next.PrimaryKeys, next.Options, next.TimeMillis = pks, opts, time.Now().UnixMilli()
	return &next, nil
}

// nullabilityChange refuses NULL → NOT NULL unless the table sets
// 'alter-column-null-to-not-null.disabled' = 'false' (Java's default: true).
func nullabilityChange(s *paimon.TableSchema, oldNullable, newNullable bool, col string) error {
	if oldNullable && !newNullable && s.OptionBool("alter-column-null-to-not-null.disabled", true) {
		return unsupportedf("cannot update column type from nullable to non nullable for %s (table option 'alter-column-null-to-not-null.disabled' = 'false' allows it)", col)
	}
	return nil
}

// reassignNested numbers the fields nested in t after *highest, as
// ReassignFieldId does (a ROW field's children before the field).
func reassignNested(t types.DataType, highest *int) types.DataType {
	switch t.Root {
	case types.Array, types.Multiset, types.Vector:
		e := reassignNested(*t.Element, highest)
		t.Element = &e
	case types.Map:
		k, v := reassignNested(*t.Key, highest), reassignNested(*t.Value, highest)
		t.Key, t.Value = &k, &v
	case types.Row:
		fs := make([]types.DataField, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = reassignNested(f.Type, highest)
			*highest++
			f.ID = *highest
			fs[i] = f
		}
		t.Fields = fs
	}
	return t
}

// renameInOptions renames a column in the options naming columns, as
// SchemaManager.applyRenameColumnsToOptions does.
func renameInOptions(opts map[string]string, from, to string) {
	renameList := func(v string) string {
		parts := strings.Split(v, ",")
		for i, p := range parts {
			if p == from {
				parts[i] = to
			}
		}
		return strings.Join(parts, ",")
	}
	for _, k := range []string{"bucket-key", "sequence.field"} {
		if v, ok := opts[k]; ok && strings.TrimSpace(v) != "" {
			opts[k] = renameList(v)
		}
	}
	for _, suffix := range []string{"aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter", "map.storage-layout", "map.shared-shredding.max-columns", "map.shared-shredding.column-placement-policy"} {
		k := "fields." + from + "." + suffix
		if v, ok := opts[k]; ok {
			delete(opts, k)
			opts["fields."+to+"."+suffix] = v
		}
	}
	for k, v := range opts {
		if !strings.HasPrefix(k, "fields.") {
			continue
		}
		for _, suffix := range []string{"sequence-group", "nested-key"} {
			if strings.HasSuffix(k, "."+suffix) && len(k) > len("fields.")+len(suffix)+1 {
				keys := k[len("fields.") : len(k)-len(suffix)-1]
				delete(opts, k)
				opts["fields."+renameList(keys)+"."+suffix] = renameList(v)
			}
		}
	}
}

func unsupportedf(format string, a ...any) error {
	return paimon.Errorf(paimon.ErrUnsupported, "%s", fmt.Sprintf(format, a...))
}
