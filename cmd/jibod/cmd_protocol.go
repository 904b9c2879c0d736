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

  mim_type or prompts          MIM (.mim)
  type LISTEN_LAUNCH, LISTEN_UPDATE, PROACTIVE_LAUNCH
                               skill request
  type SKILL_ACTION            skill response (the hub forwards it unchanged)
  type SKILL_REDIRECT, ERROR   hub-to-robot if data has match (redirect) or
                               no skill (error), else skill response
  type LISTEN                  hub-to-robot if data has nlu or match (the
                               turn's result), else robot-to-hub
  type CONTEXT, TRIGGER, CMD_RESULT, CLIENT_ASR, CLIENT_NLU
                               robot-to-hub
  type SOS, EOS, ASR, NLU, PROACTIVE, COMMAND
                               hub-to-robot
  type JCP, or config.jcp      JCP action
  type SLIM, SEQUENCE, PARALLEL, SET_PRESENT_PERSON, IMPACT_EMOTION, LOOKAT,
       PLAY_ANIMATION (PLAY, LISTEN, DISPLAY: only inside a SLIM)
                               JCP behaviour, checked as the root of an action
                               (as jibod jcp run runs it)
  intents                      skill manifest (jibo.md §2.6)

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
	failed := 0
	for _, file := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := protocheck.File(file, kind)
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "%s: error: %v\n", file, err)
			continue
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "%s: warning: %s\n", file, w)
		}
		fmt.Fprintf(stdout, "%s: %s ok\n", file, res.Label)
		if !*quiet {
			fmt.Fprintf(stdout, "%s\n", res.Canonical)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files invalid", failed, fs.NArg())
	}
	return nil
}
