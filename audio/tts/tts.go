// Package tts speaks text offline through the espeak-ng program. espeak-ng
// is GPL-3.0, so it runs as a separate process (`espeak-ng --stdout`, text
// on its standard input, WAV on its standard output) and is never linked
// into jibod; the WAV is parsed, and played on an audio.Sink, which
// resamples it to the speaker's rate.
//
// Voice is a device.Voice (and so a jcp.Voice): cancelling Say's context
// kills the synthesis and stops the sink, which is how a barge-in or a stop
// cuts the robot off mid-sentence.
package tts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/internal/ascii"
)

// DefaultProgram is the engine run when Config.Program is empty.
const DefaultProgram = "espeak-ng"

// SpeakerName is the device name the voice reports its events under, the
// same as the simulated speaker's, so the rest of the robot (the listener,
// the console) sees one speaker whichever voice is in use.
const SpeakerName = "speaker"

// Limits.
const (
	// DefaultTimeout bounds one synthesis.
	DefaultTimeout = 10 * time.Second
	// MaxTimeout bounds the configurable timeout.
	MaxTimeout = time.Minute
	// maxStderr bounds what is kept of the program's error output.
	maxStderr = 4 << 10
	// MinWPM and MaxWPM bound the speaking rate espeak-ng is asked for.
	MinWPM, MaxWPM = 80, 500
)

// ErrNoEngine marks a missing espeak-ng program.
var ErrNoEngine = errors.New("espeak-ng not found")

// voiceNameRest, after a letter or digit, is what a voice name may look
// like ("en-us", "en+f3", "mb-en1"): `^[A-Za-z0-9][A-Za-z0-9_+\-/]{0,63}$`.
var voiceNameRest = ascii.NewSet("A-Za-z0-9_+/-")

// Config configures a Voice.
type Config struct {
	// Program is the espeak-ng program, a name looked up on PATH or a path;
	// empty means DefaultProgram.
	Program string
	// Voice is espeak-ng's -v (e.g. "en-us"); empty is its default.
	Voice string
	// WPM is the speaking rate (MinWPM..MaxWPM); 0 is espeak-ng's default.
	WPM int
	// Pitch is espeak-ng's -p (1..99); 0 is its default (50).
	Pitch int
	// Sink is where the speech is played. Required.
	Sink audio.Sink
	// Timeout bounds one synthesis (default DefaultTimeout).
	Timeout time.Duration
	// Observer, if set, receives "say", "done" and "interrupted" events as
	// the speaker device.
	Observer device.Observer
	// Logger receives debug logs; nil means slog.Default().
	Logger *slog.Logger
}

// Voice speaks through espeak-ng, one utterance at a time.
type Voice struct {
	cfg  Config
	path string
	args []string
	log  *slog.Logger
	turn chan struct{}
}

var _ device.Voice = (*Voice)(nil)

// New checks the configuration and finds the program.
func New(cfg Config) (*Voice, error) {
	if cfg.Sink == nil {
		return nil, errors.New("tts: no sink to play on")
	}
	if cfg.Program == "" {
		cfg.Program = DefaultProgram
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.Timeout < 0 || cfg.Timeout > MaxTimeout:
		return nil, fmt.Errorf("tts: timeout %v outside 0..%v", cfg.Timeout, MaxTimeout)
	case cfg.WPM != 0 && (cfg.WPM < MinWPM || cfg.WPM > MaxWPM):
		return nil, fmt.Errorf("tts: rate %d words per minute outside %d..%d", cfg.WPM, MinWPM, MaxWPM)
	case cfg.Pitch < 0 || cfg.Pitch > 99:
		return nil, fmt.Errorf("tts: pitch %d outside 1..99", cfg.Pitch)
	case cfg.Voice != "" && !ascii.Name(cfg.Voice, ascii.Alnum, voiceNameRest, 64):
		return nil, fmt.Errorf("tts: voice name %q is not a voice name", cfg.Voice)
	}
	path, err := exec.LookPath(cfg.Program)
	if err != nil {
		return nil, fmt.Errorf("tts: %w: %v (install the espeak-ng package, or give the program's path)", ErrNoEngine, err)
	}
	args := []string{"--stdout", "--stdin", "-b", "1"}
	if cfg.Voice != "" {
		args = append(args, "-v", cfg.Voice)
	}
	if cfg.WPM != 0 {
		args = append(args, "-s", strconv.Itoa(cfg.WPM))
	}
	if cfg.Pitch != 0 {
		args = append(args, "-p", strconv.Itoa(cfg.Pitch))
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Voice{cfg: cfg, path: path, args: args, log: log.With("component", "tts"), turn: make(chan struct{}, 1)}, nil
}

// Program is the path of the program the voice runs.
func (v *Voice) Program() string { return v.path }

// Say speaks text and returns once it has been played. Text over
// device.MaxSayBytes or not valid UTF-8 is refused; blank text does
// nothing. When ctx ends part-way it returns a *device.InterruptedError
// wrapping ctx.Err(), naming about how much had been said.
func (v *Voice) Say(ctx context.Context, text string) error {
	clean, err := cleanText(text)
	if err != nil {
		return err
	}
	if clean == "" {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tts: say: %w", err)
	}
	select {
	case v.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("tts: wait for the speaker: %w", ctx.Err())
	}
	defer func() { <-v.turn }()

	v.emit("say", map[string]any{"text": text})
	pcm, rate, err := v.Synthesize(ctx, clean)
	if err != nil {
		if ctx.Err() != nil {
			return v.interrupted(text, "", ctx.Err())
		}
		v.emit("interrupted", map[string]any{"text": text, "spoken": ""})
		return err
	}
	start := time.Now()
	if err := v.cfg.Sink.Write(ctx, pcm, rate); err != nil {
		if ctx.Err() != nil {
			total := time.Duration(len(pcm)) * time.Second / time.Duration(rate)
			return v.interrupted(text, spokenPart(text, time.Since(start), total), ctx.Err())
		}
		v.emit("interrupted", map[string]any{"text": text, "spoken": ""})
		return fmt.Errorf("tts: playing: %w", err)
	}
	v.emit("done", map[string]any{"text": text})
	return nil
}

// Synthesize runs the program on text and returns its speech: mono PCM and
// its rate. It does not play it.
func (v *Voice) Synthesize(ctx context.Context, text string) ([]int16, int, error) {
	clean, err := cleanText(text)
	if err != nil {
		return nil, 0, err
	}
	sctx, cancel := context.WithTimeout(ctx, v.cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(sctx, v.path, v.args...)
	cmd.Stdin = strings.NewReader(clean)
	var out bytes.Buffer
	stderr := &capped{max: maxStderr}
	cmd.Stdout = &capped{w: &out, max: audio.MaxWAVBytes + 64<<10}
	cmd.Stderr = stderr
	// After the kill, do not wait long for pipes a grandchild might hold.
	cmd.WaitDelay = time.Second
	began := time.Now()
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, 0, fmt.Errorf("tts: synthesis stopped: %w", ctx.Err())
	case sctx.Err() != nil:
		return nil, 0, fmt.Errorf("tts: %s took longer than %v; killed", v.cfg.Program, v.cfg.Timeout)
	case err != nil:
		return nil, 0, fmt.Errorf("tts: %s failed: %w%s", v.cfg.Program, err, stderr.note())
	}
	clip, err := audio.DecodeWAVStream(&out)
	if err != nil {
		return nil, 0, fmt.Errorf("tts: reading %s's output: %w%s", v.cfg.Program, err, stderr.note())
	}
	pcm := clip.Samples
	if ch := clip.Format.Channels; ch > 1 {
		mono := make([]int16, len(pcm)/ch)
		for i := range mono {
			sum := 0
			for j := range ch {
				sum += int(pcm[i*ch+j])
			}
			mono[i] = int16(sum / ch)
		}
		pcm = mono
	}
	v.log.Debug("synthesised", "chars", len(clean), "samples", len(pcm), "rate", clip.Format.SampleRate, "took", time.Since(began))
	return pcm, clip.Format.SampleRate, nil
}

func (v *Voice) interrupted(text, spoken string, cause error) error {
	v.emit("interrupted", map[string]any{"text": text, "spoken": spoken})
	return &device.InterruptedError{Text: text, Spoken: spoken, Err: cause}
}

func (v *Voice) emit(kind string, values map[string]any) {
	if v.cfg.Observer != nil {
		v.cfg.Observer(device.Event{Time: time.Now(), Device: SpeakerName, Kind: kind, Values: values})
	}
}

// cleanText bounds and checks text, and turns control characters into
// spaces (a newline would otherwise end a clause in the middle of a line).
func cleanText(text string) (string, error) {
	if len(text) > device.MaxSayBytes {
		return "", fmt.Errorf("tts: text is %d bytes, limit %d", len(text), device.MaxSayBytes)
	}
	if !utf8.ValidString(text) {
		return "", errors.New("tts: text is not valid UTF-8")
	}
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text)), nil
}

// spokenPart estimates the words of text said in played of total.
func spokenPart(text string, played, total time.Duration) string {
	words := strings.Fields(text)
	if total <= 0 || played <= 0 {
		return ""
	}
	n := min(int(float64(len(words))*float64(played)/float64(total)), len(words))
	return strings.Join(words[:n], " ")
}

// capped keeps at most max bytes, failing the write beyond (which makes
// the program fail with a broken pipe rather than fill memory).
type capped struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
	n   int
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n+len(p) > c.max {
		return 0, fmt.Errorf("output over %d bytes", c.max)
	}
	c.n += len(p)
	if c.w != nil {
		return c.w.Write(p)
	}
	return c.buf.Write(p)
}

// note is the captured error output as a suffix for an error message.
func (c *capped) note() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.TrimSpace(c.buf.String())
	if s == "" {
		return ""
	}
	return ": " + s
}
