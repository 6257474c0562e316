package binrow

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// HashSeed is the Murmur3 seed Java's BinaryRow.hashCode uses.
const HashSeed = 42

// HashBytesByWords is Java's MurmurHashUtils.hashBytesByWords: Murmur3-32
// over the little-endian 4-byte words of b (len(b) must be a multiple of 4,
// as BinaryRow sizes always are; trailing bytes are ignored), with the byte
// length mixed into the finalizer. The result is Java's signed int.
func HashBytesByWords(b []byte, seed uint32) int32 {
	h := seed
	n := len(b) &^ 3
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(b[i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// HashCode is Java's BinaryRow.hashCode over an encoded row.
func HashCode(row []byte) int32 { return HashBytesByWords(row, HashSeed) }

// Bucket is Paimon's default fixed-bucket function: abs(hash(keyRow) % n)
// with Java's truncating remainder. keyRow is the canonical BinaryRow of the
// bucket-key fields (header 0). n must be positive.
func Bucket(keyRow []byte, numBuckets int) int {
	return BucketOfHash(HashCode(keyRow), numBuckets)
}

// BucketOfHash maps a key hash to a bucket as Java does: Math.abs(hash % n).
func BucketOfHash(hash int32, numBuckets int) int {
	if numBuckets <= 0 {
		return 0
	}
	r := int64(hash) % int64(numBuckets) // Go % truncates like Java's
	if r < 0 {
		r = -r
	}
	return int(r)
}

// BucketOf encodes the bucket-key values (types and values in bucket-key
// order) and returns their fixed bucket.
func BucketOf(keyTypes []types.DataType, keyValues []any, numBuckets int) (int, error) {
	if numBuckets <= 0 {
		return 0, fmt.Errorf("binrow: bucket count %d must be positive", numBuckets)
	}
	row, err := Encode(keyTypes, keyValues)
	if err != nil {
		return 0, fmt.Errorf("binrow: encoding bucket key: %w", err)
	}
	return Bucket(row, numBuckets), nil
}

// ModBucket is the `mod` bucket function (bucket-function.type = mod): the
// single INT or BIGINT bucket key k goes to floorMod(k, n). A NULL key goes
// to bucket 0.
func ModBucket(keyType types.DataType, key any, numBuckets int) (int, error) {
	if numBuckets <= 0 {
		return 0, fmt.Errorf("binrow: bucket count %d must be positive", numBuckets)
	}
	if keyType.Root != types.Int && keyType.Root != types.BigInt {
		return 0, fmt.Errorf("binrow: mod bucket function needs an INT or BIGINT key, got %s", keyType)
	}
	if key == nil {
		return 0, nil
	}
	v, err := toInt64(keyType, key)
	if err != nil {
		return 0, err
	}
	m := v % int64(numBuckets)
	if m < 0 {
		m += int64(numBuckets)
	}
	return int(m), nil
}
