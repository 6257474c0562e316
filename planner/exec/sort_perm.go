package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
)

// sortPerm returns the permutation of rows 0..n-1 ordered by the encoded
// keys segs (compared segment after segment), ties in row order (stable).
//
// When every segment has fixed-width rows and at most 8 byte positions
// differ between rows, the varying bytes are packed into one uint64 per row
// and LSD radix sorted (stable, a pass per varying byte). Otherwise rows are
// pdq-sorted on an 8-byte prefix of their key, then the full key, then the
// row number.
func sortPerm(ctx context.Context, segs []*KeyRows, n int) ([]int32, error) {
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	if n < 2 || len(segs) == 0 {
		return perm, nil
	}
	allFixed := true
	for _, s := range segs {
		allFixed = allFixed && s.Fixed
	}
	if allFixed {
		if packed, w, ok := packFixed(segs, n); ok {
			switch w {
			case 0:
				return perm, nil // every key equal
			case 1:
				return radixSort(ctx, packed, perm)
			case 2:
				return radixSort2(ctx, packed, perm)
			default:
				return wordSort(ctx, packed, w, perm)
			}
		}
	}
	return cmpSort(ctx, segs, perm)
}

// maxPackWords bounds the packed key width (32 varying bytes).
const maxPackWords = 4

// packFixed packs the byte positions that vary between rows into w uint64
// words per row (most significant first, zero padded): row i is
// packed[i*w:(i+1)*w]. w == 0 when no position varies; false when more
// than 8*maxPackWords vary.
func packFixed(segs []*KeyRows, n int) ([]uint64, int, bool) {
	type pos struct{ seg, off int }
	var vary []pos
	for si, s := range segs {
		if s.Stride == 0 {
			continue
		}
		first := s.Data[:s.Stride]
		for off := 0; off < s.Stride; off++ {
			b := first[off]
			for i := 1; i < n; i++ {
				if s.Data[i*s.Stride+off] != b {
					vary = append(vary, pos{si, off})
					break
				}
			}
			if len(vary) > 8*maxPackWords {
				return nil, 0, false
			}
		}
	}
	if len(vary) == 0 {
		return nil, 0, true
	}
	w := (len(vary) + 7) / 8
	keys := make([]uint64, n*w)
	for k, p := range vary {
		s := segs[p.seg]
		d, st := s.Data[p.off:], s.Stride
		word, sh := k/8, uint(8*(7-k%8))
		for i := 0; i < n; i++ {
			keys[i*w+word] |= uint64(d[i*st]) << sh
		}
	}
	return keys, w, true
}

// wordSort sorts perm by keys of w words per row, ties by row number.
func wordSort(ctx context.Context, keys []uint64, w int, perm []int32) ([]int32, error) {
	type ent struct {
		k [maxPackWords]uint64
		i int32
	}
	es := make([]ent, len(perm))
	for i := range es {
		copy(es[i].k[:], keys[i*w:(i+1)*w])
		es[i].i = int32(i)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(es, func(a, b ent) int {
		for j := 0; j < w; j++ {
			if a.k[j] != b.k[j] {
				if a.k[j] < b.k[j] {
					return -1
				}
				return 1
			}
		}
		return int(a.i - b.i)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, e := range es {
		perm[i] = e.i
	}
	return perm, nil
}

// radixSort sorts perm (the identity) by keys, stably, LSD 11 bits at a
// time, skipping digits equal in every row.
func radixSort(ctx context.Context, keys []uint64, perm []int32) ([]int32, error) {
	const bits, buckets = 11, 1 << 11
	const passes = (64 + bits - 1) / bits
	n := len(keys)
	counts := make([][buckets]int, passes)
	for _, k := range keys {
		for p := 0; p < passes; p++ {
			counts[p][(k>>(bits*p))&(buckets-1)]++
		}
	}
	type kv struct {
		k uint64
		i int32
	}
	src := make([]kv, n)
	for i, k := range keys {
		src[i] = kv{k, int32(i)}
	}
	dst := make([]kv, n)
	for p := 0; p < passes; p++ {
		c := &counts[p]
		sh := uint(bits * p)
		if c[(keys[0]>>sh)&(buckets-1)] == n {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var offs [buckets]int
		sum := 0
		for v := range c {
			offs[v] = sum
			sum += c[v]
		}
		for _, e := range src {
			d := (e.k >> sh) & (buckets - 1)
			dst[offs[d]] = e
			offs[d]++
		}
		src, dst = dst, src
	}
	for i, e := range src {
		perm[i] = e.i
	}
	return perm, nil
}

// radixSort2 is radixSort for keys of two words per row.
func radixSort2(ctx context.Context, keys []uint64, perm []int32) ([]int32, error) {
	const bits, buckets = 11, 1 << 11
	const passes = (64 + bits - 1) / bits
	n := len(perm)
	type kv struct {
		k [2]uint64
		i int32
	}
	src := make([]kv, n)
	for i := range src {
		src[i] = kv{[2]uint64{keys[2*i], keys[2*i+1]}, int32(i)}
	}
	dst := make([]kv, n)
	var counts [passes][buckets]int
	for w := 1; w >= 0; w-- {
		clear(counts[:])
		for i := range src {
			k := src[i].k[w]
			for p := 0; p < passes; p++ {
				counts[p][(k>>(bits*p))&(buckets-1)]++
			}
		}
		for p := 0; p < passes; p++ {
			c := &counts[p]
			sh := uint(bits * p)
			if c[(src[0].k[w]>>sh)&(buckets-1)] == n {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var offs [buckets]int
			sum := 0
			for v := range c {
				offs[v] = sum
				sum += c[v]
			}
			for _, e := range src {
				d := (e.k[w] >> sh) & (buckets - 1)
				dst[offs[d]] = e
				offs[d]++
			}
			src, dst = dst, src
		}
	}
	for i, e := range src {
		perm[i] = e.i
	}
	return perm, nil
}

// cmpSort sorts perm by the keys with a comparison sort.
func cmpSort(ctx context.Context, segs []*KeyRows, perm []int32) ([]int32, error) {
	type ent struct {
		pre uint64
		i   int32
	}
	es := make([]ent, len(perm))
	first := segs[0]
	var buf [8]byte
	for i := range es {
		r := first.Row(i)
		var p uint64
		if len(r) >= 8 {
			p = binary.BigEndian.Uint64(r)
		} else {
			buf = [8]byte{}
			copy(buf[:], r)
			p = binary.BigEndian.Uint64(buf[:])
		}
		es[i] = ent{p, int32(i)}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(es, func(a, b ent) int {
		if a.pre != b.pre {
			if a.pre < b.pre {
				return -1
			}
			return 1
		}
		for _, s := range segs {
			if c := bytes.Compare(s.Row(int(a.i)), s.Row(int(b.i))); c != 0 {
				return c
			}
		}
		return int(a.i - b.i)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, e := range es {
		perm[i] = e.i
	}
	return perm, nil
}

// compareSegs compares row a of segsA with row b of segsB.
func compareSegs(segsA []*KeyRows, a int, segsB []*KeyRows, b int) int {
	for k := range segsA {
		if c := bytes.Compare(segsA[k].Row(a), segsB[k].Row(b)); c != 0 {
			return c
		}
	}
	return 0
}
