package listen

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/vad"
)

const rate = audio.SampleRate

func at(d time.Duration) int64 { return int64(d) * rate / int64(time.Second) }

// script builds a stream of utterances (tone bursts) separated by silence.
type script struct{ pcm []int16 }

func (s *script) silence(d time.Duration) *script {
	s.pcm = append(s.pcm, make([]int16, at(d))...)
	return s
}

// say appends an utterance of d (a tone the detector takes for speech).
func (s *script) say(d time.Duration) *script {
	n := int(at(d))
	for i := range n {
		s.pcm = append(s.pcm, int16(6000*math.Sin(2*math.Pi*300*float64(i)/rate)))
	}
	return s
}

// fakeASR answers each utterance with the next scripted n-best list.
type fakeASR struct {
	mu     sync.Mutex
	script [][]audio.Hypothesis
	calls  int
	err    error
}

func (f *fakeASR) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	if f.calls >= len(f.script) {
		return nil, errors.New("fake recogniser: more utterances than scripted")
	}
	f.calls++
	return f.script[f.calls-1], nil
}

func hyp(texts ...string) []audio.Hypothesis {
	var out []audio.Hypothesis
	for i, t := range texts {
		out = append(out, audio.Hypothesis{Text: t, Confidence: 0.9 - 0.1*float64(i)})
	}
	return out
}

// hookSource is a clip that runs hooks when the stream reaches their
// positions, then waits for the bubble to settle.
type hookSource struct {
	pcm   []int16
	pos   int64
	hooks map[int64]func()
	err   error // returned at the end instead of io.EOF
}

func (s *hookSource) Read(ctx context.Context, buf []int16) (int, error) {
	if f := s.hooks[s.pos]; f != nil {
		delete(s.hooks, s.pos)
		f()
		synctest.Wait()
	}
	if s.pos >= int64(len(s.pcm)) {
		if s.err != nil {
			return 0, s.err
		}
		return 0, io.EOF
	}
	end := s.pos + int64(len(buf))
	for p := range s.hooks {
		if p > s.pos && p < end {
			end = p
		}
	}
	end = min(end, int64(len(s.pcm)))
	n := copy(buf, s.pcm[s.pos:end])
	s.pos += int64(n)
	return n, nil
}

func (s *hookSource) Close() error { return nil }

// msg is what the listener told the world: one of its events (Type is
// its topic), or a command, a stop or words spoken (evCommand, evStop,
// evSpeak).
type msg struct {
	Type string
	Data map[string]any
	// cmd is the command, for evCommand.
	cmd Command
}

func (m msg) DataString(key string) string {
	s, _ := m.Data[key].(string)
	return s
}

// What the listener tells the world besides its events.
const (
	evCommand = "command"
	evStop    = "stop"
	evSpeak   = "speak"
)

// world stands in for the robot (Events): it records what the listener
// tells it and takes every command as handled at once, "set a timer"
// after asking a question.
type world struct {
	mu   sync.Mutex
	msgs []msg
	// l is the listener, set before it runs.
	l *Listener
}

func newWorld(*testing.T) *world { return &world{} }

func (w *world) add(m msg) {
	w.mu.Lock()
	w.msgs = append(w.msgs, m)
	w.mu.Unlock()
}

func (w *world) Event(_ context.Context, topic string, data map[string]any) error {
	w.add(msg{Type: topic, Data: data})
	return nil
}

func (w *world) Stop(context.Context) error {
	w.add(msg{Type: evStop})
	return nil
}

func (w *world) Speak(_ context.Context, words, lang string) error {
	w.add(msg{Type: evSpeak, Data: map[string]any{"utterance": words, "lang": lang}})
	return nil
}

func (w *world) Command(_ context.Context, c Command) error {
	w.add(msg{Type: evCommand, cmd: c})
	if len(c.Utterances) > 0 && c.Utterances[0] == "set a timer" {
		w.l.Asked()
	}
	w.l.Handled(c.ID)
	return nil
}

// topics returns the messages of topic ("" for all).
func (w *world) topics(topic string) []msg {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []msg
	for _, m := range w.msgs {
		if topic == "" || m.Type == topic {
			out = append(out, m)
		}
	}
	return out
}

// commands are the utterance lists of the commands.
func (w *world) commands() [][]any {
	var out [][]any
	for _, m := range w.topics(evCommand) {
		u := make([]any, len(m.cmd.Utterances))
		for i, s := range m.cmd.Utterances {
			u[i] = s
		}
		out = append(out, u)
	}
	return out
}

func (w *world) wakes() []string {
	var out []string
	for _, m := range w.topics(TopicWake) {
		out = append(out, m.DataString("source"))
	}
	return out
}

// wakeBy is a hook waking the world's listener as source.
func wakeBy(w **world, source string) func() {
	return func() { (*w).l.Wake(context.Background(), source) }
}

// speaking is a hook telling the world's listener the robot speaks.
func speaking(w **world) func() {
	return func() { (*w).l.Speaking(true) }
}

func runListener(t *testing.T, w *world, src audio.Source, asr audio.Recognizer, mod func(*Config)) (*Listener, error) {
	cfg := Config{Events: w, Source: src, Recognizer: asr, Sync: true, Lang: "en-US"}
	if mod != nil {
		mod(&cfg)
	}
	l, err := New(cfg)
	require.NoError(t, err)
	w.l = l
	err = l.Run(context.Background())
	synctest.Wait()
	return l, err
}

func TestListenerStateMachine(t *testing.T) {
	say := func(s *script) *script { return s.say(600 * time.Millisecond) }
	var w *world
	tests := []struct {
		name     string
		audio    *script
		asr      [][]audio.Hypothesis
		hooks    map[time.Duration]func()
		commands [][]any
		wakes    []string
		stops    int
	}{
		{name: "wake and command in one utterance",
			audio: say((&script{}).silence(time.Second)).silence(time.Second),
			asr:   [][]audio.Hypothesis{hyp("Hey Jibo, what time is it?")}, commands: [][]any{{"what time is it"}}, wakes: []string{"voice"}},
		{name: "bare wake, then the command in the window",
			audio: say(say((&script{}).silence(time.Second)).silence(2 * time.Second)).silence(time.Second),
			asr:   [][]audio.Hypothesis{hyp("hey jibo"), hyp("what time is it")}, commands: [][]any{{"what time is it"}}, wakes: []string{"voice"}},
		{name: "the window times out",
			audio: say(say((&script{}).silence(time.Second)).silence(10 * time.Second)).silence(time.Second),
			asr:   [][]audio.Hypothesis{hyp("hey jibo"), hyp("what time is it")}, wakes: []string{"voice"}},
		{name: "one command per window",
			audio: say(say(say((&script{}).silence(time.Second)).silence(time.Second)).silence(time.Second)).silence(time.Second),
			asr:   [][]audio.Hypothesis{hyp("hey jibo"), hyp("what time is it"), hyp("hello")}, commands: [][]any{{"what time is it"}}, wakes: []string{"voice"}},
		{name: "a stream that ends after the speaker paused still counts",
			audio: say((&script{}).silence(time.Second)).silence(300 * time.Millisecond),
			asr:   [][]audio.Hypothesis{hyp("hey jibo hello")}, commands: [][]any{{"hello"}}, wakes: []string{"voice"}},
		{name: "speech without the wake phrase is ignored",
			audio: say((&script{}).silence(time.Second)).silence(time.Second),
			asr:   [][]audio.Hypothesis{hyp("what time is it")}},
		{name: "out of grammar gives no command",
			audio: say(say((&script{}).silence(time.Second)).silence(time.Second)).silence(time.Second),
			asr:   [][]audio.Hypothesis{nil, nil}},
		{name: "out of grammar inside the window gives no command and keeps it open",
			audio: say(say(say((&script{}).silence(time.Second)).silence(time.Second)).silence(time.Second)).silence(time.Second),
			asr:   [][]audio.Hypothesis{hyp("hey jibo"), nil, hyp("hello")}, commands: [][]any{{"hello"}}, wakes: []string{"voice"}},
		{name: "n-best becomes the utterance list, wake phrase stripped, duplicates dropped",
			audio:    say((&script{}).silence(time.Second)).silence(time.Second),
			asr:      [][]audio.Hypothesis{hyp("hey jibo what time is it", "hey jibo what time is this", "what time is it", "hey jibo")},
			commands: [][]any{{"what time is it", "what time is this"}}, wakes: []string{"voice"}},
		{name: "a button press opens the window",
			audio: say((&script{}).silence(time.Second)).silence(time.Second),
			hooks: map[time.Duration]func(){500 * time.Millisecond: wakeBy(&w, SourceButton)},
			asr:   [][]audio.Hypothesis{hyp("what time is it")}, commands: [][]any{{"what time is it"}}, wakes: []string{"button"}},
		{name: "the shell's request opens the window",
			audio: say((&script{}).silence(time.Second)).silence(time.Second),
			hooks: map[time.Duration]func(){500 * time.Millisecond: wakeBy(&w, SourceShell)},
			asr:   [][]audio.Hypothesis{hyp("hello")}, commands: [][]any{{"hello"}}, wakes: []string{"shell"}},
		{name: "a question's answer needs no wake phrase",
			audio:    say(say((&script{}).silence(time.Second)).silence(2 * time.Second)).silence(time.Second),
			asr:      [][]audio.Hypothesis{hyp("hey jibo set a timer"), hyp("five seconds")},
			commands: [][]any{{"set a timer"}, {"five seconds"}}, wakes: []string{"voice"}},
		{name: "barge-in: the wake phrase while the robot speaks stops it",
			audio:    say(say((&script{}).silence(time.Second)).silence(time.Second)).silence(time.Second),
			hooks:    map[time.Duration]func(){500 * time.Millisecond: speaking(&w)},
			asr:      [][]audio.Hypothesis{hyp("what time is it"), hyp("hey jibo what time is it")},
			commands: [][]any{{"what time is it"}}, wakes: []string{"voice"}, stops: 1},
		{name: "the robot's own speech never opens a command, even in the window",
			audio: say((&script{}).silence(time.Second)).silence(time.Second),
			hooks: map[time.Duration]func(){100 * time.Millisecond: wakeBy(&w, SourceShell), 500 * time.Millisecond: speaking(&w)},
			asr:   [][]audio.Hypothesis{hyp("for how long")}, wakes: []string{"shell"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w = newWorld(t)
				src := &hookSource{pcm: tc.audio.pcm, hooks: map[int64]func(){}}
				for d, f := range tc.hooks {
					src.hooks[at(d)] = f
				}
				asr := &fakeASR{script: tc.asr}
				l, err := runListener(t, w, src, asr, nil)
				require.NoError(t, err)
				assert.Equal(t, len(tc.asr), asr.calls, "every utterance is recognised")
				assert.Equal(t, tc.commands, w.commands())
				assert.Equal(t, tc.wakes, w.wakes())
				assert.Len(t, w.topics(evStop), tc.stops)
				st := l.Stats()
				assert.Equal(t, len(tc.commands), st.Commands)
				assert.Equal(t, len(tc.asr), st.Utterances)
				// Every command has its id and carries the language.
				for i, m := range w.topics(evCommand) {
					assert.Equal(t, "audio-"+string(rune('1'+i)), m.cmd.ID)
					assert.Equal(t, "en-US", m.cmd.Lang)
				}
				assert.Len(t, w.topics(TopicSpeechStart), len(tc.asr))
				assert.Len(t, w.topics(TopicSpeechEnd), len(tc.asr))
				assert.Len(t, w.topics(TopicRecognized), len(tc.asr))
			})
		})
	}
}

func TestListenerMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t)
		pcm := (&script{}).silence(time.Second).say(800 * time.Millisecond).silence(time.Second).pcm
		g, err := transform.NewGain(6)
		require.NoError(t, err)
		chain, err := transform.New(transform.Config{Transformers: []transform.Transformer{&transform.DCBlock{}, g}})
		require.NoError(t, err)
		_, err = runListener(t, w, audio.NewClipSource(pcm, false), &fakeASR{script: [][]audio.Hypothesis{hyp("hey jibo hello")}},
			func(c *Config) { c.Chain = chain })
		require.NoError(t, err)
		end := w.topics(TopicSpeechEnd)
		require.Len(t, end, 1)
		assert.InDelta(t, 800, end[0].Data["duration_ms"], 60)
		assert.Equal(t, "silence", end[0].Data["reason"])
		assert.InDelta(t, 1000, end[0].Data["start_ms"], 60, "where in the stream the speech began")
		assert.InDelta(t, 1800, end[0].Data["end_ms"], 60)
		rec := w.topics(TopicRecognized)
		require.Len(t, rec, 1)
		assert.Equal(t, []any{map[string]any{"text": "hey jibo hello", "confidence": 0.9}}, rec[0].Data["hypotheses"])
		assert.Contains(t, rec[0].Data, "latency_ms")
		h := w.topics(evCommand)
		require.Len(t, h, 1)
		assert.Equal(t, Command{ID: "audio-1", Utterances: []string{"hello"}, Scores: []float64{0.9}, Lang: "en-US",
			Transformers: []string{"dc-block", "gain"}}, h[0].cmd,
			"the recogniser's confidence per hypothesis, for the intent stack to combine with its own; the transformers that changed it (TRF-03)")
		// In order: start, end, recognized, wake, command.
		var order []string
		for _, m := range w.topics("") {
			order = append(order, m.Type)
		}
		assert.Equal(t, []string{TopicSpeechStart, TopicSpeechEnd, TopicRecognized, TopicWake, evCommand}, order)
	})
}

func TestListenerStreamErrors(t *testing.T) {
	boom := errors.New("device unplugged")
	speech := (&script{}).silence(time.Second).say(time.Second).pcm // ends mid-utterance
	tests := []struct {
		name    string
		src     audio.Source
		wantErr error
	}{
		{name: "file ends mid-utterance", src: audio.NewClipSource(speech, false)},
		{name: "raw stream ends mid-sample", src: audio.NewRawSource(bytes.NewReader(append(pcmBytes(speech), 7)))},
		{name: "a failing source ends Run with its error", src: &hookSource{pcm: speech, err: boom}, wantErr: boom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t)
				asr := &fakeASR{}
				_, err := runListener(t, w, tc.src, asr, nil)
				if tc.wantErr != nil {
					require.ErrorIs(t, err, tc.wantErr)
				} else {
					require.NoError(t, err)
				}
				assert.Zero(t, asr.calls, "a cut-off utterance is not recognised")
				errs := w.topics(TopicError)
				require.NotEmpty(t, errs)
				var all []string
				for _, m := range errs {
					all = append(all, m.DataString("error"))
				}
				assert.Contains(t, strings.Join(all, "\n"), "audio stream ended mid-utterance")
				assert.Len(t, w.topics(TopicSpeechEnd), 1, "the started utterance is ended")
			})
		})
	}
}

func pcmBytes(pcm []int16) []byte {
	b := make([]byte, 2*len(pcm))
	for i, v := range pcm {
		b[2*i], b[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	return b
}

// flaky fails once in the middle of the stream, then serves the rest.
type flaky struct {
	src    *hookSource
	failAt int64
}

func (f *flaky) Read(ctx context.Context, buf []int16) (int, error) {
	if f.failAt > 0 && f.src.pos >= f.failAt {
		f.failAt = 0
		return 0, errors.New("device vanished")
	}
	return f.src.Read(ctx, buf)
}
func (f *flaky) Close() error { return nil }

// A live device that vanishes is reported and reopened, and the robot
// keeps listening.
func TestListenerSurvivesVanishingDevice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t)
		pcm := (&script{}).silence(time.Second).say(600 * time.Millisecond).silence(2 * time.Second).say(600 * time.Millisecond).silence(time.Second).pcm
		shared := &hookSource{pcm: pcm, hooks: map[int64]func(){}}
		opens := 0
		failAt := at(2500 * time.Millisecond)
		open := func(context.Context) (audio.Source, error) {
			opens++
			if opens == 2 {
				return nil, errors.New("not back yet")
			}
			f := &flaky{src: shared, failAt: failAt}
			failAt = 0
			return f, nil
		}
		src, err := audio.NewReopener(context.Background(), "fake:dev", open, audio.Retry{}, nil)
		require.NoError(t, err)
		asr := &fakeASR{script: [][]audio.Hypothesis{hyp("hey jibo hello"), hyp("hey jibo what time is it")}}
		_, err = runListener(t, w, src, asr, nil)
		require.NoError(t, err)
		assert.Equal(t, [][]any{{"hello"}, {"what time is it"}}, w.commands())
		assert.Equal(t, 3, opens)
		errs := w.topics(TopicError)
		require.Len(t, errs, 2)
		assert.Contains(t, errs[0].DataString("error"), "device vanished")
		assert.Contains(t, errs[1].DataString("error"), "not back yet")
	})
}

func TestListenerRecognizerError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t)
		pcm := (&script{}).silence(time.Second).say(600 * time.Millisecond).silence(time.Second).pcm
		_, err := runListener(t, w, audio.NewClipSource(pcm, false), &fakeASR{err: errors.New("model missing")}, nil)
		require.NoError(t, err, "the listener carries on")
		errs := w.topics(TopicError)
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0].DataString("error"), "model missing")
	})
}

func TestCleanHypotheses(t *testing.T) {
	l := &Listener{log: testLogger()}
	in := []audio.Hypothesis{{Text: "ok", Confidence: 2}, {Text: "bad\x00", Confidence: 0.5}, {Text: "  "}, {Text: string([]byte{0xff})},
		{Text: strings.Repeat("a", MaxTextBytes+1)}, {Text: "nan", Confidence: math.NaN()}}
	assert.Equal(t, []audio.Hypothesis{{Text: "ok", Confidence: 1}, {Text: "nan", Confidence: 0}}, l.clean(in))
	many := make([]audio.Hypothesis, 20)
	for i := range many {
		many[i] = audio.Hypothesis{Text: "x"}
	}
	assert.Len(t, l.clean(many), MaxHypotheses)
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"Hey, Jibo! What's the time?": {"hey", "jibo", "whats", "the", "time"},
		"hey jibo":                    {"hey", "jibo"},
		"":                            {},
	} {
		assert.Equal(t, want, words(in), in)
	}
	assert.True(t, hasWake(words("HEY JIBO set a timer")))
	assert.False(t, hasWake(words("hey jimbo")))
	assert.False(t, hasWake(words("hey")))
}

func TestNewValidates(t *testing.T) {
	w := &world{}
	src, asr := audio.NewNullSource(), &fakeASR{}
	for _, c := range []Config{
		{Source: src, Recognizer: asr},
		{Events: w, Recognizer: asr},
		{Events: w, Source: src},
		{Events: w, Source: src, Recognizer: asr, CommandWindow: time.Millisecond},
		{Events: w, Source: src, Recognizer: asr, HandleTimeout: -1},
	} {
		_, err := New(c)
		assert.Error(t, err, "%+v", c)
	}
}

// The shell's listen.command_window changes the window a running
// listener opens at its next wake: "hey jibo", ten seconds of silence,
// then the command, heard only when the window is longer than the
// default 8 s at the wake. A window already open keeps its end.
func TestListenerCommandWindowChangesAtTheNextWake(t *testing.T) {
	audioIn := func() *script {
		s := (&script{}).silence(time.Second).say(600 * time.Millisecond).silence(10 * time.Second)
		return s.say(600 * time.Millisecond).silence(time.Second)
	}
	tests := []struct {
		name     string
		setAt    time.Duration // 0: never set
		set      time.Duration
		commands [][]any
	}{
		{name: "default window: the command comes too late", commands: nil},
		{name: "12s set before the wake: the command is heard", setAt: 500 * time.Millisecond, set: 12 * time.Second,
			commands: [][]any{{"what time is it"}}},
		{name: "12s set while the window is open: that window keeps 8s", setAt: 4 * time.Second, set: 12 * time.Second,
			commands: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t)
				src := &hookSource{pcm: audioIn().pcm, hooks: map[int64]func(){}}
				l, err := New(Config{Events: w, Source: src, Sync: true, Logger: testLogger(),
					Recognizer: &fakeASR{script: [][]audio.Hypothesis{hyp("hey jibo"), hyp("what time is it")}}})
				require.NoError(t, err)
				w.l = l
				if tc.setAt > 0 {
					src.hooks[at(tc.setAt)] = func() {
						// From another goroutine, as the shell does (go test -race).
						done := make(chan error)
						go func() { done <- l.SetCommandWindow(tc.set) }()
						require.NoError(t, <-done)
					}
				}
				require.NoError(t, l.Run(context.Background()))
				synctest.Wait()
				assert.Equal(t, tc.commands, w.commands())
				assert.Equal(t, []string{"voice"}, w.wakes())
				if tc.setAt > 0 {
					assert.Equal(t, tc.set, l.CommandWindow())
				}
			})
		})
	}
}

func TestSetCommandWindowRefusesOutOfRange(t *testing.T) {
	l, err := New(Config{Events: &world{}, Source: audio.NewNullSource(), Recognizer: &fakeASR{}})
	require.NoError(t, err)
	for _, d := range []time.Duration{0, -time.Second, 999 * time.Millisecond, MaxCommandWindow + time.Nanosecond} {
		assert.ErrorContains(t, l.SetCommandWindow(d), "outside 1s..5m0s", d)
		assert.Equal(t, DefaultCommandWindow, l.CommandWindow(), "a refused value changes nothing")
	}
	require.NoError(t, l.SetCommandWindow(MaxCommandWindow))
	assert.Equal(t, MaxCommandWindow, l.CommandWindow())
}

// BenchmarkListenerSecond measures the listener's own cost per second of
// audio (chain, detector, the events it tells), with a recogniser that
// answers at once.
func BenchmarkListenerSecond(b *testing.B) {
	pcm := (&script{}).silence(time.Second).say(time.Second).silence(time.Second).pcm
	chain, _ := transform.New(transform.Config{Transformers: []transform.Transformer{&transform.DCBlock{}}})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l, err := New(Config{Events: &world{}, Source: audio.NewClipSource(pcm, false), Chain: chain, Recognizer: &fakeASR{script: [][]audio.Hypothesis{nil}}, Logger: testLogger()})
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/3, "ns/audio-second")
}

// answerASR is a fakeASR that also knows answers: RecognizeAnswer takes
// the next scripted answer list.
type answerASR struct {
	fakeASR
	answers     [][]audio.Hypothesis
	answerCalls int
}

func (f *answerASR) RecognizeAnswer(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.answerCalls >= len(f.answers) {
		return nil, errors.New("fake recogniser: more answers than scripted")
	}
	f.answerCalls++
	return f.answers[f.answerCalls-1], nil
}

// While a skill's question waits, an utterance is recognised against the
// answer grammar first; speech that is no answer goes to the main
// grammar; outside a question the answer grammar is never used.
func TestListenerAnswerGrammar(t *testing.T) {
	say := func(s *script) *script { return s.say(600 * time.Millisecond) }
	twice := say(say((&script{}).silence(time.Second)).silence(2 * time.Second)).silence(time.Second)
	tests := []struct {
		name            string
		main, answers   [][]audio.Hypothesis
		commands        [][]any
		mainN, answersN int
	}{
		{name: "the answer is heard with the answer grammar",
			main: [][]audio.Hypothesis{hyp("hey jibo set a timer")}, answers: [][]audio.Hypothesis{hyp("five minutes")},
			commands: [][]any{{"set a timer"}, {"five minutes"}}, mainN: 1, answersN: 1},
		{name: "no answer: the main grammar hears a new command",
			main: [][]audio.Hypothesis{hyp("hey jibo set a timer"), hyp("what time is it")}, answers: [][]audio.Hypothesis{nil},
			commands: [][]any{{"set a timer"}, {"what time is it"}}, mainN: 2, answersN: 1},
		{name: "no question: no answer grammar",
			main:     [][]audio.Hypothesis{hyp("hey jibo"), hyp("what time is it")},
			commands: [][]any{{"what time is it"}}, mainN: 2, answersN: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t)
				asr := &answerASR{fakeASR: fakeASR{script: tc.main}, answers: tc.answers}
				_, err := runListener(t, w, &hookSource{pcm: twice.pcm}, asr, nil)
				require.NoError(t, err)
				assert.Equal(t, tc.commands, w.commands())
				assert.Equal(t, tc.mainN, asr.calls, "main grammar")
				assert.Equal(t, tc.answersN, asr.answerCalls, "answer grammar")
			})
		})
	}
}

// fixedPlayback says the robot played at one level all along.
type fixedPlayback float64

func (f fixedPlayback) Level(from, to time.Time) float64 { return float64(f) }

// While the robot speaks, an utterance no louder than what it plays (by
// the margin) is its own voice: dropped unheard. Louder, it is heard,
// and the wake phrase barges in. The test utterance is at -17.8 dBFS.
func TestListenerEchoGate(t *testing.T) {
	tests := []struct {
		name     string
		playback PlaybackLevel
		margin   float64
		speaking bool
		echoes   int
		stops    int
	}{
		{name: "as loud as the playback: echo", playback: fixedPlayback(-10), speaking: true, echoes: 1},
		{name: "louder than the playback: barge-in", playback: fixedPlayback(-40), speaking: true, stops: 1},
		{name: "within the margin: echo", playback: fixedPlayback(-25), margin: 10, speaking: true, echoes: 1},
		{name: "nothing played: heard", playback: fixedPlayback(math.Inf(-1)), speaking: true, stops: 1},
		{name: "the robot is silent: no gate", playback: fixedPlayback(-10)},
		{name: "no meter: no gate", speaking: true, stops: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t)
				pcm := (&script{}).silence(time.Second).say(600 * time.Millisecond).silence(time.Second).pcm
				src := &hookSource{pcm: pcm, hooks: map[int64]func(){}}
				if tc.speaking {
					src.hooks[at(500*time.Millisecond)] = speaking(&w)
				}
				asr := &fakeASR{script: [][]audio.Hypothesis{hyp("hey jibo what time is it")}}
				l, err := runListener(t, w, src, asr, func(c *Config) { c.Playback, c.EchoMarginDB = tc.playback, tc.margin })
				require.NoError(t, err)
				assert.Equal(t, tc.echoes, l.Stats().Echoes)
				assert.Equal(t, 1-tc.echoes, asr.calls, "recognised unless echo")
				assert.Len(t, w.topics(evStop), tc.stops)
			})
		})
	}
	_, err := New(Config{Events: &world{}, Source: &hookSource{}, Recognizer: &fakeASR{}, EchoMarginDB: 50})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "echo margin")
}

// openASR is a fakeASR with an open-vocabulary pass that answers with
// the next scripted transcripts.
type openASR struct {
	fakeASR
	open  [][]audio.Hypothesis
	calls int
}

func (o *openASR) Transcribe(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.calls >= len(o.open) {
		return nil, errors.New("fake transcriber: more utterances than scripted")
	}
	o.calls++
	return o.open[o.calls-1], nil
}

// TestListenerOpenPass is issue 24 item 4: a command the grammar refuses
// in the command window is transcribed by the open-vocabulary pass and
// its n-best transcripts are the command, with their scores, marked
// open; speech outside the window is never transcribed.
func TestListenerOpenPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t)
		audioIn := (&script{}).silence(time.Second).say(600 * time.Millisecond).silence(time.Second).
			say(600 * time.Millisecond).silence(time.Second).say(600 * time.Millisecond).silence(time.Second)
		asr := &openASR{fakeASR: fakeASR{script: [][]audio.Hypothesis{hyp("hey jibo"), nil, nil}},
			open: [][]audio.Hypothesis{{{Text: "turn it down a bit", Confidence: 0.7}, {Text: "turn it down a big", Confidence: 0.4}}}}
		_, err := runListener(t, w, audio.NewClipSource(audioIn.pcm, false), asr, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, asr.calls, "only the refused command in the window is transcribed")
		assert.Equal(t, [][]any{{"turn it down a bit", "turn it down a big"}}, w.commands())
		h := w.topics(evCommand)
		require.Len(t, h, 1)
		assert.Equal(t, []float64{0.7, 0.4}, h[0].cmd.Scores)
		assert.True(t, h[0].cmd.Open)
		rec := w.topics(TopicRecognized)
		require.Len(t, rec, 3)
		assert.Equal(t, []any{map[string]any{"text": "turn it down a bit", "confidence": 0.7, "open": true},
			map[string]any{"text": "turn it down a big", "confidence": 0.4, "open": true}}, rec[1].Data["hypotheses"])
	})
}

// pcmASR records the length of each utterance it is given and hears
// "what time is it" in each.
type pcmASR struct {
	mu   sync.Mutex
	lens []time.Duration
}

func (p *pcmASR) Recognize(_ context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lens = append(p.lens, time.Duration(len(pcm))*time.Second/rate)
	return hyp("what time is it"), nil
}

// babble appends a speech-like background: tone bursts of random length
// and level (amplitude a, ±6 dB) with a murmur between them.
func (s *script) babble(d time.Duration, a float64, rng *rand.Rand) *script {
	end := len(s.pcm) + int(at(d))
	for len(s.pcm) < end {
		on := int(at(time.Duration(60+rng.IntN(200)) * time.Millisecond))
		off := int(at(time.Duration(20+rng.IntN(80)) * time.Millisecond))
		g := a * math.Pow(10, (12*rng.Float64()-6)/20)
		for i := range on {
			s.pcm = append(s.pcm, int16(g*math.Sin(2*math.Pi*500*float64(i)/rate)+a/30*(rng.Float64()*2-1)))
		}
		for range off {
			s.pcm = append(s.pcm, int16(a/6*(rng.Float64()*2-1)))
		}
	}
	s.pcm = s.pcm[:end]
	return s
}

// TestListenerHearsTheSpeakerNotTheBackground is issue 24 item 2: with
// the command window open in a room where other people talk (a
// television), the babble the detector took for speech while learning
// it is not recognised, and an utterance that ran on from the babble
// into the person's words is recognised from where the person began:
// the command alone, not seconds of babble before it.
func TestListenerHearsTheSpeakerNotTheBackground(t *testing.T) {
	tests := []struct {
		name       string
		before     time.Duration // babble before the person speaks
		background bool          // an utterance of the babble alone is expected
	}{
		{name: "the babble ends an utterance of its own before the speech", before: 9 * time.Second, background: true},
		{name: "the babble runs on into the speech", before: 4 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(3, 4))
				s := (&script{}).babble(tc.before, 300, rng)
				for range 10 { // 1.6 s of syllables 12 dB over the babble
					s.say(100*time.Millisecond).babble(60*time.Millisecond, 300, rng)
				}
				s.babble(4*time.Second, 300, rng)
				w := newWorld(t)
				asr := &pcmASR{}
				src := &hookSource{pcm: s.pcm, hooks: map[int64]func(){0: wakeBy(&w, SourceShell)}}
				l, err := runListener(t, w, src, asr, func(c *Config) {
					c.Logger = testLogger()
					c.CommandWindow = 20 * time.Second
				})
				require.NoError(t, err)
				assert.Equal(t, [][]any{{"what time is it"}}, w.commands(), "the command is heard once")
				require.Len(t, asr.lens, 1, "only the speaker's utterance is recognised")
				assert.Less(t, asr.lens[0], 3*time.Second, "the command is recognised without the babble before it")
				assert.Equal(t, tc.background, l.Stats().BackgroundOnly > 0, "an utterance of the babble alone is not recognised")
			})
		})
	}
}

// talk appends a person talking on without a pause: tone bursts of
// amplitude a (±6 dB) with short gaps of the room's noise (amplitude
// room).
func (s *script) talk(d time.Duration, a, room float64, rng *rand.Rand) *script {
	end := len(s.pcm) + int(at(d))
	for len(s.pcm) < end {
		on := int(at(time.Duration(60+rng.IntN(200)) * time.Millisecond))
		off := int(at(time.Duration(20+rng.IntN(80)) * time.Millisecond))
		g := a * math.Pow(10, (12*rng.Float64()-6)/20)
		for i := range on {
			s.pcm = append(s.pcm, int16(g*math.Sin(2*math.Pi*500*float64(i)/rate)+room*(rng.Float64()*2-1)))
		}
		s.noise(time.Duration(off)*time.Second/rate, room, rng)
	}
	s.pcm = s.pcm[:end]
	return s
}

// noise appends the room's noise: uniform noise of amplitude a.
func (s *script) noise(d time.Duration, a float64, rng *rand.Rand) *script {
	for range int(at(d)) {
		s.pcm = append(s.pcm, int16(a*(rng.Float64()*2-1)))
	}
	return s
}

// TestListenerHearsALongTalkInAQuietRoom: a person who talks on for
// longer than the detector's background window in a quiet room is heard
// and their words recognised whole, up to the longest utterance, not
// taken for the background nor cut when their own voice fills the
// detector's background window.
func TestListenerHearsALongTalkInAQuietRoom(t *testing.T) {
	for _, talk := range []time.Duration{5 * time.Second, 7 * time.Second, 9 * time.Second, 12 * time.Second} {
		t.Run(talk.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(5, 6))
				// The room at -70 dBFS, the talk at -30 dBFS.
				s := (&script{}).noise(6*time.Second, 18, rng).talk(talk, 1465, 18, rng).noise(2*time.Second, 18, rng)
				w := newWorld(t)
				asr := &pcmASR{}
				src := &hookSource{pcm: s.pcm, hooks: map[int64]func(){0: wakeBy(&w, SourceShell)}}
				l, err := runListener(t, w, src, asr, func(c *Config) {
					c.Logger = testLogger()
					c.CommandWindow = 20 * time.Second
				})
				require.NoError(t, err)
				assert.Equal(t, [][]any{{"what time is it"}}, w.commands(), "the talk is heard as a command")
				assert.Zero(t, l.Stats().BackgroundOnly, "the talk is not taken for the background")
				asr.mu.Lock()
				defer asr.mu.Unlock()
				require.NotEmpty(t, asr.lens)
				// The recogniser hears the whole talk, up to the longest
				// utterance, not only the first seconds.
				assert.GreaterOrEqual(t, asr.lens[0], min(talk, vad.Defaults.MaxSpeech)-time.Second, "the talk is recognised whole")
			})
		})
	}
}

// TestListenerHearsTheCommandNotTheTalkAfterIt: a person gives a command
// in a quiet room and a television comes on straight after it, with no
// pause, 14 dB under them. The utterance runs on to the longest; the
// recogniser is given the command, not the seconds of television after
// it.
func TestListenerHearsTheCommandNotTheTalkAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		// The room at -70 dBFS, the command at -30 dBFS for 3 s, then the
		// television.
		s := (&script{}).noise(6*time.Second, 18, rng).talk(3*time.Second, 1465, 18, rng).babble(20*time.Second, 300, rng)
		w := newWorld(t)
		asr := &pcmASR{}
		src := &hookSource{pcm: s.pcm, hooks: map[int64]func(){0: wakeBy(&w, SourceShell)}}
		_, err := runListener(t, w, src, asr, func(c *Config) {
			c.Logger = testLogger()
			c.CommandWindow = 20 * time.Second
		})
		require.NoError(t, err)
		assert.Equal(t, [][]any{{"what time is it"}}, w.commands(), "the command is heard")
		asr.mu.Lock()
		defer asr.mu.Unlock()
		require.NotEmpty(t, asr.lens)
		assert.InDelta(t, 3.0, asr.lens[0].Seconds(), 1.0, "the command is recognised without the television after it")
	})
}

// TestListenerHearsASofterEndBeforeTheTalkAfterIt: voices trail off. A
// person whose voice falls 5 dB two seconds into a request and who talks
// on for three more, then a television 20 dB under their first words:
// the recogniser is given the whole request, its softer end too, not the
// first two seconds nor the television after it.
func TestListenerHearsASofterEndBeforeTheTalkAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		// The room at -70 dBFS, the person at -30 dBFS for 2 s and at
		// -35 dBFS for 3 s, then the television at -50 dBFS.
		s := (&script{}).noise(6*time.Second, 18, rng).talk(2*time.Second, 1465, 18, rng).talk(3*time.Second, 824, 18, rng).babble(20*time.Second, 140, rng)
		w := newWorld(t)
		asr := &pcmASR{}
		src := &hookSource{pcm: s.pcm, hooks: map[int64]func(){0: wakeBy(&w, SourceShell)}}
		_, err := runListener(t, w, src, asr, func(c *Config) {
			c.Logger = testLogger()
			c.CommandWindow = 20 * time.Second
		})
		require.NoError(t, err)
		assert.Equal(t, [][]any{{"what time is it"}}, w.commands(), "the request is heard")
		asr.mu.Lock()
		defer asr.mu.Unlock()
		require.NotEmpty(t, asr.lens)
		assert.InDelta(t, 5.0, asr.lens[0].Seconds(), 1.0, "the request is recognised whole, without the television after it")
	})
}
