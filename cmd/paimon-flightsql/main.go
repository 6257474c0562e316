// Command paimon-flightsql serves Apache Paimon tables over Arrow Flight SQL
// and offers the tools around it.
//
//	paimon-flightsql serve   --warehouse W | --demo [--listen 127.0.0.1:32010]
//	paimon-flightsql query   --warehouse W [--format table|csv|jsonl] "SQL"
//	paimon-flightsql demo    --warehouse W [--scale S]
//	paimon-flightsql inspect TABLE_PATH [--snapshot N] [--json]
//	paimon-flightsql cat     TABLE_PATH [--snapshot N | --tag T | --timestamp MS] [--branch B] [--columns a,b] [--format jsonl|csv|table] [--ro]
//	paimon-flightsql compact --warehouse W db.t [--full]
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	commands[name] = command{summary: summary, run: run}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: paimon-flightsql <command> [flags]")
	fmt.Fprintln(w, "\ncommands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'paimon-flightsql <command> -h' for the flags of a command.")
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

// errHelp marks a -h/--help request: the usage went out and the command
// exits 0.
var errHelp = errors.New("help")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "paimon-flightsql: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := cmd.run(ctx, args[1:], stdout, stderr); err != nil {
		if errors.Is(err, errHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			return 2
		}
		fmt.Fprintf(stderr, "paimon-flightsql %s: %s\n", args[0], printable(err.Error()))
		return 1
	}
	return 0
}

// splitList parses "a,b,c" (empty → nil).
func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// printable escapes what a terminal should not receive raw: invalid UTF-8
// as \xNN and non-printable runes strconv.Quote-style (\x00, \u200b);
// newlines and tabs stay (messages may span lines). Error messages can
// carry bytes of damaged files.
func printable(s string) string {
	ok := true
	for _, r := range s {
		if r == utf8.RuneError || (!unicode.IsPrint(r) && r != '\n' && r != '\t') {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\n' || r == '\t' || unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}
