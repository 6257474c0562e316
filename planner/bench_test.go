package planner

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// benchEngine builds a 1M-row table of 64 records.
func benchEngine(b *testing.B) *Engine {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(1))
	var recs []arrow.RecordBatch
	for range 64 {
		rows := make([][]any, 16384)
		for i := range rows {
			rows[i] = []any{int64(i), int64(r.Intn(100)), int64(r.Intn(10)), r.Float64() * 100, diffStrings[r.Intn(len(diffStrings))], int64(19700 + r.Intn(365))}
		}
		recs = append(recs, buildRecord(b, mem, diffSchema, rows))
	}
	tab, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: "t"}, "", diffSchema, nil, recs)
	if err != nil {
		b.Fatal(err)
	}
	cat := catalog.NewMemCatalog("")
	cat.AddTable("default", tab)
	return New(cat, Options{})
}

func benchQuery(b *testing.B, sql string) {
	e := benchEngine(b)
	b.ResetTimer()
	for b.Loop() {
		rdr, err := Run(context.Background(), e, sql, Session{}, memory.NewGoAllocator())
		if err != nil {
			b.Fatal(err)
		}
		for rdr.Next() {
		}
		rdr.Release()
	}
}

func BenchmarkFilterProject(b *testing.B) {
	benchQuery(b, "SELECT id, a FROM t WHERE a > 50 AND s = 'apple'")
}

func BenchmarkFilterGeneric(b *testing.B) {
	benchQuery(b, "SELECT id FROM t WHERE a + k > 50")
}

func BenchmarkGroupBy(b *testing.B) {
	benchQuery(b, "SELECT s, COUNT(*), SUM(a), AVG(b) FROM t GROUP BY s")
}

func BenchmarkTopN(b *testing.B) {
	benchQuery(b, "SELECT id, b FROM t ORDER BY b DESC LIMIT 10")
}
