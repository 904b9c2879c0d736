package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/openjibo/jibod/audio/eval"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/audio/wake"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

const audioEvalUsage = `Usage: jibod audio eval --dir DIR [--json] [--wake detector|grammar|spotter|both] [--wake-only] [--vad-threshold 10]

Runs every WAV file of DIR/manifest.jsonl ({"file","text","wake"} per line;
scripts/gen-audio-testset.sh makes one) through the robot's hearing — the
audio chain, voice activity detection, the listener and the speech
recogniser of this build, against the grammar of the robot's skills — and
scores it with the robot's intent engines: wake hit rate, false wakes per
hour of audio without the wake phrase, command accuracy (intent and slots),
real-time factor and latency. A timer's length and a volume level are
compared by the value their skill reads ("two minute" = "two minutes"),
every other slot by its words. Files without the wake phrase are heard with
the command window open, so commands said without it are scored too.
Needs a build with speech recognition (-tags sphinx), except with
--wake-only, which measures the wake word detector alone (wake hits, false
wakes, its CPU cost) in any build.
`

// cmdAudioEval runs `jibod audio eval`.
func cmdAudioEval(ctx context.Context, tr runtime.Trainer, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audio eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, audioEvalUsage); fs.PrintDefaults() }
	dir := fs.String("dir", "", "`folder` holding manifest.jsonl and its WAV files")
	asJSON := fs.Bool("json", false, "print the figures and every mistake as JSON")
	lang := fs.String("lang", "en-US", "language of the speech (BCP-47)")
	silence := fs.Duration("vad-silence", vad.Defaults.SilenceTimeout, "silence that ends an utterance")
	preRoll := fs.Duration("vad-pre-roll", vad.Defaults.PreRoll, "audio kept from before the onset of speech")
	threshold := fs.Float64("vad-threshold", vad.Defaults.ThresholdDB, "how far above the noise floor (dB) speech must be")
	edge := fs.Float64("vad-edge-threshold", vad.Defaults.EdgeThresholdDB, "how far above the noise floor (dB) the soft edges of words next to speech must be (at most --vad-threshold)")
	bgMargin := fs.Float64("vad-background-margin", vad.Defaults.BackgroundMarginDB, "how far over the background's typical level (dB) speech must be; negative for off")
	level := fs.String("log-level", "warn", "log level on standard error: debug, info, warn or error")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	wakeMethod := fs.String("wake", hearing.WakeDetector, "how the wake phrase is found: detector (the wake word detector, as the robot does), grammar (the start of the sentence recognised), spotter (pocketsphinx keyphrase spotting) or both (grammar and spotter)")
	kws := fs.Float64("kws-threshold", 0, "keyphrase spotting threshold for --wake spotter|both (default 1e-20)")
	wakeThreshold := fs.Float64("wake-threshold", 0, wakeThresholdUsage)
	wakeOnly := fs.Bool("wake-only", false, "measure the wake word detector alone: no speech recognition, no command figures")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *dir == "" || fs.NArg() > 0:
		return usageError{"audio eval: want --dir DIR and no other arguments"}
	case *wakeMethod != hearing.WakeDetector && *wakeMethod != sphinx.WakeGrammar && *wakeMethod != sphinx.WakeSpotter && *wakeMethod != sphinx.WakeBoth:
		return usageError{fmt.Sprintf("audio eval: --wake %q: want detector, grammar, spotter or both", *wakeMethod)}
	case *wakeOnly && *wakeMethod != hearing.WakeDetector:
		return usageError{"audio eval: --wake-only measures --wake detector"}
	case *wakeThreshold < 0 || *wakeThreshold >= 1:
		return usageError{fmt.Sprintf("audio eval: --wake-threshold %g: want 0 < t < 1", *wakeThreshold)}
	case *kws < 0 || *kws >= 1:
		return usageError{fmt.Sprintf("audio eval: --kws-threshold %g: want 0 < t < 1", *kws)}
	}
	tag, err := intent.NormalizeLang(*lang)
	if err != nil {
		return usageError{fmt.Sprintf("audio eval: --lang: %v", err)}
	}
	vcfg := vad.Config{SilenceTimeout: *silence, ThresholdDB: *threshold, PreRoll: *preRoll, BackgroundMarginDB: *bgMargin}
	fs.Visit(func(f *flag.Flag) {
		// Unset, the edge follows the detector's default (at most the threshold).
		if f.Name == "vad-edge-threshold" {
			vcfg.EdgeThresholdDB = *edge
		}
	})
	if err := vcfg.Validate(); err != nil {
		return usageError{"audio eval: " + err.Error()}
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}
	items, err := eval.ReadManifest(*dir)
	if err != nil {
		return fmt.Errorf("audio eval: %w", err)
	}
	var newWake func() (listen.WakeDetector, error)
	if *wakeMethod == hearing.WakeDetector {
		model, err := wake.Default()
		if err != nil {
			return fmt.Errorf("audio eval: %w", err)
		}
		newWake = func() (listen.WakeDetector, error) {
			return wake.New(wake.Config{Model: model, Threshold: *wakeThreshold})
		}
	}
	opts := eval.Options{WakeOnly: *wakeOnly, Normalize: intent.Normalize}
	if !*quiet {
		start := time.Now()
		opts.Progress = func(done, total int) {
			if done%25 == 0 || done == total {
				fmt.Fprintf(stderr, "audio eval: %d/%d files (%s)\n", done, total, time.Since(start).Round(time.Second))
			}
		}
	}
	if *wakeOnly {
		chain := &eval.ListenerChain{Recognizer: eval.NoRecognizer{}, Wake: newWake, VAD: vcfg, Lang: tag, Logger: log}
		return writeEvalReport(ctx, *dir, items, chain, nil, opts, *asJSON, stdout)
	}

	// The robot supplies the grammar (its skills' registrations) and the
	// intent engines commands are scored with; nothing is said to it.
	r, err := runtime.New(ctx, runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: runtime.NoState, Lang: tag, Log: log, Version: version, Trainer: tr})
	if err != nil {
		return fmt.Errorf("audio eval: starting the robot: %w", err)
	}
	defer r.Close(context.WithoutCancel(ctx))
	var env config.Run
	if err := env.ApplyEnv(os.Getenv); err != nil {
		return fmt.Errorf("audio eval: speech settings: %w", err)
	}
	rec, free, err := hearing.NewRecognizer(ctx, r.HearingParts(), hearing.Options{Lang: tag, Log: log, WakeInGrammar: *wakeMethod != hearing.WakeDetector, Sphinx: env.Sphinx})
	if err != nil {
		return fmt.Errorf("audio eval: %w", err)
	}
	defer free()

	heard := rec
	if *wakeMethod == sphinx.WakeSpotter || *wakeMethod == sphinx.WakeBoth {
		spot, freeSpot, err := hearing.NewWakeSpotter(ctx, *kws, env.Sphinx)
		if err != nil {
			return fmt.Errorf("audio eval: %w", err)
		}
		defer freeSpot()
		heard = &sphinx.WakeCheck{Recognizer: rec, Spotter: spot, Method: *wakeMethod}
	}
	chain := &eval.ListenerChain{Recognizer: heard, Wake: newWake, VAD: vcfg, Lang: tag, Logger: log}
	// What the stack understands must not depend on how soon the robot
	// learns its skills in the background.
	if err := r.Intents().Learn(ctx); err != nil {
		return fmt.Errorf("audio eval: learning the skills' intents: %w", err)
	}
	und := &hearing.Understander{Intents: r.Intents(), Lang: tag}
	return writeEvalReport(ctx, *dir, items, chain, und, opts, *asJSON, stdout)
}

// writeEvalReport runs the eval and prints its report.
func writeEvalReport(ctx context.Context, dir string, items []eval.Item, chain eval.Chain, und eval.Understander,
	opts eval.Options, asJSON bool, stdout io.Writer) error {
	rep, err := eval.Run(ctx, dir, items, chain, und, opts)
	if err != nil {
		return fmt.Errorf("audio eval: %w", err)
	}
	if asJSON {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
}
