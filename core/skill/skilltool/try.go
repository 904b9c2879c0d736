package skilltool

import (
	"context"
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
	protocheck "github.com/openjibo/jibod/core/skill/protocol/check"
	"github.com/openjibo/jibod/core/skill/try"
	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// OpenTry is the skill to try that target names, and how to let it go:
// the local Go skill program serves when program is not "", else a .mim
// file, a skill package folder, or one of builtins by manifest or bus id.
func OpenTry(ctx context.Context, target, program string, builtins func() ([]skill.Skill, error)) (skill.Skill, func(), error) {
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
		return openPackage(ctx, target)
	}
	skills, err := builtins()
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

// openPackage loads the skill package in dir with storage of its own, for
// the session: what the skill stores in a try never reaches the robot's.
func openPackage(ctx context.Context, dir string) (skill.Skill, func(), error) {
	p, err := skillpkg.Read(dir)
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "jibod-try-")
	if err != nil {
		return nil, nil, err
	}
	st, err := kv.Open(filepath.Join(tmp, installed.DataFileName), kv.Options{})
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

// TryConfig is what `jibod skills try` plays and where.
type TryConfig struct {
	// Target is a .mim file, a skill package folder, or a built-in
	// skill's manifest or bus id; Program, when not "", a local Go skill
	// program to play instead (see OpenTry).
	Target, Program string
	// Builtins are the robot's built-in skills, asked for only when
	// Target names none of the others.
	Builtins func() ([]skill.Skill, error)
	// Answers is a file of what is said; "" reads In, which prompts when
	// it is a terminal.
	Answers string
	In      io.Reader
	Out     io.Writer
	// Lang is the turns' language; JSON prints each turn as an object.
	Lang string
	JSON bool
}

// RunTry opens the skill c names and plays it (Try) on what is said, from
// c.Answers or c.In, until the lines end; it lets the skill go after.
func RunTry(ctx context.Context, c TryConfig) error {
	in := c.In
	if c.Answers != "" {
		f, err := os.Open(c.Answers)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	s, closeSkill, err := OpenTry(ctx, c.Target, c.Program, c.Builtins)
	if err != nil {
		return err
	}
	defer closeSkill()
	interactive := false
	if f, ok := in.(*os.File); ok && c.Answers == "" {
		st, err := f.Stat()
		interactive = err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return Try(ctx, s, in, c.Out, c.Lang, c.JSON, interactive)
}

// Try plays s turn by turn as the robot would (package try) on what in
// says, writing each turn to w (as JSON objects with asJSON); when the
// lines come from a person at a terminal (interactive), it prompts for
// each.
func Try(ctx context.Context, s skill.Skill, in io.Reader, w io.Writer, lang string, asJSON, interactive bool) error {
	p, err := try.New(try.Config{Skill: s, Lang: lang})
	if err != nil {
		return err
	}
	opts := try.RunOptions{JSON: asJSON, ReadFile: func(name string) ([]byte, error) {
		return protocheck.ReadLimited(name, protocol.MaxMessageSize)
	}}
	if interactive {
		opts.Prompt = "you> "
		fmt.Fprintln(w, "Say something (an empty line is silence, @FILE sends a request file, Ctrl-D ends).")
	}
	return try.Run(ctx, p, in, w, opts)
}
