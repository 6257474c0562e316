package parse

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// parseAlter parses the tokens after ALTER (Flink and Spark syntax):
//
//	ALTER TABLE [db.]t SET ('k' = 'v', ...)
//	ALTER TABLE [db.]t RESET ('k', ...)
//	ALTER TABLE [db.]t ADD [COLUMN] c TYPE [NULL | NOT NULL] [COMMENT 's'] [FIRST | AFTER x]
//	ALTER TABLE [db.]t ADD (c TYPE ..., ...)
//	ALTER TABLE [db.]t RENAME [COLUMN] a TO b
//	ALTER TABLE [db.]t DROP [COLUMN] c | DROP (c, ...)
//	ALTER TABLE [db.]t MODIFY c TYPE [NULL | NOT NULL] [COMMENT 's'] [FIRST | AFTER x]
//	ALTER TABLE [db.]t ALTER [COLUMN] c TYPE t | SET NOT NULL | DROP NOT NULL | COMMENT 's' | FIRST | AFTER x
//
// MODIFY sets the nullability as written (Flink: a type without NOT NULL is
// nullable); ALTER COLUMN c TYPE keeps it (Spark).
func parseAlter(toks []token) (*DDL, error) {
	d := &ddlParser{}
	for _, t := range toks {
		if t.kind != tSpace && t.kind != tComment {
			d.sig = append(d.sig, t)
		}
	}
	if !d.acceptWords("TABLE") {
		return nil, paimon.Errorf(catalog.ErrUnsupported, "ALTER: only ALTER TABLE is supported")
	}
	out := &DDL{Kind: "ALTER TABLE"}
	var err error
	if out.Database, out.Table, err = d.qualified(); err != nil {
		return nil, err
	}
	switch {
	case d.acceptWords("SET"):
		if out.Options, err = d.options(); err != nil {
			return nil, err
		}
	case d.acceptWords("RESET"):
		if !d.acceptPunct("(") {
			return nil, d.errf("expected '(' after RESET")
		}
		for {
			k, err := d.str("an option key")
			if err != nil {
				return nil, err
			}
			out.Reset = append(out.Reset, k)
			if d.acceptPunct(")") {
				break
			}
			if !d.acceptPunct(",") {
				return nil, d.errf("expected ',' or ')' in RESET")
			}
		}
	case d.acceptWords("ADD"):
		if d.acceptWords("PRIMARY") || d.acceptWords("CONSTRAINT") || d.acceptWords("WATERMARK") || d.acceptWords("PARTITION") {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "ALTER TABLE ... ADD %s (only columns can be added)", strings.ToUpper(d.sig[d.i-1].text))
		}
		if d.acceptPunct("(") {
			for {
				ch, err := d.addColumn()
				if err != nil {
					return nil, err
				}
				out.Changes = append(out.Changes, ch)
				if d.acceptPunct(")") {
					break
				}
				if !d.acceptPunct(",") {
					return nil, d.errf("expected ',' or ')' in ADD (...)")
				}
			}
		} else {
			d.acceptWords("COLUMN")
			ch, err := d.addColumn()
			if err != nil {
				return nil, err
			}
			out.Changes = append(out.Changes, ch)
		}
	case d.acceptWords("RENAME"):
		if d.acceptWords("TO") {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "ALTER TABLE ... RENAME TO (renaming tables is not supported; columns: RENAME [COLUMN] a TO b)")
		}
		d.acceptWords("COLUMN")
		from, err := d.name("column")
		if err != nil {
			return nil, err
		}
		if !d.acceptWords("TO") {
			return nil, d.errf("expected TO")
		}
		to, err := d.name("column")
		if err != nil {
			return nil, err
		}
		out.Changes = append(out.Changes, write.ColumnChange{Kind: write.RenameColumn, Column: from, NewName: to})
	case d.acceptWords("DROP"):
		if d.acceptWords("PRIMARY") || d.acceptWords("CONSTRAINT") || d.acceptWords("WATERMARK") || d.acceptWords("PARTITION") {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "ALTER TABLE ... DROP %s (only columns can be dropped)", strings.ToUpper(d.sig[d.i-1].text))
		}
		var cols []string
		if d.i < len(d.sig) && isPunct(d.sig[d.i], "(") {
			if cols, err = d.nameList(); err != nil {
				return nil, err
			}
		} else {
			d.acceptWords("COLUMN")
			c, err := d.name("column")
			if err != nil {
				return nil, err
			}
			cols = []string{c}
		}
		for _, c := range cols {
			out.Changes = append(out.Changes, write.ColumnChange{Kind: write.DropColumn, Column: c})
		}
	case d.acceptWords("MODIFY"):
		if d.i < len(d.sig) && isPunct(d.sig[d.i], "(") {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "ALTER TABLE ... MODIFY (...): modify one column per statement")
		}
		d.acceptWords("COLUMN")
		name, err := d.name("column")
		if err != nil {
			return nil, err
		}
		dt, err := d.colType(name)
		if err != nil {
			return nil, err
		}
		out.Changes = append(out.Changes, write.ColumnChange{Kind: write.UpdateColumnType, Column: name, Type: dt})
		if d.acceptWords("COMMENT") {
			c, err := d.str("COMMENT")
			if err != nil {
				return nil, err
			}
			out.Changes = append(out.Changes, write.ColumnChange{Kind: write.UpdateColumnComment, Column: name, Comment: &c})
		}
		if ch, ok, err := d.position(name); err != nil {
			return nil, err
		} else if ok {
			out.Changes = append(out.Changes, ch)
		}
	case d.acceptWords("ALTER"):
		d.acceptWords("COLUMN")
		name, err := d.name("column")
		if err != nil {
			return nil, err
		}
		switch {
		case d.acceptWords("TYPE"):
			dt, err := d.colType(name)
			if err != nil {
				return nil, err
			}
			out.Changes = append(out.Changes, write.ColumnChange{Kind: write.UpdateColumnType, Column: name, Type: dt, KeepNullability: true})
		case d.acceptWords("SET", "NOT", "NULL"):
			out.Changes = append(out.Changes, write.ColumnChange{Kind: write.UpdateColumnNullability, Column: name, Nullable: false})
		case d.acceptWords("DROP", "NOT", "NULL"):
			out.Changes = append(out.Changes, write.ColumnChange{Kind: write.UpdateColumnNullability, Column: name, Nullable: true})
		case d.acceptWords("COMMENT"):
			c, err := d.str("COMMENT")
			if err != nil {
				return nil, err
			}
			out.Changes = append(out.Changes, write.ColumnChange{Kind: write.UpdateColumnComment, Column: name, Comment: &c})
		default:
			ch, ok, err := d.position(name)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, d.errf("expected TYPE, SET NOT NULL, DROP NOT NULL, COMMENT, FIRST or AFTER")
			}
			out.Changes = append(out.Changes, ch)
		}
	default:
		return nil, d.errf("expected SET, RESET, ADD, RENAME, DROP, MODIFY or ALTER")
	}
	return out, d.end()
}

// addColumn parses c TYPE [NULL | NOT NULL] [COMMENT 's'] [FIRST | AFTER x].
func (d *ddlParser) addColumn() (write.ColumnChange, error) {
	name, err := d.name("column")
	if err != nil {
		return write.ColumnChange{}, err
	}
	dt, err := d.colType(name)
	if err != nil {
		return write.ColumnChange{}, err
	}
	ch := write.ColumnChange{Kind: write.AddColumn, Column: name, Type: dt}
	if d.acceptWords("COMMENT") {
		c, err := d.str("COMMENT")
		if err != nil {
			return ch, err
		}
		ch.Comment = &c
	}
	if p, ok, err := d.position(name); err != nil {
		return ch, err
	} else if ok {
		ch.Position, ch.After = p.Position, p.After
	}
	return ch, nil
}

// position parses FIRST | AFTER x as an UpdateColumnPosition of col.
func (d *ddlParser) position(col string) (write.ColumnChange, bool, error) {
	ch := write.ColumnChange{Kind: write.UpdateColumnPosition, Column: col}
	switch {
	case d.acceptWords("FIRST"):
		ch.Position = "FIRST"
	case d.acceptWords("AFTER"):
		ch.Position = "AFTER"
		var err error
		if ch.After, err = d.name("column"); err != nil {
			return ch, false, err
		}
	default:
		return ch, false, nil
	}
	return ch, true, nil
}

// colType parses a column type and an optional NULL / NOT NULL.
func (d *ddlParser) colType(name string) (types.DataType, error) {
	start, depth := d.i, 0
	var text strings.Builder
	for ; d.i < len(d.sig); d.i++ {
		t := d.sig[d.i]
		if depth == 0 && (isPunct(t, ",") || isPunct(t, ")") || isWord(t, "NOT") || isWord(t, "NULL") || isWord(t, "COMMENT") ||
			isWord(t, "PRIMARY") || isWord(t, "FIRST") || isWord(t, "AFTER")) {
			break
		}
		if t.kind == tPunct {
			depth += strings.Count(t.text, "(") + strings.Count(t.text, "<") - strings.Count(t.text, ")") - strings.Count(t.text, ">")
		}
		text.WriteString(t.text)
		text.WriteByte(' ')
	}
	if d.i == start {
		return types.DataType{}, d.errf("expected the type of column %s", name)
	}
	dt, err := parseColumnType(text.String())
	if err != nil {
		return dt, paimon.Errorf(catalog.ErrInvalid, "column %s: %v", name, err)
	}
	if d.acceptWords("NOT", "NULL") {
		dt.Nullable = false
	} else {
		d.acceptWords("NULL")
	}
	return dt, nil
}
