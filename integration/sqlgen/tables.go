package sqlgen

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Type is the SQL type class of a column or expression.
type Type int

const (
	TInt   Type = iota // INT and BIGINT
	TDec               // DECIMAL(12,2)
	TFloat             // DOUBLE (multiples of 0.25: sums are exact in any order)
	TStr               // STRING over a small domain
	TDate
	TTs // TIMESTAMP (seconds)
	TBool
)

func (t Type) String() string {
	return [...]string{"int", "decimal", "double", "string", "date", "timestamp", "boolean"}[t]
}

// Column is one generated column: its type, literal domain and null rate.
type Column struct {
	Name    string
	Type    Type
	Big     bool // BIGINT (else INT) for TInt
	Lo, Hi  int64
	NullPct int
}

// Table is one generated table.
type Table struct {
	Name string
	Rows int
	Cols []Column
}

// Database is the Paimon database of the generated tables.
const Database = "sqlgen"

// strDomain is the value set of the STRING columns.
var strDomain = []string{"a", "b", "c", "ab", "abc", "b%c", "", "xy", "Ab", "zz", "a b", "bca"}

// BaseDate is the first DATE / TIMESTAMP value; values span 90 days.
var BaseDate = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const dateDays = 90

// columns is the column set of every table (the same names, so that
// USING and set operations line up): id is unique and NOT NULL, k (1..100)
// and k2 (1..40) are the shared join keys.
func columns(rows int) []Column {
	return []Column{
		{Name: "id", Type: TInt, Big: true, Lo: 1, Hi: int64(rows)},
		{Name: "k", Type: TInt, Big: true, Lo: 1, Hi: 100, NullPct: 20},
		{Name: "k2", Type: TInt, Lo: 1, Hi: 40, NullPct: 25},
		{Name: "i", Type: TInt, Lo: -50, Hi: 50, NullPct: 30},
		{Name: "b", Type: TInt, Big: true, Lo: -1000, Hi: 1000, NullPct: 30},
		{Name: "d", Type: TDec, Lo: -100000, Hi: 100000, NullPct: 30}, // cents
		{Name: "f", Type: TFloat, Lo: -2000, Hi: 2000, NullPct: 30},   // quarters
		{Name: "s", Type: TStr, NullPct: 30},
		{Name: "dt", Type: TDate, NullPct: 25},
		{Name: "ts", Type: TTs, NullPct: 25},
		{Name: "flag", Type: TBool, NullPct: 30},
	}
}

// Tables are the generated tables t1..t4 (1000, 600, 300 and 120 rows).
func Tables() []Table {
	var out []Table
	for i, n := range []int{1000, 600, 300, 120} {
		out = append(out, Table{Name: fmt.Sprintf("t%d", i+1), Rows: n, Cols: columns(n)})
	}
	return out
}

// Fields is the Paimon schema of t.
func (t Table) Fields() []types.DataField {
	var out []types.DataField
	for _, c := range t.Cols {
		var dt types.DataType
		switch c.Type {
		case TInt:
			dt = types.NewInt()
			if c.Big {
				dt = types.NewBigInt()
			}
		case TDec:
			dt = types.NewDecimal(12, 2)
		case TFloat:
			dt = types.NewDouble()
		case TStr:
			dt = types.NewString()
		case TDate:
			dt = types.NewDate()
		case TTs:
			dt = types.NewTimestamp(6)
		case TBool:
			dt = types.NewBoolean()
		}
		if c.NullPct == 0 {
			dt = dt.NotNull()
		}
		out = append(out, types.DataField{Name: c.Name, Type: dt})
	}
	return out
}

// Data generates the rows of t from seed (the same seed, the same rows).
func (t Table) Data(mem memory.Allocator, seed uint64) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(seed, uint64(len(t.Name))*7919+uint64(t.Rows)))
	b := array.NewRecordBuilder(mem, format.ArrowSchema(t.Fields()))
	defer b.Release()
	for r := 0; r < t.Rows; r++ {
		for ci, c := range t.Cols {
			fb := b.Field(ci)
			if c.NullPct > 0 && rng.IntN(100) < c.NullPct {
				fb.AppendNull()
				continue
			}
			switch c.Type {
			case TInt:
				v := c.Lo + rng.Int64N(c.Hi-c.Lo+1)
				if c.Name == "id" {
					v = int64(r + 1)
				}
				if c.Big {
					fb.(*array.Int64Builder).Append(v)
				} else {
					fb.(*array.Int32Builder).Append(int32(v))
				}
			case TDec:
				fb.(*array.Decimal128Builder).Append(decimal128.FromI64(c.Lo + rng.Int64N(c.Hi-c.Lo+1)))
			case TFloat:
				fb.(*array.Float64Builder).Append(float64(c.Lo+rng.Int64N(c.Hi-c.Lo+1)) / 4)
			case TStr:
				fb.(*array.StringBuilder).Append(strDomain[rng.IntN(len(strDomain))])
			case TDate:
				fb.(*array.Date32Builder).Append(arrow.Date32FromTime(BaseDate.AddDate(0, 0, rng.IntN(dateDays))))
			case TTs:
				// Few distinct seconds, so that equal timestamps occur.
				sec := int64(rng.IntN(dateDays))*86400 + int64(rng.IntN(24))*3600 + int64(rng.IntN(4))*900
				fb.(*array.TimestampBuilder).Append(arrow.Timestamp((BaseDate.Unix() + sec) * 1_000_000))
			case TBool:
				fb.(*array.BooleanBuilder).Append(rng.IntN(2) == 0)
			}
		}
	}
	return b.NewRecordBatch()
}
