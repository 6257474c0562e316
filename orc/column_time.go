package orc

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

var locations sync.Map // time zone name -> *time.Location

// loadLocation is time.LoadLocation with a cache: every stripe names its
// writer's zone.
func loadLocation(name string) (*time.Location, error) {
	if l, ok := locations.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	locations.Store(name, l)
	return l, nil
}

type timestampColumn struct {
	colBase
	secs, nanos intReader
	loc         *time.Location
	epoch       int64 // 2015-01-01 00:00:00 in the writer's zone, as Unix seconds
	s, ns       []int64
}

// Nanosecond timestamps cover Unix seconds within these bounds.
const (
	minTsSeconds = math.MinInt64/1_000_000_000 + 1
	maxTsSeconds = math.MaxInt64/1_000_000_000 - 1
)

func (c *timestampColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.TimestampBuilder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.s) < n {
			c.s, c.ns = make([]int64, n), make([]int64, n)
		}
		secs, nanos := c.s[:cnt], c.ns[:cnt]
		if err := c.secs.next(secs); err != nil {
			return c.err(streamData, err)
		}
		if err := c.nanos.next(nanos); err != nil {
			return c.err(streamSecondary, err)
		}
		bb.Reserve(n)
		j := 0
		for _, ok := range valid {
			if !ok {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			s, enc := secs[j], uint64(nanos[j])
			j++
			ns := int64(enc >> 3)
			if z := enc & 7; z != 0 {
				for k := uint64(0); k <= z; k++ {
					ns *= 10
				}
			}
			if ns < 0 || ns >= 1e9 {
				return c.err(streamSecondary, fmt.Errorf("%w: nanoseconds %d out of range", errCorrupt, ns))
			}
			if s < minTsSeconds || s > maxTsSeconds {
				return c.err(streamData, fmt.Errorf("%w: timestamp seconds %d out of range", errCorrupt, s))
			}
			unix := s + c.epoch
			if unix < 0 && ns > 999999 {
				// Writers truncate seconds towards zero from milliseconds.
				unix--
			}
			if c.loc != time.UTC {
				// Wall clock in the writer's zone, kept as a zone-less value.
				_, off := time.Unix(unix, 0).In(c.loc).Zone()
				unix += int64(off)
			}
			if unix < minTsSeconds || unix > maxTsSeconds {
				return c.err(streamData, fmt.Errorf("%w: timestamp %d s outside the nanosecond range", errCorrupt, unix))
			}
			bb.UnsafeAppend(arrow.Timestamp(unix*1e9 + ns))
		}
		return nil
	})
}
