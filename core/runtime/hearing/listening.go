package hearing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/tts"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/audio/wake"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// RecognizerFunc builds the recogniser for a robot (NewRecognizer); it
// returns the recogniser and a function that releases it.
type RecognizerFunc func(ctx context.Context, p Parts, o Options) (audio.Recognizer, func() error, error)

// FlagError is a bad hearing or voice setting, a usage error of the
// command line.
type FlagError string

func (e FlagError) Error() string { return string(e) }

// Ways to find the wake phrase (--wake).
const (
	// WakeDetector is the wake word detector (audio/wake).
	WakeDetector = "detector"
	// WakeGrammar is the recogniser's grammar (sphinx.WakeGrammar).
	WakeGrammar = "grammar"
)

// TTS engines for --tts.
const (
	TTSSim    = "sim"
	TTSEspeak = "espeak"
)

// Config is the hearing and the voice of a run (jibod run's audio flags
// and the config file's audio part).
type Config struct {
	Audio         string
	Realtime      bool
	CommandWindow time.Duration
	GainDB        float64
	WakeButton    string
	WakeButtonSet bool // --wake-button given, maybe empty for none
	Silence       time.Duration
	MaxSpeech     time.Duration
	EchoMargin    float64
	Speech        Speech
	Wake          string  // WakeDetector or WakeGrammar
	WakeThreshold float64 // the detector's; 0 = the model's
	// Sphinx are the recogniser's settings (the typed config).
	Sphinx config.Sphinx
}

// Speech chooses the robot's voice and where its sound is recorded.
type Speech struct {
	TTS        string // TTSSim (text, the board's speaker) or TTSEspeak
	Voice      string // espeak-ng -v
	WPM        int    // espeak-ng -s; 0 = its default
	SpeakerWAV string // record what the speaker plays to this WAV file
	Program    string // the espeak-ng program; "" = found on PATH
	// Speaker is where the board's sound output plays: "" or "board" for
	// the board's own, "portaudio[:DEVICE]" for a PortAudio output device.
	Speaker string
}

// Speakers for --speaker.
const (
	SpeakerBoard     = "board"
	SpeakerPortaudio = "portaudio"
)

// Check validates what the typed configuration (config.Run's Validate,
// which the flags go through) does not hold: the wake word settings, and
// which sources go with which text input (console, stdin, none or shell).
// It picks the PortAudio speaker for a PortAudio microphone. Its errors
// are FlagErrors.
func (f *Config) Check(input string) error {
	if f.Audio == "" {
		return nil
	}
	name, _, err := audio.ParseSpec(f.Audio)
	if err != nil {
		return FlagError("--audio: " + err.Error())
	}
	if name == SpeakerPortaudio && f.Speech.Speaker == "" {
		// A robot that hears through the sound card speaks through it.
		f.Speech.Speaker = SpeakerPortaudio
	}
	if name == audio.BackendStdin && input != "none" {
		return FlagError("--audio stdin reads standard input: use it with --input none")
	}
	if f.Realtime && name != audio.BackendFile {
		return FlagError("--audio-realtime applies to file: sources only")
	}
	if f.Wake != WakeDetector && f.Wake != WakeGrammar {
		return FlagError(fmt.Sprintf("--wake %q: want detector or grammar", f.Wake))
	}
	if f.WakeThreshold < 0 || f.WakeThreshold >= 1 {
		return FlagError(fmt.Sprintf("--wake-threshold %v: want 0 < t < 1", f.WakeThreshold))
	}
	return nil
}

// Sound is what the voice options opened for the body
// (runtime.BodyOptions' fields of the same names).
type Sound struct {
	WrapAudioOut func(device.PCMSink) device.PCMSink
	Voice        func(out device.PCMSink, observe device.Observer) (device.Voice, error)
}

// Output is what Speech opened for the body; Close releases it after
// the body is closed.
type Output struct {
	wav     *audio.WAVSink
	speaker audio.Sink // the PortAudio output, when --speaker chose one
	// Meter measures what the speaker plays, for the listener's echo
	// gate (Start); nil without a real speaker.
	Meter *audio.PlaybackMeter
}

// Open makes the robot's sound for the chosen voice and recording. It
// returns what must be closed after the body.
func (c Speech) Open(log *slog.Logger) (Sound, *Output, error) {
	var o Sound
	sp := &Output{}
	var wrap []func(device.PCMSink) device.PCMSink
	if c.Speaker != "" && c.Speaker != SpeakerBoard {
		_, arg, err := audio.ParseSpec(c.Speaker)
		if err != nil {
			return o, nil, fmt.Errorf("--speaker: %w", err)
		}
		// Opening only checks that the device is there: the sink opens it
		// for each piece of sound it plays.
		sink, pcmOut, err := openSpeaker(context.Background(), arg, log)
		if err != nil {
			return o, nil, fmt.Errorf("--speaker %s: %w", c.Speaker, err)
		}
		sp.speaker = sink
		sp.Meter = audio.NewPlaybackMeter(nil)
		wrap = append(wrap, func(out device.PCMSink) device.PCMSink {
			po, err := pcmOut(out.Format())
			if err != nil {
				log.Error("speaker: keeping the board's sound output", "err", err)
				return out
			}
			return audio.NewMeteredPCM(po, sp.Meter)
		})
	}
	if c.SpeakerWAV != "" {
		wav, err := audio.CreateWAVSink(c.SpeakerWAV, audio.SinkOptions{})
		if err != nil {
			return o, nil, errors.Join(fmt.Errorf("--speaker-wav: %w", err), sp.Close())
		}
		sp.wav = wav
		wrap = append(wrap, func(out device.PCMSink) device.PCMSink { return audio.NewTeePCM(out, wav) })
	}
	if len(wrap) > 0 {
		o.WrapAudioOut = func(out device.PCMSink) device.PCMSink {
			for _, w := range wrap {
				out = w(out)
			}
			return out
		}
	}
	if c.TTS == TTSEspeak {
		o.Voice = func(out device.PCMSink, observe device.Observer) (device.Voice, error) {
			if out == nil {
				return nil, errors.New("--tts espeak: the board has no sound output (devices.audioOut) to speak on")
			}
			sink, err := audio.NewDeviceSink(out)
			if err != nil {
				return nil, fmt.Errorf("--tts espeak: %w", err)
			}
			v, err := tts.New(tts.Config{Program: c.Program, Voice: c.Voice, WPM: c.WPM, Sink: sink, Observer: observe, Logger: log})
			if err != nil {
				return nil, fmt.Errorf("--tts espeak: %w", err)
			}
			return v, nil
		}
	}
	return o, sp, nil
}

// Close finishes the speaker recording and releases the speaker.
func (s *Output) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	if s.wav != nil {
		errs = append(errs, s.wav.Close())
	}
	if s.speaker != nil {
		errs = append(errs, s.speaker.Close())
	}
	return errors.Join(errs...)
}

// Listening is the running listener; Stop ends it and waits.
type Listening struct {
	lis    *listen.Listener
	src    audio.Source
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	free   func() error
	once   sync.Once
	// stopErr is what the first Stop found.
	stopErr error
}

// Start opens the source and the recogniser (newASR: NewRecognizer, or
// a test's) and starts the listener on p's bus; meter is the speaker's
// (Output.Meter), nil without one. It returns nil when f has no audio.
func Start(ctx context.Context, p Parts, f *Config, lang string, newASR RecognizerFunc,
	backends map[string]audio.Backend, meter *audio.PlaybackMeter, log *slog.Logger) (*Listening, error) {
	if f.Audio == "" {
		return nil, nil
	}
	name, _, err := audio.ParseSpec(f.Audio)
	if err != nil {
		return nil, err
	}
	// The recogniser first: without one there is no point opening a device.
	asr, free, err := newASR(ctx, p, Options{Lang: lang, Log: log, WakeInGrammar: f.Wake == WakeGrammar, Sphinx: f.Sphinx})
	if err != nil {
		return nil, fmt.Errorf("--audio %s: %w", f.Audio, err)
	}
	op := &audio.Opener{Backends: backends, Pace: f.Realtime, Logger: log}
	src, err := op.Open(ctx, f.Audio)
	if err != nil {
		return nil, errors.Join(err, free())
	}
	// A file read faster than real time waits for each answer, as the
	// speaker would have had to.
	sync := name == audio.BackendFile && !f.Realtime
	h, err := ListenOn(ctx, p, src, asr, free, f, lang, sync, meter, log)
	if err != nil {
		return nil, errors.Join(err, src.Close(), free())
	}
	log.Info("listening", "audio", f.Audio)
	return h, nil
}

// ListenOn starts a listener on src; the Listening owns src and free
// from then on. sync waits for each answer (a file read faster than real
// time).
func ListenOn(ctx context.Context, p Parts, src audio.Source, asr audio.Recognizer, free func() error,
	f *Config, lang string, sync bool, meter *audio.PlaybackMeter, log *slog.Logger) (*Listening, error) {
	ts := []transform.Transformer{&transform.DCBlock{}}
	if f.GainDB != 0 {
		g, err := transform.NewGain(f.GainDB)
		if err != nil {
			return nil, err
		}
		ts = append(ts, g)
	}
	chain, err := audioChain(ts, log)
	if err != nil {
		return nil, err
	}
	buttons, err := WakeButtons(p.Buttons, f)
	if err != nil {
		return nil, err
	}
	cfg := listen.Config{Source: src, Recognizer: asr, Chain: chain,
		VAD:  vad.Config{SilenceTimeout: f.Silence, MaxSpeech: f.MaxSpeech},
		Lang: lang, CommandWindow: f.CommandWindow, Sync: sync, Logger: log}
	if p.Exec != nil {
		cfg.Voice = executorVoice{p.Exec}
	}
	if f.Wake == WakeDetector {
		d, err := wake.New(wake.Config{Threshold: f.WakeThreshold})
		if err != nil {
			return nil, err
		}
		cfg.Wake = d
	}
	if meter != nil {
		// A real speaker: its sound comes back through the microphone.
		cfg.Playback, cfg.EchoMarginDB = meter, f.EchoMargin
	}
	bl, err := newBusListener(p.Bus, cfg, buttons)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	h := &Listening{lis: bl.lis, src: src, cancel: cancel, done: make(chan struct{}), free: free}
	go func() { // owned by h: stop cancels it and waits
		defer close(h.done)
		h.err = bl.Run(lctx)
	}()
	return h, nil
}

// WakeButtons picks the buttons that wake the robot: --wake-button's,
// which must exist, or else one named "wake" if there is one.
func WakeButtons(have []device.Button, f *Config) ([]string, error) {
	var names []string
	for _, b := range have {
		names = append(names, b.Name())
	}
	switch {
	case f.WakeButtonSet && f.WakeButton == "":
		return nil, nil
	case f.WakeButtonSet:
		if !slices.Contains(names, f.WakeButton) {
			return nil, FlagError(fmt.Sprintf("--wake-button %q: the board has no such button (it has: %s)", f.WakeButton, strings.Join(names, ", ")))
		}
		return []string{f.WakeButton}, nil
	case slices.Contains(names, "wake"):
		return []string{"wake"}, nil
	}
	return nil, nil
}

// Wait waits for a finite source to end (or ctx), returning the
// listener's error.
func (h *Listening) Wait(ctx context.Context) error {
	if h == nil { // no audio: a service robot with only the shell runs until stopped
		<-ctx.Done()
		return nil
	}
	select {
	case <-h.done:
		if errors.Is(h.err, context.Canceled) {
			return nil
		}
		return h.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Listener is the running listener (the shell's command window); nil
// without one (no audio).
func (h *Listening) Listener() *listen.Listener {
	if h == nil {
		return nil
	}
	return h.lis
}

// Stop ends the listener, waits for it and releases the source and the
// recogniser. Later calls return what the first found.
func (h *Listening) Stop() error {
	if h == nil {
		return nil
	}
	h.once.Do(func() {
		h.cancel()
		<-h.done
		err := errors.Join(h.src.Close(), h.free())
		if h.err != nil && !errors.Is(h.err, context.Canceled) {
			err = errors.Join(h.err, err)
		}
		h.stopErr = err
	})
	return h.stopErr
}

// HeardLine is what the console shows for a recognition or an audio error.
func HeardLine(m bus.Message) string {
	if m.Type == listen.TopicError {
		return "(audio: " + m.DataString("error") + ")"
	}
	hyps, _ := m.Data["hypotheses"].([]any)
	if len(hyps) == 0 {
		return "(heard speech, recognised nothing)"
	}
	best, _ := hyps[0].(map[string]any)
	text, _ := best["text"].(string)
	return fmt.Sprintf("(heard: %q)", text)
}

// executorVoice says the listener's lines on the body, as a skill's say
// action would be.
type executorVoice struct{ ex *jcp.Executor }

func (v executorVoice) Say(ctx context.Context, text string, speaking func(string)) error {
	c, err := jcp.Check(jcp.NewAction(jcp.Say(text)))
	if err != nil {
		return err
	}
	_, err = v.ex.RunChecked(ctx, c, func(ev jcp.Event) {
		if ev.Kind == jcp.EventSpeaking {
			speaking(ev.Text)
		}
	})
	return err
}
