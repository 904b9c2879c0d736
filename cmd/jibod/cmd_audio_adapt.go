//go:build sphinx

package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/openjibo/jibod/audio/eval"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

const audioAdaptUsage = `Usage: jibod audio adapt --dir DIR [--dir DIR2 ...] --out MODELDIR [--model BASEDIR]

MAP-adapts the speech recogniser's acoustic model to the transcribed WAV
files of DIR/manifest.jsonl (the format audio eval reads: "file" and
"text" per line; recordings from the robot's own microphone and people,
such as jibod audio enroll makes, are what it is for; several folders are
adapted to together) and writes the adapted model to MODELDIR, which must
not exist. jibod run uses the model at STATE/acoustic-model (STATE: its
--state folder) when there is one, or JIBOD_SPHINX_MODEL=MODELDIR. Runs sphinx_fe,
pocketsphinx_mdef_convert and sphinxtrain's bw and map_adapt (Debian:
sphinxbase-utils, pocketsphinx, sphinxtrain).
`

// cmdAudioAdapt runs `jibod audio adapt`.
func cmdAudioAdapt(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var env config.Run
	if err := env.ApplyEnv(os.Getenv); err != nil {
		return fmt.Errorf("audio adapt: speech settings: %w", err)
	}
	fs := flag.NewFlagSet("audio adapt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, audioAdaptUsage); fs.PrintDefaults() }
	var dirs folderList
	fs.Var(&dirs, "dir", "`folder` holding manifest.jsonl and its WAV files (repeat for more)")
	out := fs.String("out", "", "`folder` to write the adapted model to (must not exist)")
	model := fs.String("model", hearing.ModelDir(env.Sphinx.Model, ""), "base acoustic model `folder`")
	level := fs.String("log-level", "warn", "log level on standard error: debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(dirs) == 0 || *out == "" || fs.NArg() > 0 {
		return usageError{"audio adapt: want --dir DIR --out MODELDIR and no other arguments"}
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}
	var utts []sphinx.AdaptUtterance
	for _, dir := range dirs {
		items, err := eval.ReadManifest(dir)
		if err != nil {
			return fmt.Errorf("audio adapt: %s: %w", dir, err)
		}
		for _, it := range items {
			utts = append(utts, sphinx.AdaptUtterance{WAV: filepath.Join(dir, it.File), Text: it.Text})
		}
	}
	opts := sphinx.LexiconOptions{Log: log}
	if _, err := exec.LookPath("espeak-ng"); err == nil {
		opts.Guesser = sphinx.EspeakGuesser{}
	}
	lex, err := sphinx.NewLexicon(cmp.Or(env.Sphinx.Dict, sphinx.DefaultDict), opts)
	if err != nil {
		return fmt.Errorf("audio adapt: %w", err)
	}
	floors := hearing.AdaptedFloors
	rep, err := sphinx.Adapt(ctx, sphinx.AdaptConfig{BaseModel: *model, Out: *out, Utterances: utts, Lexicon: lex,
		FloorBelowDB: env.Sphinx.NoiseFloorDB, TrimMargin: hearing.TrimMargin(env.Sphinx.TrimMS), DenoiseBelowSNR: hearing.DenoiseBelow(env.Sphinx.DenoiseDB), Floors: &floors, Log: log})
	// The skipped recordings are in the log, as Adapt met them (those for a
	// word without a pronunciation at debug, after one warning naming the words).
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "adapted %s from %d recordings (%.1f min; %d skipped, %d not aligned) into %s\n",
		*model, rep.Used, rep.Seconds/60, rep.Skipped, rep.NotAligned, *out)
	fmt.Fprintf(stdout, "use it: JIBOD_SPHINX_MODEL=%s jibod run ..., or move it to STATE/%s\n", *out, hearing.AdaptedModelName)
	return nil
}

// folderList is a repeatable folder flag.
type folderList []string

func (f *folderList) String() string { return strings.Join(*f, ",") }

func (f *folderList) Set(v string) error {
	if v == "" {
		return errors.New("empty folder")
	}
	*f = append(*f, v)
	return nil
}
