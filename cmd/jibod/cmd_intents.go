package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/intent/intenttool"
	"github.com/openjibo/jibod/core/runtime"
)

// intentStack builds the robot's intent stacks with tr's paraphrase
// training.
func intentStack(tr runtime.Trainer) intenttool.NewStack {
	return func(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error) {
		return runtime.NewIntentStack(b, log, explain, tr)
	}
}

const intentsUsage = `Usage:
  jibod intents expand                       expand templates read as JSON lines on standard input
  jibod intents match --skills DIR [--lang L] match utterances (one per line) against skills' intents
  jibod intents eval --corpus FILE [--json]   measure the intent engines on a corpus
`

// cmdIntents dispatches the intent tools for skill authors.
func cmdIntents(ctx context.Context, tr runtime.Trainer, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, intentsUsage)
		return usageError{"intents: missing command"}
	}
	switch args[0] {
	case "expand":
		return cmdIntentsExpand(ctx, args[1:], stdin, stdout, stderr)
	case "match":
		return cmdIntentsMatch(ctx, tr, args[1:], stdin, stdout, stderr)
	case "eval":
		return cmdIntentsEval(ctx, tr, args[1:], stdout, stderr)
	default:
		fmt.Fprint(stderr, intentsUsage)
		return usageError{fmt.Sprintf("intents: unknown command %q", args[0])}
	}
}

// cmdIntentsExpand runs `jibod intents expand` (intenttool.ExpandLines).
func cmdIntentsExpand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("intents expand", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: jibod intents expand < lines.jsonl\n\n"+
			"Reads {\"template\": \"...\", \"vocab\": {\"name\": [\"phrase\", ...]}} per line and writes\n"+
			"{\"expansions\": [...]} or {\"error\": \"...\"} per line.\n")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"intents expand: takes no arguments; templates come on standard input"}
	}
	return toolError(ctx, "intents expand", intenttool.ExpandLines(ctx, stdin, stdout))
}

// cmdIntentsMatch runs `jibod intents match`: the skill folders under
// --skills registered with the robot's intent stack, each line of
// standard input matched through it (intenttool.MatchLines).
func cmdIntentsMatch(ctx context.Context, tr runtime.Trainer, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("intents match", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("skills", "", "`folder` holding one folder per skill, named by skill id, each with a locale/ folder (or language folders)")
	lang := fs.String("lang", "en-US", "utterance language (BCP-47)")
	override := fs.String("override", "", "user override `folder`: <folder>/<skill_id>/locale/<lang>/… replaces the skill's files one by one (RES-02)")
	near := fs.Int("near", intent.DefaultNearMisses, fmt.Sprintf("near misses to list for an unmatched utterance (1–%d)", intent.MaxNearMisses))
	explain := fs.Bool("explain", false, "also list the round's ranked candidates; the match's why says why it beat the runner-up")
	level := fs.String("log-level", "warn", "log level on standard error: debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *dir == "" || fs.NArg() > 0:
		return usageError{"intents match: want --skills DIR and no other arguments; utterances come on standard input"}
	case *near < 1 || *near > intent.MaxNearMisses:
		return usageError{fmt.Sprintf("intents match: --near %d: want 1 to %d", *near, intent.MaxNearMisses)}
	}
	tag, err := intent.NormalizeLang(*lang)
	if err != nil {
		return usageError{fmt.Sprintf("intents match: --lang: %v", err)}
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}
	skills, err := intenttool.LoadSkillFolders(*dir, *override, log)
	if err != nil {
		return fmt.Errorf("intents match: %w", err)
	}
	m, err := intenttool.NewMatcher(ctx, skills, intentStack(tr), log)
	if err != nil {
		return fmt.Errorf("intents match: %w", err)
	}
	defer m.Close()
	return toolError(ctx, "intents match", intenttool.MatchLines(ctx, m, stdin, stdout,
		intenttool.MatchOptions{Lang: tag, Near: *near, Explain: *explain}))
}

// toolError names the command in a tool's error; the context's own error,
// the run stopped, is returned as it is.
func toolError(ctx context.Context, name string, err error) error {
	if err == nil || err == ctx.Err() {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// cmdIntentsEval runs `jibod intents eval` (intenttool.Evaluate).
func cmdIntentsEval(ctx context.Context, tr runtime.Trainer, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("intents eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("corpus", "", "corpus `file` (JSON; see README)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a report")
	failures := fs.Bool("failures", false, "also list every test that failed")
	para := fs.Bool("paraphrase", true, "include the paraphrase tier (false: the template and keyword engines alone)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *path == "" || fs.NArg() > 0 {
		return usageError{"intents eval: want --corpus FILE and no other arguments"}
	}
	c, err := intenttool.LoadCorpus(*path)
	if err != nil {
		return err
	}
	o := intenttool.EvalOptions{Progress: intenttool.Progress(stderr)}
	if *para {
		o.Stack = intentStack(tr)
	}
	rep, err := intenttool.Evaluate(ctx, c, o)
	if err != nil {
		return err
	}
	if !*failures {
		rep.Failures = nil
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.WriteText(stdout, *path)
	return nil
}
