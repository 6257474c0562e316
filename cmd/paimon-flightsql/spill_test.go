package main

import "testing"

func TestSpillOptions(t *testing.T) {
	o, err := spillOptions("/var/spill", "")
	if err != nil || o.Disabled || o.Disk != nil || o.Dir != "/var/spill" || o.OnFile == nil {
		t.Fatalf("default: %+v, %v", o, err)
	}
	if o, err = spillOptions("", "off"); err != nil || !o.Disabled {
		t.Fatalf("off: %+v, %v", o, err)
	}
	if o, err = spillOptions("", "2GiB"); err != nil || o.Disk == nil || o.Disk.Limit() != 2<<30 {
		t.Fatalf("2GiB: %+v, %v", o, err)
	}
	if o, err = spillOptions("", "0"); err != nil || o.Disk != nil || o.Disabled {
		t.Fatalf("0: %+v, %v", o, err)
	}
	if _, err = spillOptions("", "lots"); err == nil {
		t.Fatal("a bad --spill-limit was accepted")
	}
}
