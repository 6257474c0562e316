package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// serverMemoryBudget is the budget of serve --memory-limit: "" = half of
// the memory available to the process (cgroup limit or physical RAM),
// "0" = none (nil).
func serverMemoryBudget(flag string) (*exec.Budget, error) {
	var limit int64
	if strings.TrimSpace(flag) == "" {
		avail := availableMemory()
		if avail <= 0 {
			return nil, nil
		}
		limit = avail / 2
	} else {
		n, err := parseByteSize(flag)
		if err != nil {
			return nil, fmt.Errorf("--memory-limit: %w", err)
		}
		if n == 0 {
			return nil, nil
		}
		limit = n
	}
	return exec.NewBudget("server memory (--memory-limit)", limit), nil
}

// goMemoryHeadroom is what the Go runtime's soft limit allows over the
// server budget: memory no budget accounts (the runtime itself, scan
// batches in flight, gRPC buffers; see docs/operations.md).
func goMemoryHeadroom(limit int64) int64 { return max(64<<20, limit/4) }

// setGoMemoryLimit sets the Go runtime's soft memory limit (GOMEMLIMIT) to
// the budget plus goMemoryHeadroom, unless GOMEMLIMIT is set in the
// environment or there is no budget. Without it the GC lets the heap grow
// to twice the live data (GOGC=100) before collecting, so the process's
// resident memory could reach twice what the budget bounds; with it the
// GC collects harder as the heap nears the limit. It is a soft limit: live
// data over it is not refused (the budget does that), only collected more
// often.
func setGoMemoryLimit(b *exec.Budget) (int64, bool) {
	if b == nil || b.Limit() <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	soft := b.Limit() + goMemoryHeadroom(b.Limit())
	debug.SetMemoryLimit(soft)
	return soft, true
}

// parseByteSize parses 1024, 512KiB, 64MiB, 2GiB, 1TiB (also K/M/G/T, KB/MB/GB/TB as powers of 1024).
func parseByteSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q (want bytes or a number with KiB, MiB, GiB, TiB)", s)
	}
	return n * mult, nil
}

// availableMemory is the cgroup v2/v1 memory limit when one is set, else
// MemTotal from /proc/meminfo; 0 when neither can be read.
func availableMemory() int64 {
	var total int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
		f.Close()
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}
