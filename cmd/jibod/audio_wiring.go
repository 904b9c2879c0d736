package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/tts"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/audio/wake"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// recognizerFunc builds the recogniser for a robot (hearing.NewRecognizer);
// it returns the recogniser and a function that releases it.
type recognizerFunc func(ctx context.Context, r *runtime.Robot, o hearing.Options) (audio.Recognizer, func() error, error)

// wakeGrammar names the recogniser's grammar as the way to find the wake
// phrase (sphinx.WakeGrammar).
const wakeGrammar = "grammar"

// TTS engines for --tts.
const (
	ttsSim    = "sim"
	ttsEspeak = "espeak"
)

// audioFlags are run's flags for hearing and speaking.
type audioFlags struct {
	Audio         string
	Realtime      bool
	CommandWindow time.Duration
	GainDB        float64
	WakeButton    string
	wakeButtonSet bool
	Silence       time.Duration
	MaxSpeech     time.Duration
	EchoMargin    float64
	Speech        speechConfig
	Wake          string  // wakeDetector or sphinx.WakeGrammar
	WakeThreshold float64 // the detector's; 0 = the model's
	// Sphinx are the recogniser's settings (run's typed config).
	Sphinx config.Sphinx
}

// speechConfig chooses the robot's voice and where its sound is recorded.
type speechConfig struct {
	TTS        string // ttsSim (text, the board's speaker) or ttsEspeak
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
	speakerBoard     = "board"
	speakerPortaudio = "portaudio"
)

// addAudioFlags declares the audio flags on fs.
func addAudioFlags(fs *flag.FlagSet) *audioFlags {
	f := &audioFlags{}
	fs.StringVar(&f.Audio, "audio", "", "hear speech from: file:IN.wav, stdin (raw s16le 16 kHz mono), null, or a device backend such as portaudio[:DEVICE] (default: none, text only)")
	fs.BoolVar(&f.Realtime, "audio-realtime", false, "play a file: source in real time, as a microphone would, instead of as fast as it is read")
	fs.DurationVar(&f.CommandWindow, "command-window", listen.DefaultCommandWindow, "how long the robot listens for a command after \"hey jibo\", a wake button or a shell request")
	fs.Float64Var(&f.GainDB, "audio-gain", 0, "gain in dB applied to the input ahead of detection (-40..40)")
	fs.Func("wake-button", "the board button that makes the robot listen (default: a button named \"wake\", if the board has one)", func(s string) error {
		f.WakeButton, f.wakeButtonSet = s, true
		return nil
	})
	fs.DurationVar(&f.Silence, "vad-silence", vad.Defaults.SilenceTimeout, "silence that ends an utterance (after a 200 ms hangover)")
	fs.DurationVar(&f.MaxSpeech, "vad-max-speech", vad.Defaults.MaxSpeech, "longest utterance; longer speech is cut")
	fs.StringVar(&f.Wake, "wake", wakeDetector, "how the wake phrase is found: detector (the wake word detector: the phrase alone or followed by anything; docs/hearing.md) or grammar (the start of the sentence recognised)")
	fs.Float64Var(&f.WakeThreshold, "wake-threshold", 0, "the wake word detector's threshold, in (0, 1) (default: the model's own)")
	fs.Float64Var(&f.EchoMargin, "echo-margin", 0, "with a PortAudio speaker: while the robot speaks, speech must be this many dB louder than what it plays to be heard (-40..40)")
	fs.StringVar(&f.Speech.TTS, "tts", ttsSim, "the robot's voice: sim (text on the board's speaker) or espeak (espeak-ng, played on the board's sound output)")
	fs.StringVar(&f.Speech.Voice, "tts-voice", "", "espeak-ng voice, e.g. en-us (default: espeak-ng's)")
	fs.IntVar(&f.Speech.WPM, "tts-wpm", 0, "espeak-ng speaking rate in words per minute (default: espeak-ng's)")
	fs.StringVar(&f.Speech.SpeakerWAV, "speaker-wav", "", "write everything the board's sound output plays to this WAV file")
	fs.StringVar(&f.Speech.Speaker, "speaker", "", "where the board's sound output plays: board, or portaudio[:DEVICE] (default: portaudio's default output with --audio portaudio, else board)")
	return f
}

// check validates the flags against each other and the text input.
func (f *audioFlags) check(input string) error {
	if f.Speech.TTS != ttsSim && f.Speech.TTS != ttsEspeak {
		return usageError{fmt.Sprintf("--tts %q: want sim or espeak", f.Speech.TTS)}
	}
	if sp := f.Speech.Speaker; sp != "" && sp != speakerBoard {
		if name, _, err := audio.ParseSpec(sp); err != nil || name != speakerPortaudio {
			return usageError{fmt.Sprintf("--speaker %q: want board or portaudio[:DEVICE]", sp)}
		}
	}
	if f.Audio == "" {
		return nil
	}
	name, _, err := audio.ParseSpec(f.Audio)
	if err != nil {
		return usageError{"--audio: " + err.Error()}
	}
	if name == speakerPortaudio && f.Speech.Speaker == "" {
		// A robot that hears through the sound card speaks through it.
		f.Speech.Speaker = speakerPortaudio
	}
	if name == audio.BackendStdin && input != "none" {
		return usageError{"--audio stdin reads standard input: use it with --input none"}
	}
	if f.Realtime && name != audio.BackendFile {
		return usageError{"--audio-realtime applies to file: sources only"}
	}
	if f.CommandWindow < time.Second || f.CommandWindow > listen.MaxCommandWindow {
		return usageError{fmt.Sprintf("--command-window %v: want 1s..%v", f.CommandWindow, listen.MaxCommandWindow)}
	}
	if err := (vad.Config{SilenceTimeout: f.Silence, MaxSpeech: f.MaxSpeech}).Validate(); err != nil {
		return usageError{err.Error()}
	}
	if f.Wake != wakeDetector && f.Wake != wakeGrammar {
		return usageError{fmt.Sprintf("--wake %q: want detector or grammar", f.Wake)}
	}
	if f.WakeThreshold < 0 || f.WakeThreshold >= 1 {
		return usageError{fmt.Sprintf("--wake-threshold %v: want 0 < t < 1", f.WakeThreshold)}
	}
	if f.EchoMargin < -listen.MaxEchoMarginDB || f.EchoMargin > listen.MaxEchoMarginDB {
		return usageError{fmt.Sprintf("--echo-margin %v: want -%d..%d dB", f.EchoMargin, listen.MaxEchoMarginDB, listen.MaxEchoMarginDB)}
	}
	if _, err := transform.NewGain(f.GainDB); err != nil {
		return usageError{"--audio-gain: " + err.Error()}
	}
	return nil
}

// speech is what speechConfig opened for the body; Close releases it
// after the body is closed.
type speech struct {
	wav     *audio.WAVSink
	speaker audio.Sink // the PortAudio output, when --speaker chose one
	// meter measures what the speaker plays, for the listener's echo
	// gate; nil without a real speaker.
	meter *audio.PlaybackMeter
}

// apply sets the body options for the chosen voice and recording. It
// returns what must be closed after the body.
func (c speechConfig) apply(o *bodyOptions, log *slog.Logger) (*speech, error) {
	sp := &speech{}
	var wrap []func(device.PCMSink) device.PCMSink
	if c.Speaker != "" && c.Speaker != speakerBoard {
		_, arg, err := audio.ParseSpec(c.Speaker)
		if err != nil {
			return nil, fmt.Errorf("--speaker: %w", err)
		}
		// Opening only checks that the device is there: the sink opens it
		// for each piece of sound it plays.
		sink, pcmOut, err := openSpeaker(context.Background(), arg, log)
		if err != nil {
			return nil, fmt.Errorf("--speaker %s: %w", c.Speaker, err)
		}
		sp.speaker = sink
		sp.meter = audio.NewPlaybackMeter(nil)
		wrap = append(wrap, func(out device.PCMSink) device.PCMSink {
			po, err := pcmOut(out.Format())
			if err != nil {
				log.Error("speaker: keeping the board's sound output", "err", err)
				return out
			}
			return audio.NewMeteredPCM(po, sp.meter)
		})
	}
	if c.SpeakerWAV != "" {
		wav, err := audio.CreateWAVSink(c.SpeakerWAV, audio.SinkOptions{})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("--speaker-wav: %w", err), sp.Close())
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
	if c.TTS == ttsEspeak {
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
	return sp, nil
}

// Close finishes the speaker recording and releases the speaker.
func (s *speech) Close() error {
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

// listening is the running listener; stop ends it and waits.
type listening struct {
	lis    *listen.Listener
	src    audio.Source
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	free   func() error
}

// startListening opens the source and the recogniser and starts the
// listener on r's bus. It returns nil when no --audio was given.
func startListening(ctx context.Context, r *robot, f *audioFlags, lang string, newASR recognizerFunc,
	backends map[string]audio.Backend, log *slog.Logger) (*listening, error) {
	if f.Audio == "" {
		return nil, nil
	}
	name, _, err := audio.ParseSpec(f.Audio)
	if err != nil {
		return nil, err
	}
	// The recogniser first: without one there is no point opening a device.
	asr, free, err := newASR(ctx, r.Robot, hearing.Options{Lang: lang, Log: log, WakeInGrammar: f.Wake == wakeGrammar, Sphinx: f.Sphinx})
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
	h, err := listenOn(ctx, r, src, asr, free, f, lang, sync, log)
	if err != nil {
		return nil, errors.Join(err, src.Close(), free())
	}
	log.Info("listening", "audio", f.Audio)
	return h, nil
}

// listenOn starts a listener on src; the hearing owns src and free from
// then on.
func listenOn(ctx context.Context, r *robot, src audio.Source, asr audio.Recognizer, free func() error,
	f *audioFlags, lang string, sync bool, log *slog.Logger) (*listening, error) {
	ts := []transform.Transformer{&transform.DCBlock{}}
	if f.GainDB != 0 {
		g, err := transform.NewGain(f.GainDB)
		if err != nil {
			return nil, err
		}
		ts = append(ts, g)
	}
	chain, err := transform.New(transform.Config{Transformers: ts, Logger: log})
	if err != nil {
		return nil, err
	}
	buttons, err := wakeButtons(r.body.Buttons, f)
	if err != nil {
		return nil, err
	}
	cfg := listen.Config{Bus: r.bus, Source: src, Recognizer: asr, Chain: chain,
		VAD:  vad.Config{SilenceTimeout: f.Silence, MaxSpeech: f.MaxSpeech},
		Lang: lang, CommandWindow: f.CommandWindow, WakeButtons: buttons, Sync: sync, Logger: log}
	if r.exec != nil {
		cfg.Voice = executorVoice{r.exec}
	}
	if f.Wake == wakeDetector {
		d, err := wake.New(wake.Config{Threshold: f.WakeThreshold})
		if err != nil {
			return nil, err
		}
		cfg.Wake = d
	}
	if r.speech != nil && r.speech.meter != nil {
		// A real speaker: its sound comes back through the microphone.
		cfg.Playback, cfg.EchoMarginDB = r.speech.meter, f.EchoMargin
	}
	lis, err := listen.New(cfg)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	h := &listening{lis: lis, src: src, cancel: cancel, done: make(chan struct{}), free: free}
	go func() { // owned by h: stop cancels it and waits
		defer close(h.done)
		h.err = lis.Run(lctx)
	}()
	return h, nil
}

// wakeButtons picks the buttons that wake the robot: --wake-button's, which
// must exist, or else one named "wake" if there is one.
func wakeButtons(have []device.Button, f *audioFlags) ([]string, error) {
	var names []string
	for _, b := range have {
		names = append(names, b.Name())
	}
	switch {
	case f.wakeButtonSet && f.WakeButton == "":
		return nil, nil
	case f.wakeButtonSet:
		if !slices.Contains(names, f.WakeButton) {
			return nil, usageError{fmt.Sprintf("--wake-button %q: the board has no such button (it has: %s)", f.WakeButton, strings.Join(names, ", "))}
		}
		return []string{f.WakeButton}, nil
	case slices.Contains(names, "wake"):
		return []string{"wake"}, nil
	}
	return nil, nil
}

// wait waits for a finite source to end (or ctx), returning the
// listener's error.
func (h *listening) wait(ctx context.Context) error {
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

// stop ends the listener, waits for it and releases the source and the
// recogniser.
func (h *listening) stop() error {
	if h == nil {
		return nil
	}
	h.cancel()
	<-h.done
	err := errors.Join(h.src.Close(), h.free())
	if h.err != nil && !errors.Is(h.err, context.Canceled) {
		err = errors.Join(h.err, err)
	}
	return err
}

// heardLine is what the console shows for a recognition or an audio error.
func heardLine(m bus.Message) string {
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
