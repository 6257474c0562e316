package binrow

import (
	"fmt"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// fuzzTypeLists returns the row types the fuzzer decodes with: the
// all-types row, and every distinct type list of the fixture rows.
func fuzzTypeLists(f testing.TB) ([][]types.DataType, []serializedRow) {
	all, _ := allTypes()
	lists := [][]types.DataType{all, {types.NewString()}, {types.NewDecimal(38, 2), types.NewTimestamp(9)}}
	var rows []serializedRow
	if _, ok := testutil.LocateFixtures(); ok {
		rows = fixtureRows(f)
	}
	seen := map[string]int{}
	for i := range lists {
		seen[fmt.Sprint(lists[i])] = i
	}
	for _, r := range rows {
		k := fmt.Sprint(r.types)
		if _, ok := seen[k]; !ok {
			seen[k] = len(lists)
			lists = append(lists, r.types)
		}
	}
	return lists, rows
}

// FuzzDeserialize decodes arbitrary bytes as a serialized BinaryRow: it must
// never panic, and whatever decodes must re-encode canonically.
func FuzzDeserialize(f *testing.F) {
	lists, rows := fuzzTypeLists(f)
	index := map[string]int{}
	for i, l := range lists {
		index[fmt.Sprint(l)] = i
	}
	for _, r := range rows {
		f.Add(uint8(index[fmt.Sprint(r.types)]), r.bytes)
	}
	all, vals := allTypes()
	f.Add(uint8(0), must(Serialize(all, vals)))
	f.Add(uint8(0), must(Serialize(all, make([]any, len(all)))))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		ts := lists[int(which)%len(lists)]
		got, err := Deserialize(ts, data)
		if err != nil {
			return
		}
		enc, err := Serialize(ts, got)
		if err != nil {
			t.Fatalf("decoded %#v but cannot re-encode: %v", got, err)
		}
		back, err := Deserialize(ts, enc)
		if err != nil {
			t.Fatalf("re-encoded row does not decode: %v", err)
		}
		enc2, err := Serialize(ts, back)
		if err != nil || string(enc2) != string(enc) {
			t.Fatalf("canonical encoding not stable: %v", err)
		}
	})
}
