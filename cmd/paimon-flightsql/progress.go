package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progressBar renders "label [#####.....] 42% (done/total)" on one terminal
// line, at most every 100ms, and a final line on Done.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	last  time.Time
	start time.Time
	shown bool
}

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{w: w, label: label, start: time.Now()}
}

// Update reports progress; safe for concurrent use.
func (p *progressBar) Update(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = time.Now()
	p.render(done, total)
}

func (p *progressBar) render(done, total int64) {
	const width = 30
	frac := 0.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	frac = min(max(frac, 0), 1)
	n := int(frac * width)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% (%d/%d)", p.label, strings.Repeat("#", n), strings.Repeat(".", width-n), frac*100, done, total)
	p.shown = true
}

// Done finishes the line with the elapsed time.
func (p *progressBar) Done(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintf(p.w, "%s: %s in %s\n", p.label, msg, time.Since(p.start).Round(time.Millisecond))
}
