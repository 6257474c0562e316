package readahead

import "io"

// Range is the byte range [Off, Off+Len) of a file.
type Range struct{ Off, Len int64 }

// Prefetcher is implemented by files whose reads are expensive per request
// (object stores). Prefetch announces ranges the caller will read soon; it
// returns at once, the fetching runs in the background. Ranges beyond the
// implementation's memory budget are not fetched ahead, and a failed
// background fetch is retried by the read that needs it, whose error is then
// the one reported.
type Prefetcher interface {
	Prefetch(ranges []Range)
}

// Prefetch announces ranges to r when r is a Prefetcher; otherwise (local
// files) it does nothing.
func Prefetch(r io.ReaderAt, ranges []Range) {
	if p, ok := r.(Prefetcher); ok && len(ranges) > 0 {
		p.Prefetch(ranges)
	}
}
