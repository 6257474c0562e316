package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses args with flags and positional arguments in any order
// (`cat TABLE --snapshot 3` and `cat --snapshot 3 TABLE` both work) and
// returns the positional arguments. "--" ends flag parsing.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // let fs.Parse report it
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	if err := fs.Parse(flags); err != nil {
		if err == flag.ErrHelp {
			return nil, errHelp
		}
		return nil, errUsage
	}
	return pos, nil
}

// needArgs checks the number of positional arguments.
func needArgs(fs *flag.FlagSet, pos []string, n int, what string, stderr io.Writer) error {
	if len(pos) != n {
		fmt.Fprintf(stderr, "%s: expected %s\n", fs.Name(), what)
		fs.Usage()
		return errUsage
	}
	return nil
}
