package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/try"
	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
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
	in := stdin
	if *answers != "" {
		f, err := os.Open(*answers)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	s, closeSkill, err := trySkill(ctx, fs.Arg(0), *program)
	if err != nil {
		return err
	}
	defer closeSkill()
	p, err := try.New(try.Config{Skill: s, Lang: *lang})
	if err != nil {
		return err
	}
	opts := try.RunOptions{JSON: *asJSON, ReadFile: func(name string) ([]byte, error) {
		return readLimited(name, protocol.MaxMessageSize)
	}}
	if f, ok := in.(*os.File); ok && *answers == "" {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			opts.Prompt = "you> "
			fmt.Fprintln(stdout, "Say something (an empty line is silence, @FILE sends a request file, Ctrl-D ends).")
		}
	}
	return try.Run(ctx, p, in, stdout, opts)
}

// trySkill is the skill a target names, and how to let it go.
func trySkill(ctx context.Context, target, program string) (skill.Skill, func(), error) {
	nothing := func() {}
	if program != "" {
		p, err := local.StartProcess(ctx, program, local.ProcessConfig{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nil, nil, err
		}
		return p, func() { _ = p.Close(context.WithoutCancel(ctx)) }, nil
	}
	if strings.HasSuffix(target, ".mim") {
		m, err := mim.Load(os.DirFS(filepath.Dir(target)), filepath.Base(target))
		if err != nil {
			return nil, nil, err
		}
		s, err := try.NewMIMSkill(m)
		return s, nothing, err
	}
	if st, err := os.Stat(filepath.Join(target, skillpkg.ModuleFile)); err == nil && !st.IsDir() {
		p, err := skillpkg.Read(target)
		if err != nil {
			return nil, nil, err
		}
		// Storage of its own, for the session: what the skill stores in
		// a try never reaches the robot's.
		tmp, err := os.MkdirTemp("", "jibod-try-")
		if err != nil {
			return nil, nil, err
		}
		st, err := kv.Open(filepath.Join(tmp, skillDataFileName), kv.Options{})
		if err != nil {
			_ = os.RemoveAll(tmp)
			return nil, nil, err
		}
		done := func() { _ = st.Close(); _ = os.RemoveAll(tmp) }
		e, err := wasm.New(wasm.Config{Storage: st, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			done()
			return nil, nil, err
		}
		s, err := e.Load(ctx, p)
		if err != nil {
			_ = e.Close(ctx)
			done()
			return nil, nil, err
		}
		return s, func() { _ = e.Close(context.WithoutCancel(ctx)); done() }, nil
	}
	skills, err := installedSkills()
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	for _, s := range skills {
		m := s.Manifest()
		if m.ID == target || m.BusID() == target {
			return s, nothing, nil
		}
		ids = append(ids, m.ID)
	}
	return nil, nil, fmt.Errorf("%q is no .mim file, skill package folder or built-in skill (built-in skills: %s)", target, strings.Join(ids, ", "))
}
