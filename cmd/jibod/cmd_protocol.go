package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	protocheck "github.com/openjibo/jibod/core/skill/protocol/check"
)

const protocolUsage = `Usage:
  jibod protocol check [--quiet] [--as KIND] FILE...

Decodes each file as the Jibo message, JCP action, skill manifest or MIM it
is, validates it, and prints "FILE: KIND ok" and its canonical JSON on one
line. An invalid or unreadable file prints "FILE: error: PATH: PROBLEM" on
standard error; every file is checked, and the exit status is 1 if any
failed. What a file is comes from its content:

` + protocheck.Recognition + `
Flags:
`

func cmdProtocol(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprint(stderr, protocolUsage)
		if len(args) == 0 {
			return usageError{"missing subcommand (want check)"}
		}
		return usageError{fmt.Sprintf("unknown subcommand %q (want check)", args[0])}
	}
	fs := flag.NewFlagSet("protocol check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, protocolUsage); fs.PrintDefaults() }
	quiet := fs.Bool("quiet", false, "print only the FILE: KIND ok lines, not the canonical JSON")
	as := fs.String("as", "", "read every file as this kind instead of recognising it: "+protocheck.KindList())
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"want at least one file"}
	}
	kind := protocheck.Kind(*as)
	if kind != "" && !slices.Contains(protocheck.Kinds, kind) {
		return usageError{fmt.Sprintf("--as %q: want one of %s", *as, protocheck.KindList())}
	}
	return protocheck.Files(ctx, stdout, stderr, fs.Args(), kind, *quiet)
}
