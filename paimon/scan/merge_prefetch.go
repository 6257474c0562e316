package scan

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// prefetchSource decodes the next batches of one run on its own goroutine
// while the merge consumes the current one, so decoding a run overlaps with
// merging (and with decoding the other runs).
type prefetchSource struct {
	src  BatchSource
	ch   chan prefetched
	stop chan struct{}
	done chan struct{}
	end  bool
}

type prefetched struct {
	b   arrow.RecordBatch
	err error
}

// prefetchDepth is how many decoded batches a run may hold ahead.
const prefetchDepth = 1

func newPrefetchSource(ctx context.Context, src BatchSource) *prefetchSource {
	p := &prefetchSource{src: src, ch: make(chan prefetched, prefetchDepth), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run(ctx)
	return p
}

func (p *prefetchSource) run(ctx context.Context) {
	defer close(p.done)
	defer close(p.ch)
	for {
		b, err := p.src.Next(ctx)
		select {
		case p.ch <- prefetched{b, err}:
		case <-p.stop:
			if b != nil {
				b.Release()
			}
			return
		}
		if b == nil || err != nil {
			return
		}
	}
}

func (p *prefetchSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if p.end {
		return nil, nil
	}
	select {
	case r, ok := <-p.ch:
		if !ok || r.b == nil || r.err != nil {
			p.end = true
		}
		return r.b, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Close stops the goroutine, releases batches decoded ahead and closes the
// underlying source (never concurrently with its Next).
func (p *prefetchSource) Close() {
	close(p.stop)
	for r := range p.ch {
		if r.b != nil {
			r.b.Release()
		}
	}
	<-p.done
	p.src.Close()
}
