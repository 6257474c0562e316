package parse

import (
	"os"
	"strings"
	"testing"
)

func TestDbg(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("Q"), ";;") {
		st, err := Parse(s)
		if err != nil {
			t.Logf("%s\n  ERR %v", s, err)
			continue
		}
		t.Logf("%s\n  => %s", s, render(st))
	}
}
