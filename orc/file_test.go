package orc

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestMalformedFiles damages a fixture manifest in specific ways and checks
// the error names the file and the part that is broken.
func TestMalformedFiles(t *testing.T) {
	path := testutil.Fixture(t, "paimon-cpp/parquet/append_09.db/append_09/manifest/manifest-7008d4c0-b1b0-4237-ac6d-845b887efc92-0")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(good), int64(len(good)), "m.orc")
	if err != nil {
		t.Fatal(err)
	}
	if f.NumStripes() != 1 {
		t.Fatalf("%d stripes", f.NumStripes())
	}
	si := f.footer.stripes[0]
	psLen := int(good[len(good)-1])

	mod := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), good...)) }
	cases := []struct {
		name  string
		data  []byte
		open  bool // the damage is only seen when reading the stripe
		wants []string
	}{
		{"empty", nil, false, []string{"m.orc", "too short"}},
		{"header only", []byte("ORC"), false, []string{"m.orc", "too short"}},
		{"bad magic", mod(func(b []byte) []byte { b[0] = 'X'; return b }), false, []string{"m.orc", "magic"}},
		{"postscript length", mod(func(b []byte) []byte { b[len(b)-1] = 0xff; return b }), false, []string{"m.orc"}},
		{"truncated", good[:len(good)-psLen/2-1], false, []string{"m.orc"}},
		{"footer bytes", mod(func(b []byte) []byte {
			end := len(b) - 1 - psLen
			for i := end - 10; i < end; i++ {
				b[i] = 0xff
			}
			return b
		}), false, []string{"m.orc", "footer"}},
		{"stripe footer", mod(func(b []byte) []byte {
			off := int(si.offset + si.indexLength + si.dataLength)
			for i := off; i < off+int(si.footerLength); i++ {
				b[i] = 0xff
			}
			return b
		}), true, []string{"m.orc", "stripe 0", "stripe footer"}},
		{"stream data", mod(func(b []byte) []byte {
			off := int(si.offset + si.indexLength)
			for i := off; i < off+int(si.dataLength); i++ {
				b[i] = 0xff
			}
			return b
		}), true, []string{"m.orc", "stripe 0", "column", "stream"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(bytes.NewReader(c.data), int64(len(c.data)), "m.orc")
			if c.open {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				_, err = f.ReadStripe(context.Background(), 0, testutil.CheckedAllocator(t), nil)
			}
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := f.ReadStripe(context.Background(), 1, testutil.CheckedAllocator(t), nil); err == nil {
		t.Error("stripe 1 of 1 read")
	}
	if _, err := f.ReadStripe(context.Background(), 0, testutil.CheckedAllocator(t), []int{99}); err == nil {
		t.Error("column 99 read")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.ReadStripe(ctx, 0, testutil.CheckedAllocator(t), nil); err == nil {
		t.Error("read with a cancelled context")
	}
}
