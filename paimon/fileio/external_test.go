package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLocalPathOfURI(t *testing.T) {
	for _, c := range []struct {
		in     string
		want   string
		isFile bool
		err    bool
	}{
		{"file:/tmp/x", "/tmp/x", true, false},
		{"file:///tmp/x/", "/tmp/x", true, false},
		{"FILE:///tmp/external", "/tmp/external", true, false},
		{"file://localhost/tmp/a/../b", "/tmp/b", true, false},
		{"file://otherhost/tmp/x", "", false, true},
		{"file:tmp/x", "", false, true},
		{"oss://bucket/x", "", false, false},
		{"db.db/t/bucket-0/f.parquet", "", false, false},
	} {
		got, isFile, err := LocalPathOfURI(c.in)
		if (err != nil) != c.err || isFile != c.isFile || got != c.want {
			t.Errorf("LocalPathOfURI(%q) = %q, %v, %v; want %q, %v, err %v", c.in, got, isFile, err, c.want, c.isFile, c.err)
		}
	}
}

// TestExternalConfinement: files are served from the warehouse and from the
// declared external roots only; traversal and links out of a root, other
// locations and other schemes are refused.
func TestExternalConfinement(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	wh := filepath.Join(tmp, "wh")
	ext := filepath.Join(tmp, "ext")
	other := filepath.Join(tmp, "other")
	for _, d := range []string{wh, ext, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(wh, "in-wh"), "warehouse")
	write(filepath.Join(ext, "data"), "external")
	write(filepath.Join(other, "secret"), "secret")
	if err := os.Symlink(filepath.Join(other, "secret"), filepath.Join(ext, "link")); err != nil {
		t.Fatal(err)
	}
	main, err := NewLocal(wh)
	if err != nil {
		t.Fatal(err)
	}
	e, err := WithExternalPaths(main, " oss://bucket/pfx , FILE://"+filepath.ToSlash(ext)+" ")
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) (string, error) {
		b, err := e.ReadFile(ctx, p)
		return string(b), err
	}
	for p, want := range map[string]string{
		"in-wh": "warehouse",
		"file:" + filepath.ToSlash(ext) + "/data":   "external",
		"file://" + filepath.ToSlash(ext) + "/data": "external",
		"file:" + filepath.ToSlash(wh) + "/in-wh":   "warehouse",
	} {
		got, err := read(p)
		if err != nil || got != want {
			t.Errorf("read %s = %q, %v; want %q", p, got, err, want)
		}
	}
	for _, p := range []string{
		"file:" + filepath.ToSlash(other) + "/secret",        // not declared
		"file:" + filepath.ToSlash(ext) + "/../other/secret", // traversal out of the root
		"file:" + filepath.ToSlash(ext) + "/link",            // link out of the root
		"file:" + filepath.ToSlash(ext) + "x/data",           // a sibling with the root as prefix
		"s3://bucket/pfx/data",                               // undeclared scheme
		"../other/secret",                                    // relative escape from the warehouse
	} {
		if got, err := read(p); err == nil || !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("read %s = %q, %v; want an ErrOutsideRoot error", p, got, err)
		}
	}
	if _, err := read("oss://bucket/pfx/data"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Errorf("declared oss root: err = %v, want ErrUnsupportedScheme", err)
	}
	if _, err := e.Open(ctx, "file://otherhost/x"); err == nil {
		t.Error("a file URI of another host was opened")
	}
	if ok, err := e.Exists(ctx, "file:"+filepath.ToSlash(ext)+"/data"); !ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
	none, _ := WithExternalPaths(main, "")
	if _, err := none.ReadFile(ctx, "file:"+filepath.ToSlash(ext)+"/data"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("no declared roots: err = %v", err)
	}
	if _, err := WithExternalPaths(main, "/plain/path"); err == nil {
		t.Error("a root that is not a URI was accepted")
	}
}
