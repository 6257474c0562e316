package write

import (
	"fmt"
	"math"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/deletion"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Deletion vectors are kept as 32-bit roaring bitmaps while the writer
// works (positions of one data file) and converted to the deletion
// package's vectors to be encoded and decoded (paimon-format.md §7.2).

const dvIndexType = "DELETION_VECTORS"

// encodeDVIndex encodes the deletion vectors of dvs (data file → deleted
// positions) as one index file, entries ordered by data file name, in the
// 64-bit format when bitmap64 (deletion-vectors.bitmap64) is set. It
// returns the bytes and the DeletionVectorMeta ranges.
func encodeDVIndex(dvs map[string]*roaring.Bitmap, bitmap64 bool) ([]byte, []paimon.DeletionVectorMeta, error) {
	names := make([]string, 0, len(dvs))
	for n, bm := range dvs {
		if bm != nil && !bm.IsEmpty() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	vecs := make([]deletion.NamedVector, 0, len(names))
	for _, n := range names {
		var v deletion.Vector = deletion.NewBitmap32()
		if bitmap64 {
			v = deletion.NewBitmap64()
		}
		it := dvs[n].Iterator()
		for it.HasNext() {
			if err := v.Add(int64(it.Next())); err != nil {
				return nil, nil, fmt.Errorf("deletion vector of %s: %w", n, err)
			}
		}
		vecs = append(vecs, deletion.NamedVector{DataFile: n, Vector: v})
	}
	data, rs, err := deletion.EncodeIndexFile(vecs)
	if err != nil {
		return nil, nil, err
	}
	ranges := make([]paimon.DeletionVectorMeta, len(rs))
	for i, r := range rs {
		if r.Offset > math.MaxInt32 || r.Length > math.MaxInt32 {
			return nil, nil, fmt.Errorf("deletion vector index too large (%d bytes)", len(data))
		}
		card := r.Cardinality
		ranges[i] = paimon.DeletionVectorMeta{DataFileName: r.DataFile, Offset: int32(r.Offset), Length: int32(r.Length), Cardinality: &card}
	}
	return data, ranges, nil
}

// decodeDVIndex reads the vectors listed in ranges from index file data.
func decodeDVIndex(file string, data []byte, ranges []paimon.DeletionVectorMeta) (map[string]*roaring.Bitmap, error) {
	rs := make([]deletion.Range, 0, len(ranges))
	for _, r := range ranges {
		card := int64(-1)
		if r.Cardinality != nil {
			card = *r.Cardinality
		}
		rs = append(rs, deletion.Range{DataFile: r.DataFileName, Offset: int64(r.Offset), Length: int64(r.Length), Cardinality: card})
	}
	vecs, err := deletion.ReadIndexFile(file, data, rs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", paimon.ErrCorrupt, err)
	}
	out := make(map[string]*roaring.Bitmap, len(vecs))
	for name, v := range vecs {
		bm := roaring.New()
		for pos := range v.Positions() {
			if pos < 0 || pos > math.MaxUint32 {
				return nil, fmt.Errorf("deletion vector of %s in %s: position %d beyond 2^32 rows is not supported", name, file, pos)
			}
			bm.Add(uint32(pos))
		}
		out[name] = bm
	}
	return out, nil
}
