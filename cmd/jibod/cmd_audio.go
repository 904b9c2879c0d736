package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/vad"
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
func cmdAudio(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, audioUsage)
		return usageError{"audio: want a subcommand"}
	}
	log, err := newLogger(stderr, "warn")
	if err != nil {
		return err
	}
	backends, free := audioBackends(log)
	defer free()
	switch args[0] {
	case "devices":
		return cmdAudioDevices(ctx, args[1:], backends, stdout, stderr)
	case "level":
		return cmdAudioLevel(ctx, args[1:], backends, stdin, stdout, stderr, log)
	case "eval":
		return cmdAudioEval(ctx, args[1:], stdout, stderr)
	case "prompts":
		return cmdAudioPrompts(ctx, args[1:], stdout, stderr)
	case "enroll":
		return cmdAudioEnroll(ctx, args[1:], backends, stdin, stdout, stderr, log)
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
	op := &audio.Opener{Backends: backends}
	fmt.Fprintf(stdout, "backends: %s\n", strings.Join(op.Names(), ", "))
	fmt.Fprintf(stdout, "  file:PATH.wav  a WAV file (any integer PCM; converted to 16 kHz mono)\n")
	fmt.Fprintf(stdout, "  stdin          raw signed 16-bit little-endian 16 kHz mono on standard input\n")
	fmt.Fprintf(stdout, "  null           silence\n")
	devs, errs := op.Devices(ctx)
	var names []string
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := errs[n]; err != nil {
			fmt.Fprintf(stdout, "%s: cannot list devices: %v\n", n, err)
			continue
		}
		list, ok := devs[n]
		if !ok {
			fmt.Fprintf(stdout, "%s: (does not list devices)\n", n)
			continue
		}
		fmt.Fprintf(stdout, "%s: %d capture device(s)\n", n, len(list))
		for _, d := range list {
			mark := " "
			if d.Default {
				mark = "*"
			}
			fmt.Fprintf(stdout, "  %s %s:%s  %s, %d ch, %d Hz\n", mark, n, d.ID, d.Name, d.Channels, d.SampleRate)
		}
	}
	return nil
}

// meterInterval is how often the meter shows a reading.
const meterInterval = 100 * time.Millisecond

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
	m, err := newMeter(stdout)
	if err != nil {
		return err
	}
	limit := int64(*seconds * audio.SampleRate)
	err = m.run(ctx, src, limit)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	return errors.Join(err, m.finish())
}

// meter shows the input level: one line per interval, redrawn in place on
// a terminal.
type meter struct {
	w        io.Writer
	terminal bool
	det      *vad.Detector
	chain    *transform.Run
}

func newMeter(w io.Writer) (*meter, error) {
	chain, det, err := newLevelChain()
	if err != nil {
		return nil, err
	}
	m := &meter{w: w, det: det, chain: chain}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			m.terminal = true
		}
	}
	return m, nil
}

// newLevelChain is the audio tools' view of the microphone: the audio
// chain's DC block and a voice activity detector with the robot's
// defaults (jibod audio level shows it, jibod audio enroll cuts with it).
func newLevelChain() (*transform.Run, *vad.Detector, error) {
	det, err := vad.New(vad.Config{})
	if err != nil {
		return nil, nil, err
	}
	chain, err := transform.New(transform.Config{Transformers: []transform.Transformer{&transform.DCBlock{}}})
	if err != nil {
		return nil, nil, err
	}
	return chain.Compose(nil, nil), det, nil
}

// run reads src until it ends, ctx ends or limit samples (0: no limit),
// showing one reading per interval of audio.
func (m *meter) run(ctx context.Context, src audio.Source, limit int64) error {
	per := int(meterInterval * audio.SampleRate / time.Second)
	buf := make([]int16, per)
	var read int64
	for limit == 0 || read < limit {
		want := buf
		if limit > 0 {
			want = buf[:min(int64(len(buf)), limit-read)]
		}
		n, err := readFull(ctx, src, want)
		if n > 0 {
			read += int64(n)
			res := m.chain.Process(ctx, want[:n], "")
			m.det.Feed(res.PCM)
			m.show(time.Duration(read)*time.Second/audio.SampleRate, res.PCM)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readFull fills buf unless the source ends or fails first.
func readFull(ctx context.Context, src audio.Source, buf []int16) (int, error) {
	got := 0
	for got < len(buf) {
		n, err := src.Read(ctx, buf[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

func (m *meter) show(at time.Duration, pcm []int16) {
	level, peakDB := audio.LevelDBFS(pcm), audio.PeakDBFS(pcm)
	const width = 40 // one column per 2 dB from -80 dBFS
	bars := 0
	if !math.IsInf(level, -1) {
		bars = max(0, min(width, int((level+80)/2)))
	}
	state := "      "
	if m.det.InSpeech() {
		state = "speech"
	}
	line := fmt.Sprintf("%7.1fs %6s dBFS  peak %6s  floor %6.1f  %s |%-*s|",
		at.Seconds(), dbString(level), dbString(peakDB), m.det.Floor(), state, width, strings.Repeat("#", bars))
	if m.terminal {
		fmt.Fprintf(m.w, "\r%s", line)
		return
	}
	fmt.Fprintln(m.w, line)
}

func (m *meter) finish() error {
	if m.terminal {
		_, err := fmt.Fprintln(m.w)
		return err
	}
	return nil
}

func dbString(db float64) string {
	if math.IsInf(db, -1) {
		return "-inf"
	}
	return fmt.Sprintf("%.1f", db)
}
