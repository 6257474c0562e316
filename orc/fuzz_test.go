package orc

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// FuzzOpenRead feeds whole files to Open and the readers. Malformed input
// must produce an error that names the file, never a panic; allocations are
// bounded by the limits applied to every length read from the file.
func FuzzOpenRead(f *testing.F) {
	if _, ok := testutil.LocateFixtures(); ok {
		for _, p := range orcFiles(f) {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte("ORC"))
	f.Add([]byte("ORC\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.orc"
		file, err := Open(bytes.NewReader(data), int64(len(data)), name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		_ = file.Schema().Arrow.String()
		for i := 0; i < file.NumStripes(); i++ {
			file.StripeStats(i)
			if file.StripeRows(i) > 1<<16 {
				continue
			}
			rec, err := file.ReadStripe(context.Background(), i, mem, nil)
			if err != nil {
				if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "stripe") {
					t.Fatalf("error does not name the file and stripe: %v", err)
				}
				continue
			}
			if rec.NumRows() != file.StripeRows(i) {
				t.Fatalf("stripe %d: %d rows, footer says %d", i, rec.NumRows(), file.StripeRows(i))
			}
			rec.Release()
		}
		rr, err := file.NewRecordReader(context.Background(), mem, ReaderOptions{BatchSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		rows := 0
		for rows < 1<<16 && rr.Next() {
			rows += int(rr.RecordBatch().NumRows())
		}
		if err := rr.Err(); err != nil && !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}

// FuzzColumnStreams replaces one stream of the hand-built stripe of
// TestColumnEncodings (uncompressed, all supported types) with fuzzed bytes,
// so that the decoders see arbitrary input rather than bytes that must first
// get through a decompressor.
func FuzzColumnStreams(f *testing.F) {
	keys := testStripeKeys()
	base := testStripe()
	for i, k := range keys {
		f.Add(uint8(i), base.streams[k])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		src := testStripe()
		src.streams[keys[int(which)%len(keys)]] = data
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		if _, err := decodeTestStripe(t, mem, src, 1, 3); err != nil && !strings.Contains(err.Error(), "stream") {
			t.Fatalf("error does not name the stream: %v", err)
		}
	})
}
