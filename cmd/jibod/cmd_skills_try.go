package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/openjibo/jibod/core/skill/skilltool"
)

const skillsTryUsage = `Usage:
  jibod skills try [flags] FILE.mim | SKILL_ID | PACKAGE_DIR
  jibod skills try [flags] --local-skill PROGRAM

Plays a skill turn by turn as the robot would, without a robot: a MIM (as
Jibo's MIMFactory plays it), a built-in skill, a WebAssembly skill package,
or a local Go skill's program. Each line read (standard input, or
--answers FILE) is something said: the launch, then each answer while the
skill asks; an empty line is silence, @FILE sends a skill request file as
written, # starts a comment. Each turn shows what was understood, every
SLIM played, the graph's node trace and what the skill does next.

Flags:
`

func cmdSkillsTry(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills try", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, skillsTryUsage); fs.PrintDefaults() }
	answers := fs.String("answers", "", "read what is said from this `FILE` instead of standard input")
	program := fs.String("local-skill", "", "play the local Go skill this `PROGRAM` serves (core/skill/local's Main)")
	lang := fs.String("lang", "en-US", "the turns' language")
	asJSON := fs.Bool("json", false, "print each turn as a JSON object: request, response, SLIMs, trace")
	if err := parseFlags(fs, reorderFlags(args, "answers", "local-skill", "lang")); err != nil {
		return err
	}
	if (*program == "") == (fs.NArg() != 1) || fs.NArg() > 1 {
		return usageError{"want one FILE.mim, SKILL_ID or PACKAGE_DIR, or --local-skill PROGRAM"}
	}
	return skilltool.RunTry(ctx, skilltool.TryConfig{Target: fs.Arg(0), Program: *program, Builtins: installedSkills,
		Answers: *answers, In: stdin, Out: stdout, Lang: *lang, JSON: *asJSON})
}
