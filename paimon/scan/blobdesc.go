package scan

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BLOB columns listed in blob-descriptor-field are stored inline in the data
// files as serialized BlobDescriptors (a URI, an offset, a length); a read
// returns the bytes they point at, as Java's BlobRef does. Only files inside
// the warehouse are followed (the FileIO root confinement): a descriptor
// pointing elsewhere (another path, http, s3, ...) fails the read, naming
// the URI, rather than returning the descriptor or NULL.

// maxBlobDescriptorLength bounds the bytes one descriptor may reference.
const maxBlobDescriptorLength = 1 << 30

// descriptorCols returns the indexes in fields of blob-descriptor columns.
func descriptorCols(sc *paimon.TableSchema, fields []types.DataField) []int {
	desc := sc.BlobDescriptorFields()
	var out []int
	for i, f := range fields {
		if desc[f.Name] && f.Type.Root == types.Blob {
			out = append(out, i)
		}
	}
	return out
}

// resolveDescriptors returns b with its blob-descriptor columns (cols)
// replaced by the bytes the descriptors reference. It does not release b.
func (r *reader) resolveDescriptors(b arrow.RecordBatch, cols []int) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, b.NumCols())
	for i := range arrs {
		arrs[i] = b.Column(i)
	}
	var built []arrow.Array
	defer func() {
		for _, a := range built {
			a.Release()
		}
	}()
	for _, c := range cols {
		col, ok := arrs[c].(*array.Binary)
		if !ok {
			return nil, fmt.Errorf("%w: blob descriptor column %s is %s", paimon.ErrCorrupt, b.Schema().Field(c).Name, arrs[c].DataType())
		}
		bld := array.NewBinaryBuilder(r.mem, arrow.BinaryTypes.Binary)
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				bld.AppendNull()
				continue
			}
			d, err := paimon.ParseBlobDescriptor(col.Value(i))
			if err != nil {
				bld.Release()
				return nil, fmt.Errorf("column %s: %w", b.Schema().Field(c).Name, err)
			}
			v, err := r.s.readBlobDescriptor(r.ctx, d)
			if err != nil {
				bld.Release()
				return nil, fmt.Errorf("column %s: %w", b.Schema().Field(c).Name, err)
			}
			bld.Append(v)
		}
		a := bld.NewArray()
		bld.Release()
		built = append(built, a)
		arrs[c] = a
	}
	return array.NewRecordBatch(b.Schema(), arrs, b.NumRows()), nil
}

// blobDescriptorPath maps a descriptor URI to a FileIO path inside the
// warehouse, or fails naming the URI.
func (s *Scan) blobDescriptorPath(uri string) (string, error) {
	p := uri
	switch lower := strings.ToLower(p); {
	case strings.HasPrefix(lower, "file://"):
		p = p[len("file://"):]
	case strings.HasPrefix(lower, "file:"):
		p = p[len("file:"):]
	case strings.Contains(p, "://"):
		return "", fmt.Errorf("%w: blob descriptor URI %q: only files inside the warehouse are read", paimon.ErrUnsupported, uri)
	}
	if !path.IsAbs(p) {
		return path.Clean(p), nil // relative to the warehouse
	}
	root, ok := s.table.FileIO().(interface{ Root() string })
	if !ok {
		return "", fmt.Errorf("%w: blob descriptor URI %q: absolute paths need a local warehouse", paimon.ErrUnsupported, uri)
	}
	rel, err := filepath.Rel(root.Root(), filepath.FromSlash(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: blob descriptor URI %q is outside the warehouse %s", paimon.ErrUnsupported, uri, root.Root())
	}
	return filepath.ToSlash(rel), nil
}

// readBlobDescriptor reads the bytes a descriptor references.
func (s *Scan) readBlobDescriptor(ctx context.Context, d paimon.BlobDescriptor) ([]byte, error) {
	p, err := s.blobDescriptorPath(d.URI)
	if err != nil {
		return nil, err
	}
	if d.Length > maxBlobDescriptorLength {
		return nil, fmt.Errorf("%w: blob descriptor of %s references %d bytes (limit %d)", paimon.ErrUnsupported, d.URI, d.Length, maxBlobDescriptorLength)
	}
	h, err := s.table.FileIO().Open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("blob descriptor %s: %w", d.URI, err)
	}
	defer h.Close()
	if d.Offset > h.Size() || d.Length > h.Size()-d.Offset {
		return nil, fmt.Errorf("%w: blob descriptor %s: bytes [%d, %d) beyond the file's %d bytes", paimon.ErrCorrupt, d.URI, d.Offset, d.Offset+d.Length, h.Size())
	}
	buf := make([]byte, d.Length)
	if _, err := h.ReadAt(buf, d.Offset); err != nil {
		return nil, fmt.Errorf("blob descriptor %s: %w", d.URI, err)
	}
	return buf, nil
}
