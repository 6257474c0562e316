package exec

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// aggStream runs the aggregation on the first Next (the workers are joined
// before Next returns, whatever happens) and then slices the result.
type aggStream struct {
	tc *TaskCtx
	h  *HashAggregate

	mu      sync.Mutex // Next vs Close
	started bool
	closed  bool
	err     error
	cols    []arrow.Array
	n, pos  int

	cmu    sync.Mutex
	cancel context.CancelFunc
	cdone  bool

	reserved atomic.Int64 // bytes reserved with tc.Budget

	depth int    // spill recursion level (agg_spill.go)
	sub   Stream // the spilled aggregation's output, when it spilled
}

func (s *aggStream) reserve(held *int64, now int64) error {
	d := now - *held
	if d <= 0 {
		return nil
	}
	if err := s.tc.Budget.Reserve("HashAggregate", d); err != nil {
		return err
	}
	*held = now
	s.reserved.Add(d)
	return nil
}

func (s *aggStream) free(held *int64) {
	s.tc.Budget.Free(*held)
	s.reserved.Add(-*held)
	*held = 0
}

func (s *aggStream) Next() (arrow.RecordBatch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	if !s.started {
		s.started = true
		err := s.run()
		if err != nil {
			s.releaseCols()
			err = s.spillAfter(err)
		}
		if err != nil {
			s.err = err
			s.releaseCols()
			return nil, err
		}
	}
	if s.sub != nil {
		b, err := s.sub.Next()
		if err != nil {
			s.err = err
		}
		return b, err
	}
	if s.pos >= s.n {
		s.releaseCols()
		return nil, nil
	}
	bs := s.tc.BatchSize
	if bs <= 0 {
		bs = 4096
	}
	end := min(s.n, s.pos+bs)
	cols := make([]arrow.Array, len(s.cols))
	for i, c := range s.cols {
		if s.pos == 0 && end == s.n {
			c.Retain()
			cols[i] = c
		} else {
			cols[i] = array.NewSlice(c, int64(s.pos), int64(end))
		}
	}
	b := array.NewRecordBatch(s.h.schema, cols, int64(end-s.pos))
	ktRelease(cols)
	s.pos = end
	return b, nil
}

func (s *aggStream) releaseCols() {
	ktRelease(s.cols)
	s.cols, s.n, s.pos = nil, 0, 0
}

// Close stops the workers if Next is running (from another goroutine),
// waits for them and releases everything.
func (s *aggStream) Close() {
	s.cmu.Lock()
	s.cdone = true
	if s.cancel != nil {
		s.cancel()
	}
	s.cmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.releaseCols()
	if s.sub != nil {
		s.sub.Close()
		s.sub = nil
	}
	if r := s.reserved.Swap(0); r > 0 {
		s.tc.Budget.Free(r)
	}
}

// aggPartial is one worker's state.
type aggPartial struct {
	h     *HashAggregate
	ec    *vec.Ctx
	mem   memory.Allocator
	kt    KeyTable
	accs  []aggAcc
	gids  []int32
	masks [][]byte
	held  int64
}

func (h *HashAggregate) newPartial(ec *vec.Ctx) (*aggPartial, error) {
	p := &aggPartial{h: h, ec: ec, mem: ec.Mem, kt: NewKeyTable(h.keyTys), masks: make([][]byte, len(h.specs))}
	for i := range h.specs {
		a, err := h.specs[i].newAcc(ec.Mem)
		if err != nil {
			return nil, err
		}
		p.accs = append(p.accs, a)
	}
	return p, nil
}

func (p *aggPartial) size() int64 {
	n := p.kt.Bytes() + 4*int64(cap(p.gids)) + 256
	for _, a := range p.accs {
		n += a.bytes()
	}
	for _, m := range p.masks {
		n += int64(cap(m))
	}
	return n
}

func (p *aggPartial) resize() {
	for _, a := range p.accs {
		a.resize(p.kt.Len())
	}
}

// consume aggregates one batch.
func (p *aggPartial) consume(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	h := p.h
	var owned []arrow.Array
	defer func() { ktRelease(owned) }()
	eval := func(e vec.Expr, what string) (arrow.Array, error) {
		a, err := e.Eval(p.ec, b)
		if err != nil {
			return nil, err
		}
		owned = append(owned, a)
		if a.Len() != n {
			return nil, fmt.Errorf("exec: HashAggregate: %s %s returned %d rows for %d", what, e, a.Len(), n)
		}
		return a, nil
	}
	groups := make([]arrow.Array, len(h.Groups))
	for i, g := range h.Groups {
		a, err := eval(g, "group")
		if err != nil {
			return err
		}
		if !ktSameType(h.keyTys[i], a.DataType()) {
			return fmt.Errorf("exec: HashAggregate: group %s is %s, declared %s", g, a.DataType(), h.keyTys[i])
		}
		groups[i] = a
	}
	args := make([][]arrow.Array, len(h.specs))
	masks := make([][]byte, len(h.specs))
	for k := range h.specs {
		sp := &h.specs[k]
		args[k] = make([]arrow.Array, len(sp.args))
		for j, e := range sp.args {
			a, err := eval(e, "argument")
			if err != nil {
				return err
			}
			if a.DataType().ID() != sp.types[j].ID() {
				return fmt.Errorf("exec: %s: argument %s is %s, declared %s", sp.name, e, a.DataType(), sp.types[j])
			}
			args[k][j] = a
		}
		var filter arrow.Array
		if sp.filter != nil {
			f, err := eval(sp.filter, "filter")
			if err != nil {
				return err
			}
			filter = f
		}
		m, err := aggMask(&p.masks[k], n, filter, args[k][:sp.nval], sp.skipNulls)
		if err != nil {
			return fmt.Errorf("exec: %s: %w", sp.name, err)
		}
		masks[k] = m
	}
	run := func(keys []arrow.Array) error {
		p.gids = ktResize(p.gids, n)
		if err := p.kt.Insert(keys, p.gids); err != nil {
			return err
		}
		p.resize()
		for k, a := range p.accs {
			if err := a.update(args[k], masks[k], p.gids); err != nil {
				return err
			}
		}
		return nil
	}
	if h.GroupingSets == nil {
		return run(groups)
	}
	nulls := make([]arrow.Array, len(groups))
	for s, set := range h.GroupingSets {
		keys := make([]arrow.Array, len(groups)+1)
		for _, i := range set {
			keys[i] = groups[i]
		}
		for i := range groups {
			if keys[i] == nil {
				if nulls[i] == nil {
					nulls[i] = array.MakeArrayOfNull(p.mem, h.keyTys[i], n)
					owned = append(owned, nulls[i])
				}
				keys[i] = nulls[i]
			}
		}
		sc := aggGidColumn(p.mem, n, func(int) int32 { return int32(s) })
		keys[len(groups)] = sc
		err := run(keys)
		sc.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// aggMask is the bitmap of the rows an aggregate takes (nil = all): the
// FILTER is TRUE and, when skipNulls, no argument is NULL.
func aggMask(buf *[]byte, n int, filter arrow.Array, args []arrow.Array, skipNulls bool) ([]byte, error) {
	var m []byte
	start := func() {
		if m == nil {
			*buf = ktResize(*buf, int(bitutil.BytesForBits(int64(n))))
			m = *buf
			bitutil.SetBitsTo(m, 0, int64(n), true)
		}
	}
	if filter != nil {
		if filter.DataType().ID() == arrow.NULL {
			start()
			bitutil.SetBitsTo(m, 0, int64(n), false)
			return m, nil
		}
		fb, ok := filter.(*array.Boolean)
		if !ok {
			return nil, fmt.Errorf("FILTER is %s, not BOOLEAN", filter.DataType())
		}
		start()
		if vb := fb.Data().Buffers()[1]; vb != nil {
			aggAnd(m, vb.Bytes(), fb.Data().Offset(), n)
		} else {
			bitutil.SetBitsTo(m, 0, int64(n), false)
		}
		if bits, off := ktValidity(fb); bits != nil {
			aggAnd(m, bits, off, n)
		}
	}
	if skipNulls {
		for _, a := range args {
			if a.DataType().ID() == arrow.NULL {
				start()
				bitutil.SetBitsTo(m, 0, int64(n), false)
				return m, nil
			}
			if bits, off := ktValidity(a); bits != nil {
				start()
				aggAnd(m, bits, off, n)
			}
		}
	}
	return m, nil
}

// aggAnd clears the bits of m (n bits from 0) that are clear in src from
// bit off.
func aggAnd(m, src []byte, off, n int) {
	if off%8 == 0 {
		s := src[off/8:]
		nb := int(bitutil.BytesForBits(int64(n)))
		for i := 0; i < nb; i++ {
			m[i] &= s[i]
		}
		return
	}
	for r := 0; r < n; r++ {
		if !bitutil.BitIsSet(src, off+r) {
			bitutil.ClearBit(m, r)
		}
	}
}

// run aggregates the whole input and builds the result columns.
func (s *aggStream) run() error {
	h, tc := s.h, s.tc
	ctx, cancel := context.WithCancel(tc.Ctx)
	defer cancel()
	s.cmu.Lock()
	if s.cdone {
		s.cmu.Unlock()
		return context.Canceled
	}
	s.cancel = cancel
	s.cmu.Unlock()
	ctc := *tc
	ctc.Ctx = ctx

	np := h.Input.Partitions()
	workers := max(1, min(np, runtime.GOMAXPROCS(0)))
	// Float sums depend on the order of additions: with them, every input
	// partition gets its own partial state and the states merge in
	// partition order, so a query gives the same bits on every run.
	perPart := h.orderSensitive()
	parts := make([]*aggPartial, workers)
	if perPart {
		parts = make([]*aggPartial, np)
	}
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		cancel()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					fail(panics.Recovered("HashAggregate", r))
				}
			}()
			ec := ctc.EvalCtx()
			ec.Context = ctx
			var p *aggPartial
			if !perPart {
				var err error
				if p, err = h.newPartial(ec); err != nil {
					fail(err)
					return
				}
				parts[w] = p
			}
			for {
				part := int(next.Add(1) - 1)
				if part >= np {
					return
				}
				if perPart {
					var err error
					if p, err = h.newPartial(ec); err != nil {
						fail(err)
						return
					}
					parts[part] = p
				}
				if err := s.consumePartition(&ctc, p, part); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	defer func() {
		for _, p := range parts {
			if p != nil {
				s.free(&p.held)
			}
		}
	}()
	if err := tc.Err(); err != nil {
		return err
	}
	if firstErr != nil {
		return firstErr
	}
	return s.finish(parts)
}

func (s *aggStream) consumePartition(tc *TaskCtx, p *aggPartial, part int) error {
	st, err := s.h.Input.Execute(tc, part)
	if err != nil {
		return err
	}
	defer st.Close()
	for {
		if err := tc.Err(); err != nil {
			return err
		}
		b, err := st.Next()
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		err = p.consume(b)
		b.Release()
		if err != nil {
			return err
		}
		if err := s.reserve(&p.held, p.size()); err != nil {
			return err
		}
	}
}

// finish merges the partial states into the first and builds the output.
func (s *aggStream) finish(parts []*aggPartial) error {
	h, mem := s.h, s.tc.Mem
	if !h.orderSensitive() {
		// The largest state takes in the others: fewer keys move. (Order-
		// sensitive aggregates merge in partition order.)
		big := 0
		for i, p := range parts {
			if p.kt.Len() > parts[big].kt.Len() {
				big = i
			}
		}
		parts[0], parts[big] = parts[big], parts[0]
	}
	main := parts[0]
	for _, p := range parts[1:] {
		if err := s.tc.Err(); err != nil {
			return err
		}
		if p.kt.Len() == 0 {
			continue
		}
		gmap := make([]int32, p.kt.Len())
		if err := ktMergeInto(mem, main.kt, p.kt, gmap); err != nil {
			return err
		}
		main.resize()
		for k, a := range main.accs {
			if err := a.merge(p.accs[k], gmap); err != nil {
				return err
			}
		}
		s.free(&p.held)
		p.kt, p.accs = nil, nil
		if err := s.reserve(&main.held, main.size()); err != nil {
			return err
		}
	}
	// The rows every input has: no GROUP BY, and each empty grouping set.
	if h.GroupingSets == nil && len(h.Groups) == 0 {
		if err := main.kt.Insert(nil, make([]int32, 1)); err != nil {
			return err
		}
	}
	for k, set := range h.GroupingSets {
		if len(set) > 0 {
			continue
		}
		keys := make([]arrow.Array, len(h.keyTys))
		for i, t := range h.keyTys[:len(h.Groups)] {
			keys[i] = array.MakeArrayOfNull(mem, t, 1)
		}
		keys[len(h.Groups)] = aggGidColumn(mem, 1, func(int) int32 { return int32(k) })
		err := main.kt.Insert(keys, make([]int32, 1))
		ktRelease(keys)
		if err != nil {
			return err
		}
	}
	main.resize()

	n := main.kt.Len()
	cols := make([]arrow.Array, 0, h.schema.NumFields())
	ok := false
	defer func() {
		if !ok {
			ktRelease(cols)
		}
	}()
	keys, err := main.kt.Keys(mem)
	if err != nil {
		return err
	}
	cols = append(cols, keys[:len(h.Groups)]...)
	var setCol arrow.Array
	if h.GroupingSets != nil {
		setCol = keys[len(h.Groups)]
		defer setCol.Release()
	}
	for _, a := range main.accs {
		r, err := a.finish(mem)
		if err != nil {
			return err
		}
		cols = append(cols, r)
		if r.Len() != n {
			return fmt.Errorf("exec: HashAggregate: an aggregate returned %d rows for %d groups", r.Len(), n)
		}
	}
	if setCol != nil {
		ords, err := aggValues[int32](setCol)
		if err != nil {
			return err
		}
		gid := make([]int64, n)
		for i, o := range ords {
			gid[i] = h.setIDs[o]
		}
		cols = append(cols, aggFixedArray(mem, arrow.PrimitiveTypes.Int64, gid, nil))
	}
	// The state goes; the result stays reserved until Close.
	var outBytes int64
	for _, c := range cols {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				outBytes += int64(b.Len())
			}
		}
	}
	var held int64
	for _, p := range parts {
		s.free(&p.held)
	}
	if err := s.reserve(&held, outBytes); err != nil {
		return err
	}
	ok = true
	s.cols, s.n, s.pos = cols, n, 0
	return nil
}

// orderSensitive reports whether a result depends on the order rows are
// added in (floating-point SUM, AVG and the variance family; STRING_AGG
// and LIST without ORDER BY).
func (h *HashAggregate) orderSensitive() bool {
	for _, a := range h.Aggs {
		switch aggCanon(a.Func, len(a.Args)) {
		case "STRING_AGG", "LIST", "ANY_VALUE", "ARG_MAX", "ARG_MIN", "MODE":
			return true
		case "SUM", "AVG", "STDDEV_SAMP", "STDDEV_POP", "VAR_SAMP", "VAR_POP", "PRODUCT", "GEOMEAN",
			"CORR", "COVAR_POP", "COVAR_SAMP", "REGR_SLOPE", "REGR_INTERCEPT", "REGR_R2",
			"REGR_AVGX", "REGR_AVGY", "REGR_SXX", "REGR_SYY", "REGR_SXY":
			for _, e := range a.Args {
				if id := e.Type().ID(); id == arrow.FLOAT32 || id == arrow.FLOAT64 || id == arrow.FLOAT16 {
					return true
				}
			}
		}
	}
	return false
}
