package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/capture"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

const audioUsage = `Usage:
  jibod audio devices                         the audio backends of this build and their capture devices
  jibod audio level [--audio SPEC] [--seconds N]  a live input meter (dBFS), with the noise floor and speech
  jibod audio eval --dir DIR [--json]          measure wake word, commands, RTF and latency on a folder of WAVs
  jibod audio prompts [--n 100] [--seed 1]     sentences of the robot's grammar for people to read aloud
  jibod audio enroll --dir DIR [--audio SPEC]  record people reading them, for adapt
  jibod audio adapt --dir DIR --out MODELDIR   adapt the acoustic model to a folder of transcribed WAVs
`

// cmdAudio runs the audio tools.
func cmdAudio(ctx context.Context, tr runtime.Trainer, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, audioUsage)
		return usageError{"audio: want a subcommand"}
	}
	log, err := newLogger(stderr, "warn")
	if err != nil {
		return err
	}
	backends, free := hearing.AudioBackends(log)
	defer free()
	switch args[0] {
	case "devices":
		return cmdAudioDevices(ctx, args[1:], backends, stdout, stderr)
	case "level":
		return cmdAudioLevel(ctx, args[1:], backends, stdin, stdout, stderr, log)
	case "eval":
		return cmdAudioEval(ctx, tr, args[1:], stdout, stderr)
	case "prompts":
		return cmdAudioPrompts(ctx, tr, args[1:], stdout, stderr)
	case "enroll":
		return cmdAudioEnroll(ctx, tr, args[1:], backends, stdin, stdout, stderr, log)
	case "adapt":
		return cmdAudioAdapt(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, audioUsage)
		return nil
	}
	return usageError{fmt.Sprintf("audio: unknown subcommand %q", args[0])}
}

func cmdAudioDevices(ctx context.Context, args []string, backends map[string]audio.Backend, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audio devices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	capture.WriteDevices(ctx, stdout, &audio.Opener{Backends: backends})
	return nil
}

func cmdAudioLevel(ctx context.Context, args []string, backends map[string]audio.Backend, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("audio level", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := ""
	if _, ok := backends["portaudio"]; ok {
		def = "portaudio"
	}
	spec := fs.String("audio", def, "where to listen: file:IN.wav, stdin, null or a device backend (default: portaudio when this build has it)")
	seconds := fs.Float64("seconds", 0, "stop after this much audio (0: until the source ends or Ctrl-C)")
	realtime := fs.Bool("audio-realtime", false, "play a file: source in real time")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *spec == "" {
		return usageError{"--audio: this build has no device backend; give file:IN.wav, stdin or null"}
	}
	if *seconds < 0 || *seconds > 24*3600 || math.IsNaN(*seconds) {
		return usageError{fmt.Sprintf("--seconds %v: want 0..86400", *seconds)}
	}
	op := &audio.Opener{Backends: backends, Stdin: stdin, Pace: *realtime, Logger: log}
	src, err := op.Open(ctx, *spec)
	if err != nil {
		return err
	}
	defer src.Close()
	return capture.Level(ctx, stdout, src, int64(*seconds*audio.SampleRate))
}
