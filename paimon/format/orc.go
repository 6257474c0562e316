package format

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/orc"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// ORCFile is an opened ORC data file (tail parsed). Row groups are stripes.
// Like Java Paimon, columns are found by the names the file's schema version
// gives them (primary-key files add _KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND).
// It holds no Arrow memory and is safe for concurrent use.
type ORCFile struct {
	name        string
	f           *orc.File
	fileFields  []types.DataField
	byID        map[int]types.DataField
	topByName   map[string]int // top-level ORC column name → index
	topByLower  map[string]int // lower-cased names, when unambiguous
	stripeStart []int64        // file row position of each stripe's first row
}

// OpenORC opens an ORC data file; see Open. Errors name the file.
func OpenORC(r io.ReaderAt, size int64, name string, fileFields []types.DataField) (of *ORCFile, err error) {
	defer recoverORC(&err, name)
	if r == nil {
		return nil, fmt.Errorf("open orc file %s: nil reader", name)
	}
	f, err := orc.Open(r, size, name)
	if err != nil {
		return nil, fmt.Errorf("open orc file %s: %w", name, err)
	}
	of = &ORCFile{name: name, f: f, fileFields: fileFields, topByName: map[string]int{}}
	if fileFields != nil {
		of.byID = make(map[int]types.DataField, len(fileFields))
		for _, fd := range fileFields {
			of.byID[fd.ID] = fd
		}
	}
	of.topByLower = map[string]int{}
	ambiguous := map[string]bool{}
	for i, c := range f.Schema().Root.Children {
		if _, dup := of.topByName[c.Name]; !dup {
			of.topByName[c.Name] = i
		}
		l := strings.ToLower(c.Name)
		if _, dup := of.topByLower[l]; dup {
			ambiguous[l] = true
		}
		of.topByLower[l] = i
	}
	for l := range ambiguous {
		delete(of.topByLower, l)
	}
	var pos int64
	of.stripeStart = make([]int64, f.NumStripes())
	for i := range of.stripeStart {
		of.stripeStart[i] = pos
		pos += f.StripeRows(i)
	}
	if pos != f.NumRows() {
		return nil, fmt.Errorf("open orc file %s: stripes hold %d rows, footer says %d", name, pos, f.NumRows())
	}
	return of, nil
}

// recoverORC turns a panic while decoding (corrupt input) into an error
// naming the file.
func recoverORC(err *error, name string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("read orc file %s: corrupt data (%v)", name, r)
	}
}

// Name implements DataFile.
func (f *ORCFile) Name() string { return f.name }

// NumRows implements DataFile.
func (f *ORCFile) NumRows() int64 { return f.f.NumRows() }

// NumRowGroups implements DataFile: the number of stripes.
func (f *ORCFile) NumRowGroups() int { return f.f.NumStripes() }

// RowGroupNumRows implements DataFile.
func (f *ORCFile) RowGroupNumRows(i int) int64 { return f.f.StripeRows(i) }

// RowGroupFirstRow is the file row position of stripe i's first row.
func (f *ORCFile) RowGroupFirstRow(i int) int64 { return f.stripeStart[i] }

// resolve locates a requested field in the file (top = -1: all NULL).
func (f *ORCFile) resolve(fd types.DataField) (column, error) {
	return resolveColumn(fileColumns{
		format: "orc", name: f.name, byID: f.byID, rowTracking: true,
		topByName: func(n string) (int, bool) {
			if i, ok := f.topByName[n]; ok {
				return i, true
			}
			// Hive-style writers may lower-case column names.
			i, ok := f.topByLower[strings.ToLower(n)]
			return i, ok
		},
	}, fd)
}

// Read implements DataFile.
func (f *ORCFile) Read(ctx context.Context, opts ReadOptions) (_ RecordReader, err error) {
	defer recoverORC(&err, f.name)
	mem, batch, stripes, err := opts.defaults("orc", f.name, f.NumRowGroups())
	if err != nil {
		return nil, err
	}
	cols := make([]column, len(opts.Fields))
	var tops []int // distinct ORC columns to decode, in file order
	seen := map[int]bool{}
	for i, fd := range opts.Fields {
		c, err := f.resolve(fd)
		if err != nil {
			return nil, err
		}
		cols[i] = c
		if c.top >= 0 && !seen[c.top] {
			seen[c.top] = true
			tops = append(tops, c.top)
		}
	}
	if _, err := filterColumns(opts.Filter, opts.Fields); err != nil {
		return nil, fmt.Errorf("read orc file %s: %w", f.name, err)
	}
	r := &orcReader{
		ctx:         ctx,
		f:           f,
		mem:         mem,
		batchCursor: batchCursor{schema: ArrowSchema(opts.Fields)},
		cols:        cols,
		stripes:     stripes,
		batch:       int64(batch),
		colIdx:      make(map[int]int, len(tops)),
		filter:      opts.Filter,
		deleted:     opts.Deleted,
	}
	for k, top := range tops {
		r.colIdx[top] = k
	}
	if len(tops) > 0 {
		r.rr, err = f.f.NewRecordReader(ctx, mem, orc.ReaderOptions{Columns: tops, BatchSize: batch, Stripes: stripes})
		if err != nil {
			return nil, fmt.Errorf("read orc file %s: %w", f.name, err)
		}
	}
	return r, nil
}

type orcReader struct {
	batchCursor
	ctx     context.Context
	f       *ORCFile
	mem     memory.Allocator
	cols    []column
	colIdx  map[int]int // ORC top-level column → index in decoded records
	stripes []int       // stripes left (row-only mode)
	batch   int64
	rr      *orc.RecordReader
	filter  predicate.Predicate
	deleted RowDeleter

	pos int64 // row-only mode: next row position; -1 before a stripe
	end int64
}

func (r *orcReader) Release() {
	r.dropCurrent()
	if r.rr != nil {
		r.rr.Release()
		r.rr = nil
	}
	r.done = true
}

// Next implements RecordReader: batches whose rows are all dropped by
// Filter/Deleted are skipped.
func (r *orcReader) Next() bool { return r.nextNonEmpty(r.next1) }

func (r *orcReader) next1() (ok bool) {
	if !r.advance() {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			r.err = fmt.Errorf("read orc file %s: corrupt data (%v)", r.f.name, p)
			ok = false
		}
		if !ok {
			r.Release()
		}
	}()
	if err := r.ctx.Err(); err != nil {
		r.err = fmt.Errorf("read orc file %s: %w", r.f.name, err)
		return false
	}
	if r.rr == nil { // no column to decode: rows only
		for r.pos >= r.end {
			if len(r.stripes) == 0 {
				return false
			}
			s := r.stripes[0]
			r.stripes = r.stripes[1:]
			r.pos, r.end = r.f.stripeStart[s], r.f.stripeStart[s]+r.f.f.StripeRows(s)
		}
		n := min(r.batch, r.end-r.pos)
		return r.emit(nil, r.pos, n)
	}
	for r.rr.Next() {
		rec := r.rr.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		s, row := r.rr.Position()
		return r.emit(rec, r.f.stripeStart[s]+row, rec.NumRows())
	}
	if err := r.rr.Err(); err != nil {
		r.err = fmt.Errorf("read orc file %s: %w", r.f.name, err)
	}
	return false
}

// emit builds the output batch of n rows starting at file position first
// from a decoded record (nil when no column is decoded).
func (r *orcReader) emit(rec arrow.RecordBatch, first, n int64) bool {
	out := make([]arrow.Array, len(r.cols))
	defer func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, c := range r.cols {
		if c.top < 0 {
			out[i] = array.MakeArrayOfNull(r.mem, r.schema.Field(i).Type, int(n))
			continue
		}
		a, err := r.column(rec.Column(r.colIdx[c.top]), c)
		if err != nil {
			r.err = fmt.Errorf("read orc file %s: column %s: %w", r.f.name, c.field.Name, err)
			return false
		}
		out[i] = a
	}
	r.first = first
	r.pos = first + n
	full := array.NewRecordBatch(r.schema, out, n)
	if r.filter == nil && r.deleted == nil {
		r.cur = full
		return true
	}
	defer full.Release()
	sel, pos, err := selectRows(r.ctx, r.mem, full, first, r.filter, r.deleted)
	if err != nil {
		r.err = fmt.Errorf("read orc file %s: %w", r.f.name, err)
		return false
	}
	r.cur, r.rowPos = sel, pos // cur nil when no row survives: Next goes on
	return true
}

// column converts a decoded ORC column to the requested field's Arrow type:
// first to the Arrow type of the file's Paimon type (ORC-specific:
// nanosecond timestamps to the precision's unit, TIME from int), then with
// adapt to the current type.
func (r *orcReader) column(a arrow.Array, c column) (arrow.Array, error) {
	d, err := orcNormalize(r.mem, a.Data(), c.fileType)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	arr := array.MakeFromData(d)
	defer arr.Release()
	return adapt(r.ctx, r.mem, arr, c.fileType, c.field.Type)
}

// orcNormalize rewrites what the ORC decoder produces where it differs from
// ArrowType(t): timestamps (always ns) to TimestampUnit(precision) (values
// floored), TIME (stored as ORC int millis of day) to Time32(ms), recursively
// through lists, maps and structs. Everything else is returned as is (a new
// reference) for adapt to match or cast.
func orcNormalize(mem memory.Allocator, d arrow.ArrayData, t types.DataType) (arrow.ArrayData, error) {
	if !needsNormalize(t) {
		d.Retain()
		return d, nil
	}
	switch t.Root {
	case types.Timestamp, types.TimestampLTZ:
		src, ok := d.DataType().(*arrow.TimestampType)
		if !ok {
			return nil, fmt.Errorf("ORC column is %s, schema says %s", d.DataType(), t)
		}
		unit := TimestampUnit(t.Precision)
		if src.Unit == unit {
			d.Retain()
			return d, nil
		}
		if src.Unit != arrow.Nanosecond {
			return nil, fmt.Errorf("unexpected ORC timestamp unit %s", src.Unit)
		}
		div := int64(unit.Multiplier() / arrow.Nanosecond.Multiplier()) // ns per target unit
		in := array.NewTimestampData(d)
		defer in.Release()
		b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: unit, TimeZone: src.TimeZone})
		defer b.Release()
		b.Reserve(in.Len())
		for i := 0; i < in.Len(); i++ {
			if in.IsNull(i) {
				b.AppendNull()
				continue
			}
			b.Append(arrow.Timestamp(floorDiv(int64(in.Value(i)), div)))
		}
		out := b.NewArray()
		defer out.Release()
		od := out.Data()
		od.Retain()
		return od, nil
	case types.Time:
		if d.DataType().ID() != arrow.INT32 {
			return nil, fmt.Errorf("ORC column is %s, schema says %s", d.DataType(), t)
		}
		return array.NewData(arrow.FixedWidthTypes.Time32ms, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset()), nil
	case types.Array, types.Vector:
		lt, ok := d.DataType().(*arrow.ListType)
		if !ok {
			return nil, fmt.Errorf("ORC column is %s, schema says %s", d.DataType(), t)
		}
		c, err := orcNormalize(mem, d.Children()[0], *t.Element)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		typ := arrow.ListOfField(arrow.Field{Name: lt.ElemField().Name, Type: c.DataType(), Nullable: true})
		return array.NewData(typ, d.Len(), d.Buffers(), []arrow.ArrayData{c}, d.NullN(), d.Offset()), nil
	case types.Map, types.Multiset:
		if d.DataType().ID() != arrow.MAP {
			return nil, fmt.Errorf("ORC column is %s, schema says %s", d.DataType(), t)
		}
		kt, vt := mapKV(t)
		entries := d.Children()[0]
		k, err := orcNormalize(mem, entries.Children()[0], *kt)
		if err != nil {
			return nil, err
		}
		defer k.Release()
		v, err := orcNormalize(mem, entries.Children()[1], *vt)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		mt := arrow.MapOf(k.DataType(), v.DataType())
		e := array.NewData(mt.Elem(), entries.Len(), entries.Buffers()[:1], []arrow.ArrayData{k, v}, entries.NullN(), entries.Offset())
		defer e.Release()
		return array.NewData(mt, d.Len(), d.Buffers(), []arrow.ArrayData{e}, d.NullN(), d.Offset()), nil
	case types.Row:
		st, ok := d.DataType().(*arrow.StructType)
		if !ok {
			return nil, fmt.Errorf("ORC column is %s, schema says %s", d.DataType(), t)
		}
		byName := make(map[string]types.DataType, len(t.Fields))
		for _, f := range t.Fields {
			byName[f.Name] = f.Type
		}
		fields := make([]arrow.Field, st.NumFields())
		children := make([]arrow.ArrayData, st.NumFields())
		defer releaseData(children)
		for i, sf := range st.Fields() {
			child := d.Children()[i]
			ft, ok := byName[sf.Name]
			var err error
			if ok {
				child, err = orcNormalize(mem, child, ft)
				if err != nil {
					return nil, fmt.Errorf("field %s: %w", sf.Name, err)
				}
			} else {
				child.Retain() // not in the schema: adapt ignores it
			}
			children[i] = child
			fields[i] = arrow.Field{Name: sf.Name, Type: child.DataType(), Nullable: true}
		}
		return array.NewData(arrow.StructOf(fields...), d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset()), nil
	}
	d.Retain()
	return d, nil
}

// needsNormalize reports whether t contains a TIMESTAMP or TIME.
func needsNormalize(t types.DataType) bool {
	switch t.Root {
	case types.Timestamp, types.TimestampLTZ, types.Time:
		return true
	case types.Array, types.Vector, types.Multiset:
		return needsNormalize(*t.Element)
	case types.Map:
		return needsNormalize(*t.Key) || needsNormalize(*t.Value)
	case types.Row:
		for _, f := range t.Fields {
			if needsNormalize(f.Type) {
				return true
			}
		}
	}
	return false
}

var _ DataFile = (*ORCFile)(nil)

// RowGroupStats implements DataFile from the stripe statistics of stripe i:
// null counts for top-level columns, min/max for integer, floating point,
// boolean, string, decimal and date columns. Timestamp bounds are left out
// (ORC stores them in milliseconds with writer-zone subtleties), as are
// nested and binary columns. A field the file does not contain is reported
// as all-NULL.
func (f *ORCFile) RowGroupStats(i int, fields []types.DataField) predicate.MapStats {
	rows := f.f.StripeRows(i)
	out := predicate.MapStats{Rows: rows, Columns: make(map[int]predicate.ColumnStats, len(fields))}
	stats := f.f.StripeStats(i)
	for _, fd := range fields {
		c, err := f.resolve(fd)
		if err != nil {
			continue
		}
		if c.top < 0 {
			out.Columns[fd.ID] = predicate.ColumnStats{NullCount: rows}
			continue
		}
		id := f.f.Schema().Root.Children[c.top].ID
		if id >= len(stats) {
			continue
		}
		s := stats[id]
		cs := predicate.ColumnStats{NullCount: -1}
		// numberOfValues counts the non-null values; trust it when the
		// writer also recorded hasNull (or it is non-zero, so it was written).
		if s.NumValues <= uint64(rows) && (s.HasNullKnown || s.NumValues > 0) {
			cs.NullCount = rows - int64(s.NumValues)
			if s.HasNullKnown && s.HasNull != (cs.NullCount > 0) {
				cs.NullCount = -1 // inconsistent statistics: do not use them
			}
		}
		if !c.fileType.IsNested() {
			mn, mx, ok := orcStatsLiterals(s, c.fileType)
			if ok {
				mn, ok1 := evolveLiteral(mn, c.fileType, fd.Type)
				mx, ok2 := evolveLiteral(mx, c.fileType, fd.Type)
				if ok1 && ok2 {
					cs.Min, cs.Max = mn, mx
				}
			}
		}
		if cs.NullCount >= 0 || cs.Min != nil {
			out.Columns[fd.ID] = cs
		}
	}
	return out
}

// orcStatsLiterals converts ORC min/max statistics to literals of the file's
// Paimon type t (predicate.Literal conventions).
func orcStatsLiterals(s orc.ColumnStats, t types.DataType) (mn, mx predicate.Literal, ok bool) {
	if t.Root == types.Boolean {
		if !s.HasTrueCount || s.NumValues == 0 {
			return nil, nil, false
		}
		return s.TrueCount == s.NumValues, s.TrueCount > 0, true
	}
	if s.Min == nil || s.Max == nil {
		return nil, nil, false
	}
	switch lo := s.Min.(type) {
	case int64:
		hi, _ := s.Max.(int64)
		switch t.Root {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Time:
			return lo, hi, true
		}
	case float64:
		hi, _ := s.Max.(float64)
		if math.IsNaN(lo) || math.IsNaN(hi) {
			return nil, nil, false
		}
		if t.Root == types.Float || t.Root == types.Double {
			return lo, hi, true
		}
	case int32:
		hi, _ := s.Max.(int32)
		if t.Root == types.Date {
			return int64(lo), int64(hi), true
		}
	case string:
		hi, _ := s.Max.(string)
		switch {
		case t.IsString():
			return lo, hi, true
		case t.Root == types.Decimal:
			a, ok1 := parseDecimal(lo, t.Scale)
			b, ok2 := parseDecimal(hi, t.Scale)
			if ok1 && ok2 {
				return a, b, true
			}
		}
	}
	return nil, nil, false
}

// parseDecimal parses ORC's decimal statistics text into a Decimal at the
// given scale; false when it is not exact at that scale.
func parseDecimal(s string, scale int) (predicate.Decimal, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return predicate.Decimal{}, false
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return predicate.Decimal{}, false
	}
	return predicate.Decimal{Unscaled: new(big.Int).Set(r.Num()), Scale: scale}, true
}
