// Package listen is the robot's ear: it reads a Source, runs the audio
// transformer chain, finds utterances with the voice activity detector,
// recognises them and decides which are commands.
//
// With a wake word detector (Config.Wake, audio/wake), the wake phrase is
// spotted in the stream itself, whatever is said after it: "hey jibo"
// opens the command window the moment it is said, and what follows it in
// the same utterance is recognised as the command, from the audio after
// the phrase. Speech outside the window is not recognised at all. Without
// one, the recogniser finds the phrase: a command is an utterance whose
// recognised text starts with it ("hey jibo, what time is it": the rest
// is the command).
//
// Either way, any utterance inside the command window is a command. The
// window opens for CommandWindow after the wake phrase, a Wake (a press of
// a wake button, the shell's request), and when a skill asks a question
// (Asked), so the answer needs no wake phrase. One command closes it.
// While the robot is speaking (Speaking) only the wake phrase counts, and
// it stops the speech (barge-in: Events.Stop).
//
// The listener knows nothing of the robot's bus: it tells what it hears
// and does to Events, and is told what the robot does through its
// methods. core/runtime/hearing wires both to the bus.
//
// Times are stream times (samples read), so a file read faster than real
// time behaves exactly as it would live.
package listen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/audio/wake"
)

// The listener's events (Events.Event), by the bus topics the robot
// publishes them on, with their data.
const (
	TopicWake        = "jibo.audio.wake"         // {source: voice|button|shell}
	TopicSpeechStart = "jibo.audio.speech.start" // {}
	TopicSpeechEnd   = "jibo.audio.speech.end"   // {duration_ms, reason[, start_ms, end_ms]}
	TopicRecognized  = "jibo.audio.recognized"   // {hypotheses: [{text, confidence}], latency_ms}
	TopicError       = "jibo.audio.error"        // {error}
)

// Wake sources.
const (
	SourceVoice  = "voice"
	SourceButton = "button"
	SourceShell  = "shell"
)

// Limits.
const (
	// DefaultCommandWindow is how long the window stays open.
	DefaultCommandWindow = 8 * time.Second
	// MaxCommandWindow bounds it.
	MaxCommandWindow = 5 * time.Minute
	// MaxHypotheses bounds the n-best list taken from a recogniser.
	MaxHypotheses = 10
	// MaxTextBytes bounds one hypothesis (as a typed line is bounded).
	MaxTextBytes = 2048
	// DefaultHandleTimeout bounds waiting for a command to be Handled.
	DefaultHandleTimeout = 2 * time.Minute
	// chunkSamples is how much is read at a time: 20 ms.
	chunkSamples = vad.FrameSamples
	// queueLen bounds utterances waiting for the recogniser.
	queueLen = 8
	// minAfterWake is the least speech after a spotted wake phrase, in
	// the same utterance, that is taken for a command: less is the end
	// of the phrase itself (the detector's estimate of where it ended is
	// not exact), and the phrase was said alone.
	minAfterWake = 250 * time.Millisecond
	// spliceFade is how long the pre-roll fades out and the speech after
	// the wake phrase fades in where they are joined.
	spliceFade = 5 * time.Millisecond
	// settleMax, settleBack and settleDrop tune settle.
	settleMax  = 120 * time.Millisecond
	settleBack = 300 * time.Millisecond
	settleDrop = 12.0 // dB
	// pauseFrames is how many 10 ms frames in a row settle must find
	// quiet for a pause after the wake phrase: the closure of a stop
	// consonant ("what time") is quiet for less.
	pauseFrames = 10
	// pauseLate is how far after the detector's estimate a pause starts
	// when it is not the one after the phrase: a quiet that starts that
	// late follows speech run on from the phrase, the closure of a stop
	// in the command's first word ("what time").
	pauseLate = 40 * time.Millisecond
	// pauseHeardDB is how far the room (the pre-roll's median 10 ms
	// level) must lie under the phrase's loudest 10 ms for a pause after
	// the phrase to be heard as one (pauseHeard): settleDrop, and a few
	// dB more for the room's own rise and fall over a pause's 100 ms.
	pauseHeardDB = settleDrop + 3
	// alignBefore and alignAfter bound the audio the wake phrase is
	// aligned in (PhraseAligner), around the detector's estimate of its
	// end: the phrase is shorter than alignBefore, and the estimate is
	// off by far less than alignAfter.
	alignBefore = 1500 * time.Millisecond
	alignAfter  = 500 * time.Millisecond
	// alignMaxShift is the furthest an aligned end may lie from the
	// estimate: further, the alignment found something else.
	alignMaxShift = 80 * time.Millisecond
)

// PhraseAligner finds where the wake phrase ends in audio that starts
// with it (sphinx.Recognizer): the sample after its last word. ok is
// false when it finds no phrase there.
type PhraseAligner interface {
	AlignWake(ctx context.Context, pcm []int16) (end int, ok bool, err error)
}

// WakeDetector spots the wake phrase in the stream (wake.Detector): fed
// every sample the voice activity detector sees, it returns where the
// phrase was said.
type WakeDetector interface {
	Feed(pcm []int16) []wake.Detection
}

// Voice says a line with the robot's voice (the wiring runs a say action
// on the body), calling speaking with the words as it starts speaking
// them; it returns when the line is said.
type Voice interface {
	Say(ctx context.Context, text string, speaking func(words string)) error
}

// AskAgain is what the robot says when a command said to it was not
// understood: it asks rather than guess.
const AskAgain = "Sorry, what was that?"

// Events is where the listener tells what it hears and does; the wiring
// puts it on the robot's bus. The listener calls it from its own
// goroutines, one call at a time, in the order things happened; an error
// is logged (Command's also reported).
type Events interface {
	// Event is one of the listener's events (TopicWake, TopicSpeechStart,
	// TopicSpeechEnd, TopicRecognized, TopicError) with its data.
	Event(ctx context.Context, topic string, data map[string]any) error
	// Command hands a spoken command to the robot to be understood and
	// acted on. The listener waits (in Sync mode) for Handled with its ID.
	Command(ctx context.Context, c Command) error
	// Stop stops what the robot does: the wake phrase said over its
	// speech (barge-in).
	Stop(ctx context.Context) error
	// Speak tells the words the robot starts saying on its own (asking
	// again), in lang ("" for the session's).
	Speak(ctx context.Context, words, lang string) error
}

// Command is a spoken command.
type Command struct {
	// ID ties what the command starts to it ("audio-1", "audio-2", …), as
	// the text inputs' ids do; Handled(ID) says it has been acted on.
	ID string
	// Utterances are what the recogniser heard, best first, the wake
	// phrase left out and duplicates dropped.
	Utterances []string
	// Scores are the recogniser's confidence in [0,1] per utterance, in
	// order.
	Scores []float64
	// Open marks transcripts of the open-vocabulary pass (any words, the
	// grammar having refused the speech): the intent engines decide what
	// they mean, or nothing does and the robot asks.
	Open bool
	// Lang is the utterance's language (TRF-04 threads it through the
	// chain); "" leaves it to the session.
	Lang string
	// Transformers are the ids of the audio transformers that changed
	// the utterance (TRF-03).
	Transformers []string
}

// Config wires a listener.
type Config struct {
	// Events receives what the listener hears and does.
	Events     Events
	Source     audio.Source
	Recognizer audio.Recognizer
	// Chain is the audio transformer chain; nil runs none.
	Chain *transform.Chain
	// Wake spots the wake phrase in the stream; nil leaves it to the
	// recogniser (a recognised sentence starting with it).
	Wake WakeDetector
	// VAD tunes the detector.
	VAD vad.Config
	// Lang is each command's language (TRF-04 threads it through the
	// chain); "" leaves the language to the session.
	Lang string
	// CommandWindow is how long the window stays open (default 8 s).
	CommandWindow time.Duration
	// Sync handles each utterance completely (recognised and, if a
	// command, Handled) before reading on: for
	// files read faster than real time, where the robot's answers must
	// come before the next utterance as they would live.
	Sync bool
	// HandleTimeout bounds waiting for an utterance to be handled.
	HandleTimeout time.Duration
	// InputPrefix names commands (Command.ID; default "audio").
	InputPrefix string
	// Playback, if set, says how loud the robot's own sound output was
	// (audio.PlaybackMeter): while the robot speaks, an utterance is
	// recognised only when it is at least EchoMarginDB louder than what
	// was played meanwhile; quieter, it is taken for the robot's own voice
	// coming back through the microphone and dropped unheard. This is a
	// level gate, not an echo canceller: a person talking softly over the
	// robot is not heard, and a loud echo still gets through (then only
	// the wake phrase counts, as always while the robot speaks).
	Playback     PlaybackLevel
	EchoMarginDB float64
	// Voice, if set, asks again (AskAgain) when what followed the wake
	// phrase, or what was said in the window it opened, was not
	// understood; the window then opens again for the command.
	Voice  Voice
	Logger *slog.Logger
}

// PlaybackLevel is how loud the robot's sound output was between two
// times, in dBFS (-Inf for silence).
type PlaybackLevel interface {
	Level(from, to time.Time) float64
}

// MaxEchoMarginDB bounds Config.EchoMarginDB either way.
const MaxEchoMarginDB = 40

// Stats counts what the listener did.
type Stats struct {
	Samples        int64 // read
	Utterances     int   // found by the detector, not the background alone
	Recognized     int   // with at least one hypothesis
	Wakes          int   // from any source
	Commands       int   // sent to the robot
	BargeIns       int   // stops sent while the robot spoke
	Dropped        int   // utterances dropped: queue full, cancelled, cut off
	Echoes         int   // utterances taken for the robot's own voice
	BackgroundOnly int   // utterances of the background alone, not recognised
	Asked          int   // commands not understood, asked again
	Errors         int   // recognition and stream errors
}

// Listener turns audio into commands. Run it once.
type Listener struct {
	cfg Config
	log *slog.Logger
	det *vad.Detector

	pos    atomic.Int64 // samples read
	nextID atomic.Uint64

	mu        sync.Mutex
	win       window
	speaking  bool
	listenReq bool                     // a question was asked; open the window once it is spoken
	pending   map[string]chan struct{} // input id → closed at its handled
	stats     Stats
}

// window is the command window, in stream samples.
type window struct {
	open     bool
	from, to int64
	// question marks a window a skill's question opened: what is said in
	// it is recognised as an answer first (audio.AnswerRecognizer).
	question bool
	// asked marks a window the robot opened by asking again: a command
	// not understood in it is not asked about twice.
	asked bool
}

// New checks cfg and builds a listener.
func New(cfg Config) (*Listener, error) {
	switch {
	case cfg.Events == nil:
		return nil, errors.New("listener: nowhere to tell what it hears (no Events)")
	case cfg.Source == nil:
		return nil, errors.New("listener: no audio source")
	case cfg.Recognizer == nil:
		return nil, errors.New("listener: no recogniser")
	}
	if cfg.CommandWindow == 0 {
		cfg.CommandWindow = DefaultCommandWindow
	}
	if cfg.CommandWindow < time.Second || cfg.CommandWindow > MaxCommandWindow {
		return nil, fmt.Errorf("listener: command window %v outside 1s..%v", cfg.CommandWindow, MaxCommandWindow)
	}
	if cfg.HandleTimeout == 0 {
		cfg.HandleTimeout = DefaultHandleTimeout
	}
	if cfg.HandleTimeout < 0 {
		return nil, fmt.Errorf("listener: handle timeout %v is negative", cfg.HandleTimeout)
	}
	if cfg.InputPrefix == "" {
		cfg.InputPrefix = "audio"
	}
	if math.Abs(cfg.EchoMarginDB) > MaxEchoMarginDB || math.IsNaN(cfg.EchoMarginDB) {
		return nil, fmt.Errorf("listener: echo margin %v dB outside -%d..%d", cfg.EchoMarginDB, MaxEchoMarginDB, MaxEchoMarginDB)
	}
	det, err := vad.New(cfg.VAD)
	if err != nil {
		return nil, fmt.Errorf("listener: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Listener{cfg: cfg, log: log.With("component", "listener"), det: det, pending: map[string]chan struct{}{}}, nil
}

// CommandWindow is how long the window stays open from the next wake.
func (l *Listener) CommandWindow() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg.CommandWindow
}

// SetCommandWindow changes how long the window stays open, while the
// listener runs (the diagnostics shell's listen.command_window). It takes
// effect at the next wake or question; a window already open keeps its
// end. A value outside 1s..MaxCommandWindow is refused and changes
// nothing.
func (l *Listener) SetCommandWindow(d time.Duration) error {
	if d < time.Second || d > MaxCommandWindow {
		return fmt.Errorf("listener: command window %v outside 1s..%v", d, MaxCommandWindow)
	}
	l.mu.Lock()
	l.cfg.CommandWindow = d // read under mu by wake and openLocked
	l.mu.Unlock()
	return nil
}

// Stats returns the counts so far.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Samples = l.pos.Load()
	return s
}

// job is one utterance for the worker.
type job struct {
	seg      vad.Segment
	speaking bool      // the robot spoke while it was said
	ended    time.Time // when the detector saw it end
	lang     string
	ids      []string // audio_transformer_ids (TRF-03)
	done     chan struct{}
	// spotted says the wake detector found the phrase in the utterance,
	// ending at stream position wakeEnd.
	spotted bool
	wakeEnd int64
}

// Run listens until the source ends (nil) or ctx ends (its error). A
// source that fails is reported and ends Run with the error; a live source
// (audio.Reopener) recovers on its own and only reports.
func (l *Listener) Run(ctx context.Context) error {
	if r, ok := l.cfg.Source.(*audio.Reopener); ok {
		r.SetOnError(func(err error) { l.report(ctx, err) })
	}

	jobs := make(chan job, queueLen)
	workerDone := make(chan struct{})
	go func() { // owned: ends when jobs is closed, Run waits for it
		defer close(workerDone)
		for j := range jobs {
			l.handle(ctx, j)
			if j.done != nil {
				close(j.done)
			}
		}
	}()
	readErr := l.read(ctx, jobs)
	close(jobs)
	<-workerDone
	l.awaitPending(ctx)
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

// read is the read loop: source → chain → detector → jobs.
func (l *Listener) read(ctx context.Context, jobs chan<- job) error {
	buf := make([]int16, chunkSamples)
	run := l.cfg.Chain.Compose(nil, nil)
	lang := l.cfg.Lang
	// cut is the result in which a transformer cancelled the utterance
	// being read (TRF-12); its Cancel is nil while none has.
	var cut transform.Result
	var startSpeaking bool
	// spot is the last wake phrase spotted and not yet given to an
	// utterance.
	spot := spotted{}
	// ended hands an ended utterance on with what was read around it
	// (the wake phrase spotted, a cancellation) and starts the next
	// afresh; false when the robot is closing.
	ended := func(seg vad.Segment) bool {
		j := job{seg: seg, speaking: startSpeaking || l.isSpeaking(), ended: time.Now(), lang: lang, ids: run.Changed()}
		j.spotted, j.wakeEnd = spot.in(j.seg)
		spot = spotted{}
		c := cut.Cancel
		run.Reset()
		cut = transform.Result{}
		return l.utteranceEnded(ctx, jobs, j, c)
	}
	for {
		n, err := l.cfg.Source.Read(ctx, buf)
		if n > 0 {
			l.pos.Add(int64(n))
			res := run.Process(ctx, buf[:n], l.cfg.Lang)
			if res.Cancel != nil && cut.Cancel == nil {
				cut = res
			}
			lang = res.Lang
			if l.cfg.Wake != nil {
				for _, d := range l.cfg.Wake.Feed(res.PCM) {
					l.log.Info("wake phrase spotted", "score", d.Score)
					l.wake(ctx, SourceVoice, d.At, l.isSpeaking())
					spot = spotted{ok: true, end: d.End}
				}
			}
			for _, ev := range l.det.Feed(res.PCM) {
				switch ev.Kind {
				case vad.SpeechStart:
					startSpeaking = l.isSpeaking()
					l.publish(ctx, TopicSpeechStart, map[string]any{})
				case vad.SpeechDropped:
					l.publish(ctx, TopicSpeechEnd, map[string]any{"duration_ms": int64(0), "reason": "too_short"})
					run.Reset()
					cut = transform.Result{}
				case vad.SpeechEnd:
					if !ended(*ev.Segment) {
						return ctx.Err()
					}
				}
			}
			if !l.det.InSpeech() {
				cut = transform.Result{} // a cancellation belongs to the utterance it falls in
			}
		}
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return nil
		}
		if !errors.Is(err, io.EOF) {
			l.report(ctx, fmt.Errorf("reading audio: %w", err))
		}
		wasSpeech := l.det.InSpeech()
		seg, ferr := l.det.Flush()
		switch {
		case wasSpeech && seg == nil && ferr == nil:
			l.publish(ctx, TopicSpeechEnd, map[string]any{"duration_ms": int64(0), "reason": "too_short"})
		case ferr != nil:
			// A cut-off utterance is not recognised: half a command could
			// be taken for another one.
			l.count(func(s *Stats) { s.Dropped++ })
			l.publish(ctx, TopicSpeechEnd, map[string]any{"duration_ms": int64(0), "reason": string(vad.EndStream)})
			l.report(ctx, fmt.Errorf("utterance dropped: %w", ferr))
		case seg != nil:
			// The speaker had paused when the stream ended: a whole
			// utterance.
			if !ended(*seg) {
				return ctx.Err()
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, audio.ErrTruncated) {
			return nil
		}
		return fmt.Errorf("listener: %w", err)
	}
}

// utteranceEnded takes an utterance the detector reported whole (j, its
// segment still the detector's buffer), the transformers' cancellation
// of it, if any: an utterance of the background alone is reported and
// not recognised; any other is cut to the speaker (only where they
// stopped when the wake phrase was spotted in it, which must stay
// whole), reported, counted, and queued for recognition unless
// cancelled. It returns false when ctx
// ended while queueing.
func (l *Listener) utteranceEnded(ctx context.Context, jobs chan<- job, j job, cancel *transform.Cancel) bool {
	j.seg.PCM = append([]int16(nil), j.seg.PCM...) // the detector reuses its buffer
	if !j.spotted && j.seg.BackgroundOnly {
		l.background(ctx, j.seg)
		return true
	}
	if !j.spotted {
		j.seg = j.seg.SpeakerPart(l.det.Config().PreRoll)
	} else if h := j.seg.SpeakerHead(); h.End > j.wakeEnd {
		// A head ending at or before the wake phrase's end would leave
		// the command out: keep the whole utterance instead.
		j.seg = h
	}
	l.publish(ctx, TopicSpeechEnd, speechEnd(j.seg))
	l.count(func(s *Stats) { s.Utterances++ })
	if cancel != nil {
		l.count(func(s *Stats) { s.Dropped++ })
		l.log.Info("utterance cancelled by an audio transformer", "cancel_by", cancel.By, "cancel_reason", cancel.Reason)
		return true
	}
	return l.enqueue(ctx, jobs, j)
}

// ReasonBackground is TopicSpeechEnd's reason for an utterance the
// detector found to be the background alone (vad.Segment's BackgroundOnly):
// it is not recognised.
const ReasonBackground = "background"

// background reports an utterance that was the background alone (a
// television, other talkers, music taken for speech while the detector
// was learning them): nothing stands out of the room, so there is no
// one to answer, and recognising it would cost the decoder's time and
// at best make the robot ask what was said.
func (l *Listener) background(ctx context.Context, seg vad.Segment) {
	l.count(func(s *Stats) { s.BackgroundOnly++ })
	l.log.Debug("utterance of the background alone: not recognised", "speech", seg.Speech())
	data := speechEnd(seg)
	data["reason"] = ReasonBackground
	l.publish(ctx, TopicSpeechEnd, data)
}

// speechEnd is TopicSpeechEnd's data for an utterance: how long its
// speech lasted, why it ended, and where its speech began and ended in
// the stream (milliseconds since the listener started reading).
func speechEnd(seg vad.Segment) map[string]any {
	ms := func(pos int64) int64 { return pos * 1000 / audio.SampleRate }
	return map[string]any{"duration_ms": seg.Speech().Milliseconds(), "reason": string(seg.Reason),
		"start_ms": ms(seg.Start), "end_ms": ms(seg.End)}
}

// spotted is a wake phrase the detector found, ending at stream position
// end.
type spotted struct {
	ok  bool
	end int64
}

// in reports whether the phrase was said in seg, and where it ended.
func (s spotted) in(seg vad.Segment) (bool, int64) {
	if !s.ok || s.end < seg.From || s.end > seg.From+int64(len(seg.PCM)) {
		return false, 0
	}
	return true, s.end
}

// enqueue hands j to the worker; in Sync mode it waits until handled. A
// full queue drops the utterance rather than stall the microphone.
func (l *Listener) enqueue(ctx context.Context, jobs chan<- job, j job) bool {
	if l.cfg.Sync {
		j.done = make(chan struct{})
		select {
		case jobs <- j:
		case <-ctx.Done():
			return false
		}
		select {
		case <-j.done:
			return true
		case <-ctx.Done():
			return false
		}
	}
	select {
	case jobs <- j:
	default:
		l.count(func(s *Stats) { s.Dropped++ })
		l.report(ctx, errors.New("utterance dropped: the recogniser is behind"))
	}
	return true
}

// handle recognises one utterance and acts on it.
func (l *Listener) handle(ctx context.Context, j job) {
	l.mu.Lock()
	w := l.win
	l.mu.Unlock()
	inWindow := w.open && j.seg.End >= w.from && j.seg.Start <= w.to
	if l.echo(j) {
		return
	}
	if l.cfg.Wake != nil {
		l.handleSpotted(ctx, j, inWindow, w)
		return
	}
	hyps, ok := l.recognizeAndPublish(ctx, j, w.question && inWindow, inWindow && !j.speaking)
	if !ok {
		return
	}
	best := words(hyps[0].Text)
	wake := hasWake(best)

	switch {
	case wake && len(best) == len(wakeWords):
		l.wake(ctx, SourceVoice, j.seg.End, j.speaking)
	case wake:
		l.wake(ctx, SourceVoice, j.seg.End, j.speaking)
		l.command(ctx, j, hyps)
	case j.speaking:
		l.log.Debug("speech while the robot spoke, without the wake phrase: ignored", "text", hyps[0].Text)
	case inWindow:
		l.command(ctx, j, hyps)
	default:
		l.log.Info("speech without the wake phrase: ignored", "text", hyps[0].Text)
	}
}

// handleSpotted acts on an utterance when the wake detector finds the
// wake phrase: the window opened when the phrase was spotted, so an
// utterance holding it is a command from the audio after the phrase; one
// inside the window is a command; any other is not recognised.
func (l *Listener) handleSpotted(ctx context.Context, j job, inWindow bool, w window) {
	question := w.question
	switch {
	case j.spotted:
		rest, ok := l.afterWake(ctx, j.seg, j.wakeEnd)
		if !ok {
			l.log.Debug("the wake phrase alone: listening for the command")
			return
		}
		j.seg.PCM = rest
		question, w = false, window{}
	case j.speaking:
		l.log.Debug("speech while the robot spoke, without the wake phrase: ignored", "speech", j.seg.Speech())
		return
	case !inWindow:
		l.log.Debug("speech without the wake phrase: ignored", "speech", j.seg.Speech())
		return
	}
	hyps, ok := l.recognizeAndPublish(ctx, j, question, true)
	if !ok {
		if hyps != nil && !question && !w.asked {
			// Said to the robot, and not understood: asking is better
			// than guessing (a wrong action is the worst outcome).
			l.askAgain(ctx)
		}
		return
	}
	l.command(ctx, j, hyps)
}

// askAgain says AskAgain and opens the window again, marked asked, for
// the command to be said again.
func (l *Listener) askAgain(ctx context.Context) {
	if l.cfg.Voice == nil {
		return
	}
	l.count(func(s *Stats) { s.Asked++ })
	err := l.cfg.Voice.Say(ctx, AskAgain, func(words string) {
		if err := l.cfg.Events.Speak(ctx, words, l.cfg.Lang); err != nil && ctx.Err() == nil {
			l.log.Warn("telling what the robot says", "err", err)
		}
	})
	if err != nil {
		if ctx.Err() == nil {
			l.report(ctx, fmt.Errorf("asking again: %w", err))
		}
		return
	}
	l.mu.Lock()
	l.openLocked(l.pos.Load(), false)
	l.win.asked = true
	l.mu.Unlock()
}

// recognizeAndPublish recognises an utterance and publishes what was
// recognised; ok is false when nothing was, and then hyps is nil after
// an error and empty (not nil) when the speech was heard and not
// understood. With open, a command the
// grammar refused goes to the open-vocabulary pass: it is transcribed in
// any words, and the intent engines decide what it means.
func (l *Listener) recognizeAndPublish(ctx context.Context, j job, answer, open bool) ([]audio.Hypothesis, bool) {
	hyps, err := l.recognize(ctx, j, answer)
	if err != nil {
		if ctx.Err() == nil {
			l.report(ctx, fmt.Errorf("recognising speech: %w", err))
		}
		return nil, false
	}
	hyps = l.clean(hyps)
	if len(hyps) == 0 && open {
		if hyps, err = l.transcribe(ctx, j); err != nil {
			if ctx.Err() == nil {
				l.report(ctx, fmt.Errorf("transcribing speech: %w", err))
			}
			return nil, false
		}
	}
	list := make([]any, len(hyps))
	for i, h := range hyps {
		e := map[string]any{"text": h.Text, "confidence": h.Confidence}
		if h.Open {
			e["open"] = true
		}
		list[i] = e
	}
	l.publish(ctx, TopicRecognized, map[string]any{"hypotheses": list, "latency_ms": time.Since(j.ended).Milliseconds()})
	if len(hyps) == 0 {
		l.log.Info("no speech recognised (silence or out of grammar)", "speech", j.seg.Speech())
		return []audio.Hypothesis{}, false
	}
	l.count(func(s *Stats) { s.Recognized++ })
	return hyps, true
}

// afterWake is the audio of seg after the wake phrase (which ended at
// stream position end, as the detector estimated), with the
// utterance's pre-roll in front: the recogniser learns the noise from
// the audio before the words. ok is false when too little speech
// follows the phrase to be a command.
//
// A command said after a pause is cut in the pause (settle). One that
// runs on from the phrase ("hey jibo what time is it" in one breath)
// has no pause there, where one would have been heard (pauseHeard): no
// quiet as long as a pause, or quiet that starts pauseLate or more
// after the estimate, after speech (a stop's closure in the command's first
// word, where settle would cut that word off). The estimate falls off
// by a good part of a syllable there: a cut at it clips the command's
// first sound or leaves the phrase's tail in front of it. There the
// cut is where the recogniser aligns the phrase's end (alignPhrase),
// when it can. In a loud room a pause is not heard as quiet, and
// settle's cut stands.
func (l *Listener) afterWake(ctx context.Context, seg vad.Segment, end int64) ([]int16, bool) {
	if seg.End-end < samples(minAfterWake) {
		return nil, false
	}
	clamp := func(at int64) int { return int(min(max(at-seg.From, 0), int64(len(seg.PCM)))) }
	est := clamp(end)
	cut, paused := settle(seg.PCM, est)
	ranOn := !paused || cut-est >= int(samples(pauseLate))
	if ranOn && pauseHeard(seg.PCM[:clamp(seg.Start)], seg.PCM[:est]) {
		if at, ok := l.alignPhrase(ctx, seg.PCM, est); ok {
			cut = at
		}
	}
	return splice(seg.PCM, min(clamp(seg.Start), cut), cut), true
}

// alignPhrase returns where the recogniser (a PhraseAligner) aligns the
// end of the wake phrase in pcm, searching from alignBefore before est,
// the detector's estimate, to alignAfter after it; ok is false when it
// cannot, or its end lies further than alignMaxShift from est.
func (l *Listener) alignPhrase(ctx context.Context, pcm []int16, est int) (int, bool) {
	a, ok := l.cfg.Recognizer.(PhraseAligner)
	if !ok {
		return 0, false
	}
	from := max(est-int(samples(alignBefore)), 0)
	to := min(est+int(samples(alignAfter)), len(pcm))
	end, ok, err := a.AlignWake(ctx, pcm[from:to])
	switch {
	case err != nil:
		if ctx.Err() == nil {
			l.log.Warn("aligning the wake phrase; the pause-found cut stands", "err", err)
		}
		return 0, false
	case !ok:
		l.log.Debug("the wake phrase not aligned; the pause-found cut stands", "estimate_ms", est*1000/audio.SampleRate)
		return 0, false
	}
	at := from + end
	if shift := at - est; shift > int(samples(alignMaxShift)) || -shift > int(samples(alignMaxShift)) {
		l.log.Debug("the wake phrase aligned far from the estimate; the pause-found cut stands", "shift_ms", shift*1000/audio.SampleRate)
		return 0, false
	}
	return at, true
}

// splice is pcm[cut:] with pcm[:pre], the pre-roll, in front, faded out
// and in where they join.
func splice(pcm []int16, pre, cut int) []int16 {
	out := make([]int16, 0, pre+len(pcm)-cut)
	out = append(out, pcm[:pre]...)
	fade := min(int(samples(spliceFade)), pre)
	for i := range fade {
		k := len(out) - fade + i
		out[k] = int16(float64(out[k]) * float64(fade-i) / float64(fade))
	}
	joined := len(out)
	out = append(out, pcm[cut:]...)
	if pre > 0 {
		fade = min(int(samples(spliceFade)), len(out)-joined)
		for i := range fade {
			out[joined+i] = int16(float64(out[joined+i]) * float64(i) / float64(fade))
		}
	}
	return out
}

// settle moves a cut made where the wake phrase most likely ended past
// the rest of its last vowel: the detector's estimate falls within tens
// of milliseconds of the end, and a vowel's tail left in front of the
// command is loud audio no command word explains (the recogniser then
// rejects the command). The cut moves to the first of two 10 ms frames
// in a row, within settleMax after it, that are settleDrop quieter than
// the loudest 10 ms of the settleBack before it: the pause after the
// phrase, or the gap before the next word. paused says the quiet lasts
// pauseFrames: a pause, where the speech does not run on.
func settle(pcm []int16, cut int) (at int, paused bool) {
	const frame = audio.SampleRate / 100
	peak := math.Inf(-1)
	for k := max(cut-int(samples(settleBack)), 0); k+frame <= cut; k += frame {
		peak = max(peak, vad.Level(pcm[k:k+frame]))
	}
	if math.IsInf(peak, -1) {
		return cut, false
	}
	quiet := 0
	at = -1
	for k := cut; k+frame <= len(pcm) && (k < cut+int(samples(settleMax)) || quiet > 0); k += frame {
		if vad.Level(pcm[k:k+frame]) > peak-settleDrop {
			if at >= 0 {
				return at, false
			}
			quiet = 0
			continue
		}
		quiet++
		if quiet == 2 && at < 0 {
			at = k - frame
		}
		if quiet >= pauseFrames {
			return at, true
		}
	}
	if at >= 0 {
		return at, false
	}
	return cut, false
}

// pauseHeard reports whether a pause after the phrase would have been
// heard (settle): the room, the median 10 ms level of the pre-roll, is
// pauseHeardDB quieter than the loudest 10 ms of the phrase's last
// settleBack. Far off in a room, or over loud babble or music, a pause
// is not heard as quiet, and the cut stays where settle put it.
func pauseHeard(preRoll, phrase []int16) bool {
	const frame = audio.SampleRate / 100
	var room []float64
	for k := 0; k+frame <= len(preRoll); k += frame {
		room = append(room, vad.Level(preRoll[k:k+frame]))
	}
	peak := math.Inf(-1)
	for k := max(len(phrase)-int(samples(settleBack)), 0); k+frame <= len(phrase); k += frame {
		peak = max(peak, vad.Level(phrase[k:k+frame]))
	}
	if len(room) == 0 || math.IsInf(peak, -1) {
		return false
	}
	slices.Sort(room)
	return room[len(room)/2] <= peak-pauseHeardDB
}

// echo reports whether an utterance heard while the robot spoke is no
// louder than the robot's own sound then (by EchoMarginDB): its own voice,
// coming back through the microphone. The utterance's level is that of its
// loud frames (the 90th percentile of 20 ms levels).
func (l *Listener) echo(j job) bool {
	if !j.speaking || l.cfg.Playback == nil {
		return false
	}
	dur := time.Duration(len(j.seg.PCM)) * time.Second / audio.SampleRate
	ref := l.cfg.Playback.Level(j.ended.Add(-dur), j.ended)
	if math.IsInf(ref, -1) {
		return false
	}
	var levels []float64
	for off := 0; off+vad.FrameSamples <= len(j.seg.PCM); off += vad.FrameSamples {
		levels = append(levels, vad.Level(j.seg.PCM[off:off+vad.FrameSamples]))
	}
	if len(levels) == 0 {
		return false
	}
	slices.Sort(levels)
	level := levels[len(levels)*9/10]
	if level >= ref+l.cfg.EchoMarginDB {
		return false
	}
	l.count(func(s *Stats) { s.Echoes++ })
	l.log.Debug("the robot's own voice (echo): ignored", "level_dbfs", level, "playback_dbfs", ref, "margin_db", l.cfg.EchoMarginDB)
	return true
}

// recognize recognises an utterance. While a question waits (answer) and
// the recogniser knows answers, the answer grammar is tried first; speech
// that is no answer (a new command instead) then goes to the main grammar.
func (l *Listener) recognize(ctx context.Context, j job, answer bool) ([]audio.Hypothesis, error) {
	if ar, ok := l.cfg.Recognizer.(audio.AnswerRecognizer); ok && answer && !j.speaking {
		hyps, err := ar.RecognizeAnswer(ctx, j.seg.PCM)
		if err != nil || len(l.clean(hyps)) > 0 {
			l.log.Debug("heard as an answer", "hypotheses", len(hyps))
			return hyps, err
		}
	}
	return l.cfg.Recognizer.Recognize(ctx, j.seg.PCM)
}

// transcribe is the open-vocabulary pass over an utterance, when the
// recogniser has one.
func (l *Listener) transcribe(ctx context.Context, j job) ([]audio.Hypothesis, error) {
	tr, ok := l.cfg.Recognizer.(audio.Transcriber)
	if !ok {
		return nil, nil
	}
	hyps, err := tr.Transcribe(ctx, j.seg.PCM)
	if err != nil {
		return nil, err
	}
	hyps = l.clean(hyps)
	for i := range hyps {
		hyps[i].Open = true
	}
	return hyps, nil
}

// wake opens the command window at stream position at, and stops the
// robot's speech when it is talking (barge-in).
func (l *Listener) wake(ctx context.Context, source string, at int64, speaking bool) {
	l.mu.Lock()
	l.win = window{open: true, from: at, to: at + samples(l.cfg.CommandWindow)}
	l.stats.Wakes++
	if speaking {
		l.stats.BargeIns++
	}
	l.mu.Unlock()
	if speaking {
		// The global stop (STOP-06): what the body does stops, speech
		// included.
		if err := l.cfg.Events.Stop(ctx); err != nil && ctx.Err() == nil {
			l.log.Warn("stopping the robot", "err", err)
		}
	}
	l.publish(ctx, TopicWake, map[string]any{"source": source})
}

// command sends the utterance to the robot and closes the window.
func (l *Listener) command(ctx context.Context, j job, hyps []audio.Hypothesis) {
	var utts []string
	var scores []float64
	seen := map[string]bool{}
	open := false
	for _, h := range hyps {
		w := words(h.Text)
		if hasWake(w) {
			w = w[len(wakeWords):]
		}
		u := strings.Join(w, " ")
		if u == "" || seen[u] {
			continue
		}
		seen[u] = true
		utts = append(utts, u)
		scores = append(scores, h.Confidence)
		if h.Open {
			open = true
		}
	}
	l.mu.Lock()
	l.win = window{}
	l.mu.Unlock()
	if len(utts) == 0 {
		return
	}
	id := l.cfg.InputPrefix + "-" + strconv.FormatUint(l.nextID.Add(1), 10)
	c := Command{ID: id, Utterances: utts, Scores: scores, Open: open, Lang: j.lang, Transformers: j.ids}
	done := make(chan struct{})
	l.mu.Lock()
	l.pending[id] = done
	l.stats.Commands++
	l.mu.Unlock()
	if err := l.cfg.Events.Command(ctx, c); err != nil {
		l.forget(id)
		l.report(ctx, fmt.Errorf("sending utterance: %w", err))
		return
	}
	l.log.Info("command heard", "input", id, "utterances", utts)
	if !l.cfg.Sync {
		return
	}
	t := time.NewTimer(l.cfg.HandleTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		l.forget(id)
		l.report(ctx, fmt.Errorf("utterance %s not handled within %v", id, l.cfg.HandleTimeout))
	case <-ctx.Done():
	}
}

func (l *Listener) forget(id string) {
	l.mu.Lock()
	delete(l.pending, id)
	l.mu.Unlock()
}

// awaitPending waits (bounded) for the commands still being handled, so a
// finite source's last command is answered before Run returns.
func (l *Listener) awaitPending(ctx context.Context) {
	t := time.NewTimer(l.cfg.HandleTimeout)
	defer t.Stop()
	for {
		l.mu.Lock()
		var ch chan struct{}
		for _, c := range l.pending {
			ch = c
			break
		}
		l.mu.Unlock()
		if ch == nil {
			return
		}
		select {
		case <-ch:
		case <-t.C:
			l.log.Warn("utterances still unhandled when the listener stopped")
			return
		case <-ctx.Done():
			return
		}
	}
}

// Wake opens the command window now, as the wake phrase does: source
// says who asked (SourceButton, SourceShell). While the robot speaks it
// stops the speech too.
func (l *Listener) Wake(ctx context.Context, source string) {
	l.wake(ctx, source, l.pos.Load(), l.isSpeaking())
}

// Asked says a skill asked a question that waits for its answer: the
// window opens now, and again once the question has been spoken and
// once its turn has been handled, so the answer needs no wake phrase.
func (l *Listener) Asked() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listenReq = true
	l.openLocked(l.pos.Load(), true)
}

// Speaking says the robot started (true) or stopped (false) speaking.
func (l *Listener) Speaking(speaking bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.speaking = speaking
	if !speaking && l.listenReq {
		l.openLocked(l.pos.Load(), true) // the question has been spoken: the answer window starts now
	}
}

// Handled says a turn has been handled: id is its input (Command.ID for
// the listener's own, "" for none).
func (l *Listener) Handled(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.listenReq {
		l.openLocked(l.pos.Load(), true)
		l.listenReq = false
	}
	if ch := l.pending[id]; id != "" && ch != nil {
		close(ch)
		delete(l.pending, id)
	}
}

// openLocked (re)opens the window from stream position at; question says
// a skill's question opened it.
func (l *Listener) openLocked(at int64, question bool) {
	l.win = window{open: true, from: at, to: at + samples(l.cfg.CommandWindow), question: question}
}

func (l *Listener) isSpeaking() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.speaking
}

func (l *Listener) count(f func(*Stats)) {
	l.mu.Lock()
	f(&l.stats)
	l.mu.Unlock()
}

// report logs an error and publishes it.
func (l *Listener) report(ctx context.Context, err error) {
	l.count(func(s *Stats) { s.Errors++ })
	l.log.Warn("audio", "err", err)
	l.publish(ctx, TopicError, map[string]any{"error": err.Error()})
}

func (l *Listener) publish(ctx context.Context, topic string, data map[string]any) {
	if err := l.cfg.Events.Event(ctx, topic, data); err != nil && ctx.Err() == nil {
		l.log.Warn("publishing", "topic", topic, "err", err)
	}
}

// clean validates a recogniser's output as outside input: at most
// MaxHypotheses, each valid UTF-8 without control characters, within
// MaxTextBytes, not blank, confidence clamped to [0,1].
func (l *Listener) clean(in []audio.Hypothesis) []audio.Hypothesis {
	out := make([]audio.Hypothesis, 0, min(len(in), MaxHypotheses))
	for _, h := range in {
		if len(out) == MaxHypotheses {
			break
		}
		switch {
		case len(h.Text) > MaxTextBytes, !utf8.ValidString(h.Text), strings.ContainsFunc(h.Text, unicode.IsControl):
			l.log.Warn("recogniser hypothesis refused", "bytes", len(h.Text))
			continue
		case strings.TrimSpace(h.Text) == "":
			continue
		}
		if math.IsNaN(h.Confidence) {
			h.Confidence = 0
		}
		h.Confidence = max(0, min(1, h.Confidence))
		out = append(out, h)
	}
	return out
}

var wakeWords = strings.Fields(audio.WakePhrase)

// words lowercases text and splits it into words, dropping punctuation
// ("Hey, Jibo!" → hey jibo); apostrophes inside words are dropped as the
// intent engines do ("what's" → whats).
func words(text string) []string {
	return strings.FieldsFunc(strings.Map(func(r rune) rune {
		switch {
		case r == '\'' || r == '’':
			return -1
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return unicode.ToLower(r)
		}
		return ' '
	}, text), func(r rune) bool { return r == ' ' })
}

func hasWake(w []string) bool {
	if len(w) < len(wakeWords) {
		return false
	}
	for i, x := range wakeWords {
		if w[i] != x {
			return false
		}
	}
	return true
}

func samples(d time.Duration) int64 { return int64(d) * audio.SampleRate / int64(time.Second) }
