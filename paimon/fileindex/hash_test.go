package fileindex

import (
	"math"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestFastHashVectors checks the bloom-filter hashes against the values
// Paimon Java's FastHash produces (the Java-compatibility vectors of
// paimon-cpp's fast_hash_test).
func TestFastHashVectors(t *testing.T) {
	f32 := func(f float32) any { return float64(f) }
	cases := []struct {
		t    types.DataType
		vals []any
		want []uint64
	}{
		{types.DataType{Root: types.TinyInt, Nullable: true},
			[]any{int64(-128), int64(-100), int64(-1), int64(0), int64(1), int64(10), int64(127)},
			[]uint64{0xe547e8444a8fcdd1, 0xdb213b4e3642747d, 0x5bca868437950d03, 0x0, 0x5bca7c69b794f8ce, 0x95ea2955abd45275, 0x897cf79712f9ec7c}},
		{types.DataType{Root: types.SmallInt, Nullable: true},
			[]any{int64(-32768), int64(-100), int64(-1), int64(0), int64(1), int64(10), int64(32767)},
			[]uint64{0x47ed1a480fd77cfb, 0xdb213b4e3642747d, 0x5bca868437950d03, 0x0, 0x5bca7c69b794f8ce, 0x95ea2955abd45275, 0xe968161ed2cd74ae}},
		{types.NewInt(),
			[]any{int64(math.MinInt32), int64(-1034556), int64(-1), int64(0), int64(1), int64(49647), int64(math.MaxInt32)},
			[]uint64{0x111ec0fd6aa8626c, 0xfb5d8d6df66551c8, 0x5bca868437950d03, 0x0, 0x5bca7c69b794f8ce, 0x94147f05a824e009, 0xc6d8bcc4d61c69a4}},
		{types.NewDate(),
			[]any{int64(math.MinInt32), int64(-1034556), int64(-1), int64(0), int64(1), int64(49647), int64(math.MaxInt32)},
			[]uint64{0x111ec0fd6aa8626c, 0xfb5d8d6df66551c8, 0x5bca868437950d03, 0x0, 0x5bca7c69b794f8ce, 0x94147f05a824e009, 0xc6d8bcc4d61c69a4}},
		{types.NewBigInt(),
			[]any{int64(math.MinInt64), int64(-4598654206466), int64(-1), int64(0), int64(1), int64(8548553896418), int64(math.MaxInt64)},
			[]uint64{0x3be7d0f7780de548, 0xebd8376102414af8, 0x5bca868437950d03, 0x0, 0x5bca7c69b794f8ce, 0xe7f3590a09b6693a, 0x81ad52718398e837}},
		{types.NewFloat(),
			[]any{f32(-math.MaxFloat32), f32(-123.45), f32(-12345.6), f32(2.1), f32(345.12), f32(math.MaxFloat32)},
			[]uint64{0xecf6796dd7355dbc, 0x1f4dcc5b8a502b70, 0xe678035506c03314, 0x8df65966db697d6, 0xdc9b5b8828f877ee, 0xf9b567bea590d8d}},
		{types.NewDouble(),
			[]any{-math.MaxFloat64, -123.45, -12345.6, 2.1, 345.12, math.MaxFloat64},
			[]uint64{0xb3c148792fed6cb9, 0x989ea602f70c211, 0x8040a6007c7b22e0, 0xfca8098dd6548561, 0x477acb9b5361fc7f, 0x939ba81c9dffe90}},
		{types.NewString(),
			[]any{"", "example", "Have a nice day!"},
			[]uint64{0xef46db3751d8e999, 0xe6eda53558c41c5e, 0xe663266d57d776c2}},
		{types.NewBytes(),
			[]any{[]byte("我是一个粉刷匠")},
			[]uint64{0x9f01fcd3f19877e6}},
	}
	for _, c := range cases {
		ix := &bloomIndex{t: c.t}
		for i, v := range c.vals {
			hs, ok := ix.hashesOf(v)
			if !ok || len(hs) != 1 || hs[0] != c.want[i] {
				t.Errorf("%s %v: hashes %x (ok %v), want %x", c.t, v, hs, ok, c.want[i])
			}
		}
	}
	// Float zero: both zeros are probed; +0.0 hashes to 0 as in Java.
	if hs, ok := (&bloomIndex{t: types.NewDouble()}).hashesOf(0.0); !ok || len(hs) != 2 || hs[0] != 0 {
		t.Errorf("double 0.0: %x", hs)
	}
	// Timestamps above millisecond precision hash their micros.
	if h := wangHash(1745542802000*1000 + 123); h != 0x3fa6477403e32e14 {
		t.Errorf("timestamp micros: %x", h)
	}
	if h := wangHash(-1745*1000 + 123); h != 0xe7f352e64f55f259 {
		t.Errorf("negative timestamp micros: %x", h)
	}
}
