package flightsql

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the "proto" codec wireCodec delegates to
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// The DoGet send path without copies.
//
// arrow-go's flight.Writer copies every batch twice before gRPC's transport
// copies it once more: ipc.Payload.SerializeBody into a bytes.Buffer, then
// protobuf marshalling of the FlightData into a pooled buffer (a fresh,
// zeroed allocation for messages over 1 MiB). Both passes run on the
// goroutine that feeds the stream.
//
// wireWriter instead gives gRPC a FlightData encoded by hand: a small prefix
// (the protobuf tags, the IPC metadata and the body length) followed by the
// body buffers themselves, referenced rather than copied. The batch the
// buffers belong to stays retained until gRPC has written or dropped the
// message. Body pieces that do not lie inside the batch's own buffers
// (offsets rebased for a slice, truncated bitmaps, compressed buffers) and
// pieces below gRPC's pooling threshold are copied. The bytes on the wire are
// exactly the protobuf encoding of FlightData{data_header, data_body}, so
// clients see no difference. A DoGet returns only once gRPC let go of its
// batches (recordWriter.Wait), so nothing outlives the stream.

// FlightData field numbers (Flight.proto).
const (
	fdDataHeader protowire.Number = 2
	fdDataBody   protowire.Number = 1000
)

// wireMsg is a FlightData already encoded as gRPC buffers. wireCodec hands
// the buffers over to gRPC, which frees them once written.
type wireMsg struct {
	bufs  mem.BufferSlice
	taken bool
}

// wireCodec is the server's codec: the standard protobuf codec, except that
// a *wireMsg is passed through as it is.
type wireCodec struct{ proto encoding.CodecV2 }

func newWireCodec() (wireCodec, error) {
	c := encoding.GetCodecV2("proto")
	if c == nil {
		return wireCodec{}, errors.New("flightsql: gRPC proto codec is not registered")
	}
	return wireCodec{proto: c}, nil
}

func (c wireCodec) Name() string { return c.proto.Name() }

func (c wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	if m, ok := v.(*wireMsg); ok {
		if m.taken {
			return nil, errors.New("flightsql: wire message sent twice")
		}
		m.taken = true
		return m.bufs, nil
	}
	return c.proto.Marshal(v)
}

func (c wireCodec) Unmarshal(data mem.BufferSlice, v any) error { return c.proto.Unmarshal(data, v) }

// batchRef keeps a batch alive while gRPC holds references to its buffers.
// It is the mem.BufferPool of those references: each Put drops one.
type batchRef struct {
	refs atomic.Int64
	once sync.Once
	rec  arrow.RecordBatch
	in   *inflight
}

func (b *batchRef) Get(n int) *[]byte {
	s := make([]byte, n)
	return &s
}

func (b *batchRef) Put(*[]byte) { b.release() }

func (b *batchRef) release() {
	if b.refs.Add(-1) == 0 {
		b.releaseBatch()
	}
}

func (b *batchRef) releaseBatch() {
	b.once.Do(func() {
		b.rec.Release()
		b.in.remove(b)
	})
}

// inflight tracks the batches of one stream still referenced by gRPC.
type inflight struct {
	mu      sync.Mutex
	refs    map[*batchRef]struct{}
	changed chan struct{}
}

func newInflight() *inflight {
	return &inflight{refs: map[*batchRef]struct{}{}, changed: make(chan struct{}, 1)}
}

func (f *inflight) add(b *batchRef) {
	f.mu.Lock()
	f.refs[b] = struct{}{}
	f.mu.Unlock()
}

func (f *inflight) remove(b *batchRef) {
	f.mu.Lock()
	delete(f.refs, b)
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *inflight) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.refs)
}

// wait returns once gRPC has released every batch of the stream. gRPC does
// so after writing a message, or when it drops a cancelled stream's queued
// messages; but a connection that dies with messages queued is abandoned
// without a release. So once ctx (the stream's) is done, wait allows grace
// for gRPC to let go, then releases what is left itself and reports how
// many batches that was.
func (f *inflight) wait(ctx context.Context, grace time.Duration) int {
	var timeout <-chan time.Time
	for f.len() > 0 {
		select {
		case <-f.changed:
		case <-ctx.Done():
			if timeout == nil {
				t := time.NewTimer(grace)
				defer t.Stop()
				timeout = t.C
			}
			ctx = context.Background() // wait on changed and the timer only
		case <-timeout:
			f.mu.Lock()
			left := make([]*batchRef, 0, len(f.refs))
			for b := range f.refs {
				left = append(left, b)
			}
			f.mu.Unlock()
			for _, b := range left {
				b.releaseBatch()
			}
			return len(left)
		}
	}
	return 0
}

// span is the address range of one buffer of the current batch.
type span struct{ lo, hi uintptr }

// wireWriter is an ipc.PayloadWriter that sends each IPC message as one
// FlightData on a gRPC server stream (see the comment at the top).
type wireWriter struct {
	stream grpc.ServerStream
	bytes  int64 // IPC bytes sent (header + body)

	cur    arrow.RecordBatch // batch being written, set by write
	spans  []span            // its buffers
	copy   []byte            // small or foreign body bytes, sent as a copy
	pieces []piece           // the body of the message being built
	msg    wireMsg

	inflight *inflight
}

// piece is part of a message body: referenced from the batch, or a copy.
type piece struct {
	b   []byte
	ref bool
}

func newWireWriter(stream grpc.ServerStream) *wireWriter {
	return &wireWriter{stream: stream, inflight: newInflight()}
}

func (w *wireWriter) Start() error { return nil }
func (w *wireWriter) Close() error { return nil }

// setBatch records rec (nil for none) as the batch whose buffers the next
// payloads may reference.
func (w *wireWriter) setBatch(rec arrow.RecordBatch) {
	w.cur = rec
	w.spans = w.spans[:0]
	if rec == nil {
		return
	}
	for _, col := range rec.Columns() {
		w.addSpans(col.Data())
	}
}

func (w *wireWriter) addSpans(d arrow.ArrayData) {
	if isNilData(d) {
		return
	}
	for _, b := range d.Buffers() {
		if b == nil || b.Len() == 0 {
			continue
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b.Bytes())))
		w.spans = append(w.spans, span{p, p + uintptr(b.Len())})
	}
	for _, c := range d.Children() {
		w.addSpans(c)
	}
	w.addSpans(d.Dictionary())
}

func (w *wireWriter) owned(p []byte) bool {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	hi := lo + uintptr(len(p))
	for _, s := range w.spans {
		if lo >= s.lo && hi <= s.hi {
			return true
		}
	}
	return false
}

// Write is called by SerializeBody once per body buffer and padding.
func (w *wireWriter) Write(p []byte) (int, error) {
	n := len(p)
	if w.cur == nil || mem.IsBelowBufferPoolingThreshold(n) || !w.owned(p) {
		w.copy = append(w.copy, p...)
		return n, nil
	}
	w.flushCopy()
	w.pieces = append(w.pieces, piece{b: p[:n:n], ref: true})
	return n, nil
}

func (w *wireWriter) flushCopy() {
	if len(w.copy) > 0 {
		w.pieces = append(w.pieces, piece{b: w.copy})
		w.copy = nil
	}
}

func (w *wireWriter) WritePayload(p ipc.Payload) error {
	meta := p.Meta()
	var header []byte
	if meta != nil {
		header = meta.Bytes()
		defer meta.Release()
	}
	// Collect the body first: its length goes into the prefix.
	w.pieces = w.pieces[:0]
	w.copy = nil
	if err := p.SerializeBody(w); err != nil {
		return err
	}
	w.flushCopy()
	bodyLen := 0
	for _, pc := range w.pieces {
		bodyLen += len(pc.b)
	}

	prefix := make([]byte, 0, len(header)+24)
	if len(header) > 0 {
		prefix = protowire.AppendTag(prefix, fdDataHeader, protowire.BytesType)
		prefix = protowire.AppendBytes(prefix, header)
	}
	if bodyLen > 0 {
		prefix = protowire.AppendTag(prefix, fdDataBody, protowire.BytesType)
		prefix = protowire.AppendVarint(prefix, uint64(bodyLen))
	}
	ref := &batchRef{in: w.inflight}
	ref.refs.Store(1) // ours, dropped after SendMsg
	out := make(mem.BufferSlice, 0, len(w.pieces)+1)
	out = append(out, mem.SliceBuffer(prefix))
	for i := range w.pieces {
		pc := &w.pieces[i]
		if !pc.ref {
			out = append(out, mem.SliceBuffer(pc.b))
			continue
		}
		// Freeing the last reference releases the batch.
		ref.refs.Add(1)
		b := pc.b
		out = append(out, mem.NewBuffer(&b, ref))
	}
	if ref.refs.Load() > 1 {
		w.cur.Retain()
		ref.rec = w.cur
		w.inflight.add(ref)
	} else {
		ref.once.Do(func() {}) // nothing to release
	}
	w.msg = wireMsg{bufs: out}
	err := w.stream.SendMsg(&w.msg)
	if !w.msg.taken {
		// gRPC failed before encoding: the buffers are still ours.
		out.Free()
	}
	ref.release()
	w.msg = wireMsg{}
	clear(w.pieces)
	w.pieces = w.pieces[:0]
	if err != nil {
		return err
	}
	w.bytes += int64(len(header) + bodyLen)
	return nil
}

// recordWriter writes batches to a DoGet stream through wireWriter.
type recordWriter struct {
	w   *wireWriter
	ipc *ipc.Writer
}

func newRecordWriter(stream grpc.ServerStream, opts ...ipc.Option) *recordWriter {
	w := newWireWriter(stream)
	return &recordWriter{w: w, ipc: ipc.NewWriterWithPayloadWriter(w, opts...)}
}

// Write sends rec; its buffers are referenced, not copied.
func (r *recordWriter) Write(rec arrow.RecordBatch) error {
	r.w.setBatch(rec)
	defer r.w.setBatch(nil)
	return r.ipc.Write(rec)
}

// Close ends the IPC stream (sends the schema first if nothing was written).
func (r *recordWriter) Close() error { return r.ipc.Close() }

// Wait returns when gRPC holds no batch of this stream any more (see
// inflight.wait); it returns the number of batches it had to release
// itself.
func (r *recordWriter) Wait(ctx context.Context) int {
	return r.w.inflight.wait(ctx, time.Second)
}

// Bytes returns the IPC bytes sent so far.
func (r *recordWriter) Bytes() int64 { return r.w.bytes }

// isNilData reports a nil ArrayData, also a typed nil (Dictionary() of a
// non-dictionary array).
func isNilData(d arrow.ArrayData) bool {
	if d == nil {
		return true
	}
	ad, ok := d.(*array.Data)
	return ok && ad == nil
}
