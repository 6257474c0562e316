package parse

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/xwb1989/sqlparser"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCPUOr(t *testing.T) {
	if os.Getenv("CPUOR") == "" {
		t.Skip()
	}
	sql := orChain(1 << 20)
	c0 := cpuNow()
	w0 := time.Now()
	for i := 0; i < 3; i++ {
		if _, err := Parse(sql); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("Parse: cpu %v wall %v per op", (cpuNow()-c0)/3, time.Since(w0)/3)
	c0, w0 = cpuNow(), time.Now()
	for i := 0; i < 3; i++ {
		if _, err := sqlparser.Parse(sql); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("sqlparser alone: cpu %v wall %v per op", (cpuNow()-c0)/3, time.Since(w0)/3)
}
