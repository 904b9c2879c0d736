package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/capture"
	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

const audioPromptsUsage = `Usage: jibod audio prompts [--n 100] [--seed 1] [--json]

Prints sentences of the robot's speech grammar for people to read aloud,
for adapting the acoustic model to their voices (jibod audio enroll records
them, jibod audio adapt adapts to the recordings): each sentence is the
one of many drawn that says the most words not yet said, intents take
turns, every other sentence has the wake phrase. The same seed gives the same sentences
for the same skills. --json prints {"text","intent","wake"} a line.
`

func cmdAudioPrompts(ctx context.Context, tr runtime.Trainer, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audio prompts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, audioPromptsUsage); fs.PrintDefaults() }
	n := fs.Int("n", defaultEnrollPrompts, "how many sentences")
	seed := fs.Uint64("seed", 1, "which draw of sentences")
	asJSON := fs.Bool("json", false, "one JSON object a line")
	lang := fs.String("lang", "en-US", "language of the sentences (BCP-47)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("audio prompts: unexpected argument %q", fs.Arg(0))}
	}
	prompts, err := robotPrompts(ctx, tr, *lang, *n, *seed, stderr)
	if err != nil {
		return err
	}
	return grammar.WritePrompts(stdout, prompts, *asJSON)
}

// defaultEnrollPrompts is how many sentences an enrollment asks for: with
// the built-in skills they say 185 of the grammar's 194 words, in about
// eight minutes of reading.
const defaultEnrollPrompts = 100

// robotPrompts starts the robot (simulated board, no state) for its
// grammar and draws n prompts from it.
func robotPrompts(ctx context.Context, tr runtime.Trainer, lang string, n int, seed uint64, stderr io.Writer) ([]grammar.Prompt, error) {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--lang: %v", err)}
	}
	if n < 1 || n > grammar.MaxPrompts {
		return nil, usageError{fmt.Sprintf("--n %d: want 1..%d", n, grammar.MaxPrompts)}
	}
	log, err := newLogger(stderr, "warn")
	if err != nil {
		return nil, err
	}
	r, err := runtime.New(ctx, runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: runtime.NoState, Lang: tag, Log: log, Version: version, Trainer: tr})
	if err != nil {
		return nil, fmt.Errorf("starting the robot: %w", err)
	}
	defer r.Close(context.WithoutCancel(ctx))
	g, err := hearing.CommandGrammar(r.Intents(), tag)
	if err != nil {
		return nil, fmt.Errorf("the robot's speech grammar: %w", err)
	}
	return g.Prompts(n, seed)
}

const audioEnrollUsage = `Usage: jibod audio enroll --dir DIR [--audio SPEC] [--n 100] [--seed 1]

Records a person reading sentences of the robot's speech grammar, for
jibod audio adapt: shows one sentence at a time, waits for it to be said,
and writes DIR/enroll-NNN.wav (16 kHz mono) and a line of
DIR/manifest.jsonl per sentence. Speech cut off or over the detector's
longest utterance is asked for again; a sentence with nothing said within
--wait is skipped. Run it again with the same --n and --seed to go on
where it stopped: sentences already in the manifest are not asked again.
Then: jibod audio adapt --dir DIR --out MODELDIR.
`

func cmdAudioEnroll(ctx context.Context, tr runtime.Trainer, args []string, backends map[string]audio.Backend, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("audio enroll", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, audioEnrollUsage); fs.PrintDefaults() }
	def := ""
	if _, ok := backends["portaudio"]; ok {
		def = "portaudio"
	}
	dir := fs.String("dir", "", "`folder` for the recordings and manifest.jsonl (made if missing)")
	spec := fs.String("audio", def, "where to listen: a device backend (default: portaudio when this build has it), file:IN.wav or stdin")
	n := fs.Int("n", defaultEnrollPrompts, "how many sentences")
	seed := fs.Uint64("seed", 1, "which draw of sentences")
	wait := fs.Duration("wait", 15*time.Second, "how long to wait for a sentence to be said before skipping it")
	lang := fs.String("lang", "en-US", "language of the sentences (BCP-47)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *dir == "" || fs.NArg() > 0:
		return usageError{"audio enroll: want --dir DIR and no other arguments"}
	case *spec == "":
		return usageError{"audio enroll: --audio: this build has no device backend; give file:IN.wav or stdin"}
	case *wait < time.Second || *wait > 10*time.Minute:
		return usageError{fmt.Sprintf("audio enroll: --wait %v: want 1s..10m", *wait)}
	}
	prompts, err := robotPrompts(ctx, tr, *lang, *n, *seed, stderr)
	if err != nil {
		return fmt.Errorf("audio enroll: %w", err)
	}
	en, err := capture.OpenEnrollment(*dir)
	if err != nil {
		return fmt.Errorf("audio enroll: %w", err)
	}
	op := &audio.Opener{Backends: backends, Stdin: stdin, Logger: log}
	src, err := op.Open(ctx, *spec)
	if err != nil {
		return fmt.Errorf("audio enroll: %w", err)
	}
	defer src.Close()
	toRead := make([]capture.Prompt, len(prompts))
	for i, p := range prompts {
		toRead[i] = capture.Prompt{Text: p.Text, Wake: p.Wake}
	}
	if err := en.Record(ctx, src, toRead, *wait, stdout); err != nil {
		return fmt.Errorf("audio enroll: %w", err)
	}
	return nil
}
