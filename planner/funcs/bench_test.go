package funcs

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

const benchRows = 1 << 20

// benchCall evaluates name(args) over a batch of col.
func benchCall(b *testing.B, name string, col arrow.Array, extra ...vec.Expr) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(b, 0)
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "c", Type: col.DataType(), Nullable: true}}, nil), []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	var args []vec.Expr
	c := &vec.Column{Index: 0, Name: "c", T: col.DataType(), Null: true}
	if len(extra) > 0 && extra[0] == nil { // part first: name(part, c)
		args = append([]vec.Expr{extra[1]}, c)
	} else {
		args = append([]vec.Expr{c}, extra...)
	}
	e, err := vec.NewCall(name, args)
	if err != nil {
		b.Fatal(err)
	}
	ctx := vec.NewCtx(context.Background(), mem, nil)
	b.ResetTimer()
	for range b.N {
		out, err := e.Eval(ctx, rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

func referers() arrow.Array {
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	defer bld.Release()
	for i := range benchRows {
		switch i % 4 {
		case 0:
			bld.Append("")
		case 1:
			bld.Append(fmt.Sprintf("http://www.site%d.ru/catalog/item?id=%d&utm_source=x", i%1000, i))
		case 2:
			bld.Append(fmt.Sprintf("https://yandex.ru/search/?text=%d", i))
		default:
			bld.Append(fmt.Sprintf("http://example%d.com/", i%97))
		}
	}
	return bld.NewArray()
}

func BenchmarkRegexpReplaceClickBench(b *testing.B) {
	benchCall(b, "regexp_replace", referers(), vec.StringLiteral(`^https?://(?:www\.)?([^/]+)/.*$`), vec.StringLiteral(`\1`))
}

func BenchmarkLength(b *testing.B) { benchCall(b, "length", referers()) }

func timestamps() arrow.Array {
	bld := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Microsecond})
	defer bld.Release()
	for i := range benchRows {
		bld.Append(arrow.Timestamp(1_372_636_800_000_000 + int64(i)*37_000_123))
	}
	return bld.NewArray()
}

func BenchmarkDateTruncMinute(b *testing.B) {
	benchCall(b, "date_trunc", timestamps(), nil, vec.StringLiteral("minute"))
}

func BenchmarkDateTruncMonth(b *testing.B) {
	benchCall(b, "date_trunc", timestamps(), nil, vec.StringLiteral("month"))
}

func BenchmarkExtractYear(b *testing.B) {
	benchCall(b, "date_part", timestamps(), nil, vec.StringLiteral("year"))
}

func BenchmarkExtractMinute(b *testing.B) {
	benchCall(b, "date_part", timestamps(), nil, vec.StringLiteral("minute"))
}

func BenchmarkSubstring(b *testing.B) {
	benchCall(b, "substring", referers(), vec.StringLiteral("1"), vec.StringLiteral("10"))
}
