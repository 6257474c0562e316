package aggfunc

import (
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Row kinds stored in _VALUE_KIND.
const (
	KindInsert       int8 = 0 // +I
	KindUpdateBefore int8 = 1 // -U
	KindUpdateAfter  int8 = 2 // +U
	KindDelete       int8 = 3 // -D
)

// IsRetract reports whether kind is -U or -D.
func IsRetract(kind int8) bool { return kind == KindUpdateBefore || kind == KindDelete }

// Records are the records of one key in merge order (user sequence, then
// sequence number), as the reader and the writer hold them.
type Records interface {
	Len() int
	Kind(i int) int8
	// Null reports whether column col of record i is NULL.
	Null(i, col int) bool
	// Value is column col of record i in the arrowrow.Value convention.
	Value(i, col int) any
	// Compare orders the non-null cells col of records i and j.
	Compare(i, j, col int) int
}

// Cell is one column of a merged row: Rec >= 0 takes the cell of record Rec
// of the group, otherwise Val (nil = NULL).
type Cell struct {
	Rec int
	Val any
}

// Merger folds the records of one key with the semantics of Java's
// AggregateMergeFunction (engine aggregation) or PartialUpdateMergeFunction
// (engine partial-update, without sequence groups), wrapped as Java's
// readers and compaction wrap them: ReducerMergeFunctionWrapper returns a
// lone record of a key unchanged, and the merge function sees only groups
// of two or more records. One Merger serves the reader (paimon/scan) and
// the writer's buffer flush and compaction (paimon/write). Not safe for
// concurrent use.
type Merger struct {
	// PartialUpdate selects PartialUpdateMergeFunction; otherwise the
	// aggregation engine with Funcs.
	PartialUpdate bool
	// Funcs are the aggregation engine's per-column functions (primary-key
	// for key columns).
	Funcs []*Func
	// RemoveRecordOnDelete is aggregation.remove-record-on-delete or
	// partial-update.remove-record-on-delete.
	RemoveRecordOnDelete bool
	// IgnoreDelete (partial-update only: Java's AggregateMergeFunction does
	// not look at ignore-delete, whose retractions the writer drops on input).
	IgnoreDelete bool
	// NoReduce applies the merge function to a lone record too, as Java's
	// lookup compaction (LookupMergeFunction, used with deletion vectors
	// when level-0 files are compacted) does instead of the reducer wrapper.
	NoReduce bool

	out  []Cell
	init []bool // first_value / first_non_null_value: a value was taken
}

// Result is the merged row, valid until the next Merge.
func (m *Merger) Result() []Cell { return m.out }

// Merge folds g (NCols columns) and returns the merged row's kind and the
// record giving its key and sequence number. The caller drops a result of
// kind -U/-D where Java's DropDeleteReader does (reads, compaction into the
// top level).
func (m *Merger) Merge(g Records, ncols int) (kind int8, last int, err error) {
	if cap(m.out) < ncols {
		m.out, m.init = make([]Cell, ncols), make([]bool, ncols)
	}
	m.out, m.init = m.out[:ncols], m.init[:ncols]
	n := g.Len()
	if n == 1 && !m.NoReduce { // ReducerMergeFunctionWrapper: a lone record is the result
		for c := range m.out {
			m.out[c] = Cell{Rec: 0}
		}
		return g.Kind(0), 0, nil
	}
	for c := range m.out {
		m.out[c] = Cell{Rec: -1}
		m.init[c] = false
	}
	if m.PartialUpdate {
		return m.partialUpdate(g)
	}
	return m.aggregate(g)
}

// initRow sets every column to record i (Java's initRow).
func (m *Merger) initRow(i int) {
	for c := range m.out {
		m.out[c] = Cell{Rec: i}
	}
}

// acc is the accumulator value of column c.
func (m *Merger) acc(g Records, c int) any {
	if x := m.out[c]; x.Rec >= 0 {
		return g.Value(x.Rec, c)
	}
	return m.out[c].Val
}

func (m *Merger) accNull(g Records, c int) bool {
	if x := m.out[c]; x.Rec >= 0 {
		return g.Null(x.Rec, c)
	}
	return m.out[c].Val == nil
}

// aggregate is AggregateMergeFunction.add over every record, then getResult:
// a -D with remove-record-on-delete replaces the accumulator by the -D's
// own values (it does not empty it, and the first_* functions stay
// initialized), so a later +I aggregates onto them.
func (m *Merger) aggregate(g Records) (int8, int, error) {
	deleteRow := false
	for i := 0; i < g.Len(); i++ {
		kind := g.Kind(i)
		deleteRow = m.RemoveRecordOnDelete && kind == KindDelete
		if deleteRow {
			m.initRow(i)
			continue
		}
		retract := IsRetract(kind)
		for c, f := range m.Funcs {
			if err := m.aggOne(g, f, c, i, retract); err != nil {
				return 0, 0, err
			}
		}
	}
	if deleteRow {
		return KindDelete, g.Len() - 1, nil
	}
	return KindInsert, g.Len() - 1, nil
}

// aggOne is one FieldAggregator.agg / retract call (FieldIgnoreRetractAgg
// returns the accumulator on retract).
func (m *Merger) aggOne(g Records, f *Func, c, i int, retract bool) error {
	if retract && f.IgnoreRetract {
		return nil
	}
	null := g.Null(i, c)
	switch f.Name {
	case PrimaryKey: // FieldPrimaryKeyAgg: the input, also on retract
		m.out[c] = Cell{Rec: i}
	case LastValue: // FieldLastValueAgg: retract gives NULL
		if retract {
			m.out[c] = Cell{Rec: -1}
		} else {
			m.out[c] = Cell{Rec: i}
		}
	case LastNonNullValue: // FieldLastNonNullValueAgg
		if null {
			return nil
		}
		if retract {
			m.out[c] = Cell{Rec: -1}
		} else {
			m.out[c] = Cell{Rec: i}
		}
	case FirstValue, FirstNonNullValue, Min, Max:
		if retract {
			return f.RetractErr()
		}
		switch f.Name {
		case FirstValue: // FieldFirstValueAgg: the first input, even NULL
			if !m.init[c] {
				m.init[c] = true
				m.out[c] = Cell{Rec: i}
			}
		case FirstNonNullValue:
			if !m.init[c] && !null {
				m.init[c] = true
				m.out[c] = Cell{Rec: i}
			}
		default: // FieldMinAgg / FieldMaxAgg
			if null {
				return nil
			}
			if m.accNull(g, c) {
				m.out[c] = Cell{Rec: i}
				return nil
			}
			cur := m.out[c]
			if cur.Rec < 0 {
				return fmt.Errorf("%w: column %s: %s accumulator is not a cell", paimon.ErrInvalid, f.Field, f.Name)
			}
			d := g.Compare(cur.Rec, i, c)
			// max: acc < input ? input : acc; min: acc < input ? acc : input.
			if (f.Name == Max && d < 0) || (f.Name == Min && d >= 0) {
				m.out[c] = Cell{Rec: i}
			}
		}
	default:
		v, err := f.apply(m.acc(g, c), g.Value(i, c), retract)
		if err != nil {
			return err
		}
		m.out[c] = Cell{Rec: -1, Val: v}
	}
	return nil
}

func (f *Func) apply(acc, in any, retract bool) (any, error) {
	if retract {
		return f.Retract(acc, in)
	}
	return f.Agg(acc, in)
}

// partialUpdate is PartialUpdateMergeFunction.add over every record, then
// getResult, without sequence groups (callers refuse them): the first
// record, if it retracts, seeds the row with its values (even when
// ignore-delete then skips it); a -D with remove-record-on-delete replaces
// the row by its values; a +I/+U sets its non-null columns. The result is
// -D when the last record was such a -D or no +I/+U was seen; its sequence
// number is the last non-ignored record's.
func (m *Merger) partialUpdate(g Records) (int8, int, error) {
	deleteRow, meetInsert, filled := false, false, false
	last := 0
	for i := 0; i < g.Len(); i++ {
		deleteRow = false
		if IsRetract(g.Kind(i)) {
			if !filled {
				m.initRow(i)
				filled = true
			}
			if m.IgnoreDelete {
				continue
			}
			last = i
			if m.RemoveRecordOnDelete {
				if g.Kind(i) == KindDelete {
					deleteRow = true
					m.initRow(i)
				}
				continue
			}
			return 0, 0, fmt.Errorf("%w: partial-update merge engine cannot accept DELETE/UPDATE_BEFORE records by default (set 'ignore-delete' or 'partial-update.remove-record-on-delete')", paimon.ErrInvalid)
		}
		last = i
		for c := range m.out {
			if !g.Null(i, c) {
				m.out[c] = Cell{Rec: i}
			}
		}
		meetInsert, filled = true, true
	}
	if deleteRow || !meetInsert {
		return KindDelete, last, nil
	}
	return KindInsert, last, nil
}

// IgnoreDelete is Java's CoreOptions.IGNORE_DELETE: ignore-delete, else the
// first present of its fallback keys first-row.ignore-delete,
// deduplicate.ignore-delete, partial-update.ignore-delete (whatever the
// merge engine; there is no aggregation.ignore-delete).
func IgnoreDelete(options map[string]string) bool {
	for _, k := range []string{"ignore-delete", "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"} {
		if v, ok := options[k]; ok {
			return strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	return false
}

// CheckPartialUpdate refuses the partial-update options whose semantics
// Merger does not implement, and the combinations Java's
// PartialUpdateMergeFunction.Factory rejects, naming the option: sequence
// groups (fields.<g>.sequence-group) and what depends on them
// (partial-update.remove-record-on-sequence-group, per-field aggregate
// functions other than last_non_null_value, which Java accepts only inside
// a sequence group), and remove-record-on-delete with ignore-delete.
func CheckPartialUpdate(options map[string]string) error {
	for k, v := range options {
		switch {
		case strings.HasPrefix(k, "fields.") && strings.HasSuffix(k, ".sequence-group"):
			return paimon.Errorf(paimon.ErrUnsupported, "partial-update option %q (sequence groups) is not supported", k)
		case k == "partial-update.remove-record-on-sequence-group":
			return paimon.Errorf(paimon.ErrUnsupported, "partial-update option %q (it needs sequence groups) is not supported", k)
		case (strings.HasPrefix(k, "fields.") && strings.HasSuffix(k, ".aggregate-function")) || k == "fields.default-aggregate-function":
			n := strings.ToLower(strings.TrimSpace(v))
			if n != LastNonNullValue {
				return paimon.Errorf(paimon.ErrInvalid, "partial-update option %q = %q: an aggregate function other than last_non_null_value needs a sequence group (Java refuses the table too)", k, v)
			}
		}
	}
	if strings.EqualFold(strings.TrimSpace(options["partial-update.remove-record-on-delete"]), "true") && IgnoreDelete(options) {
		return paimon.Errorf(paimon.ErrInvalid, "ignore-delete and partial-update.remove-record-on-delete conflict and cannot both be enabled (as in Java)")
	}
	return nil
}

// FuncName is the aggregate function of non-key column field of an
// aggregation table (Java's AggregateMergeFunction.getAggFuncName): a
// sequence.field column takes last_value, else fields.<f>.aggregate-function,
// else fields.default-aggregate-function, else last_non_null_value.
func FuncName(options map[string]string, field string, sequenceFields []string) string {
	for _, s := range sequenceFields {
		if s == field {
			return LastValue
		}
	}
	if v, ok := options["fields."+field+".aggregate-function"]; ok {
		return v
	}
	if v, ok := options["fields.default-aggregate-function"]; ok {
		return v
	}
	return LastNonNullValue
}
