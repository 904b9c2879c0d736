package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

// scriptedASR answers each utterance with the next text ("" for nothing
// recognised).
type scriptedASR struct {
	mu    sync.Mutex
	texts []string
	calls int
}

func (s *scriptedASR) Recognize(context.Context, []int16) ([]audio.Hypothesis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls >= len(s.texts) || s.texts[s.calls] == "" {
		s.calls++
		return nil, nil
	}
	s.calls++
	return []audio.Hypothesis{{Text: s.texts[s.calls-1], Confidence: 0.9}}, nil
}

func fixedASR(a audio.Recognizer) hearing.RecognizerFunc {
	return func(context.Context, hearing.Parts, hearing.Options) (audio.Recognizer, func() error, error) {
		return a, func() error { return nil }, nil
	}
}

// recorder keeps every bus message.
type recorder struct {
	mu   sync.Mutex
	msgs []bus.Message
}

func (r *recorder) tap(_ context.Context, m bus.Message) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
}

func (r *recorder) of(topic string) []bus.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []bus.Message
	for _, m := range r.msgs {
		if m.Type == topic {
			out = append(out, m)
		}
	}
	return out
}

func parseAudioFlags(t *testing.T, args ...string) *hearing.Config {
	t.Helper()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := addAudioFlags(fs)
	require.NoError(t, fs.Parse(args))
	return f
}

// testRobot starts a robot with the voice and ear of hc, hearing with
// the recogniser newASR makes.
func testRobot(t *testing.T, rec *recorder, hc hearing.Config, newASR hearing.RecognizerFunc) *runtime.Robot {
	t.Helper()
	r, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: runtime.NoState,
		Log: slog.New(slog.DiscardHandler), Tap: rec.tap, Hearing: hc, Recognizer: newASR})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

// A WAV of "hey jibo, what time is it" heard through the whole wiring (file
// source, chain, detector, recogniser, listener) reaches the clock skill,
// which answers; an unrecognised sentence after it causes nothing.
func TestHearingAFileReachesTheClock(t *testing.T) {
	rec := &recorder{}
	f := parseAudioFlags(t, "--audio", "file:"+filepath.Join("..", "..", "audio", "testdata", "hey_jibo_what_time.wav"))
	asr := &scriptedASR{texts: []string{"hey jibo what time is it"}}
	r := testRobot(t, rec, *f, fixedASR(asr))
	require.NoError(t, r.Hearing().Wait(context.Background()))
	require.NoError(t, r.Close(context.Background())) // the recorder has seen everything

	handle := rec.of(pipeline.TopicHandle)
	require.Len(t, handle, 1)
	assert.Equal(t, []any{"what time is it"}, handle[0].Data["utterances"])
	assert.Equal(t, "audio-1", handle[0].Context[console.KeyInput])
	var answer []string
	for _, m := range rec.of(pipeline.TopicSpeak) {
		if m.Context[console.KeyInput] == "audio-1" {
			answer = append(answer, m.DataString("utterance"))
		}
	}
	require.NotEmpty(t, answer, "the clock skill answers")
	assert.Regexp(t, `\d`, strings.Join(answer, " "), "with the time")
	assert.Len(t, rec.of(listen.TopicWake), 1)
	assert.Len(t, rec.of(listen.TopicRecognized), 1)
}

func loadTestWAV(t *testing.T, name string) []int16 {
	t.Helper()
	fh, err := os.Open(filepath.Join("..", "..", "audio", "testdata", name))
	require.NoError(t, err)
	defer fh.Close()
	c, err := audio.DecodeWAV(fh)
	require.NoError(t, err)
	return audio.ToRecognition(c)
}

// A skill's question is answered without the wake phrase: "hey jibo, set a
// timer" … "five seconds", heard from one file.
func TestHearingAnswersAQuestion(t *testing.T) {
	rec := &recorder{}
	pcm := append(loadTestWAV(t, "hey_jibo_what_time.wav"), make([]int16, 24000)...)
	pcm = append(pcm, loadTestWAV(t, "set_a_timer.wav")...)
	pcm = append(pcm, make([]int16, 16000)...)
	var b bytes.Buffer
	require.NoError(t, audio.EncodeWAV(&b, 16000, 1, pcm))
	path := filepath.Join(t.TempDir(), "two.wav")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	f := parseAudioFlags(t, "--audio", "file:"+path)
	asr := &scriptedASR{texts: []string{"hey jibo set a timer", "five seconds"}}
	r := testRobot(t, rec, *f, fixedASR(asr))
	require.NoError(t, r.Hearing().Wait(context.Background()))
	require.NoError(t, r.Close(context.Background())) // the recorder has seen everything
	handle := rec.of(pipeline.TopicHandle)
	require.Len(t, handle, 2)
	assert.Equal(t, []any{"five seconds"}, handle[1].Data["utterances"])
	var said []string
	for _, m := range rec.of(pipeline.TopicSpeak) {
		said = append(said, m.DataString("utterance"))
	}
	assert.Len(t, rec.of(listen.TopicWake), 1, "the answer needed no wake phrase")
	assert.Empty(t, rec.of(pipeline.TopicUnmatched))
	assert.Regexp(t, `(?i)5|five`, strings.Join(said[1:], " "), "the timer skill took the answer: %q", said)
}

// Speech without the wake phrase, the window closed, gives no command:
// with the wake word detector it is not even recognised; with the grammar
// finding the phrase it is, and the recogniser's nothing is nothing.
func TestHearingOutOfGrammarDoesNothing(t *testing.T) {
	for _, tc := range []struct {
		wake       string
		recognized int
	}{{hearing.WakeDetector, 0}, {hearing.WakeGrammar, 1}} {
		t.Run(tc.wake, func(t *testing.T) {
			rec := &recorder{}
			f := parseAudioFlags(t, "--wake", tc.wake, "--audio", "file:"+filepath.Join("..", "..", "audio", "testdata", "set_a_timer.wav"))
			r := testRobot(t, rec, *f, fixedASR(&scriptedASR{texts: []string{""}}))
			require.NoError(t, r.Hearing().Wait(context.Background()))
			require.NoError(t, r.Close(context.Background())) // the recorder has seen everything
			assert.Len(t, rec.of(listen.TopicSpeechEnd), 1, "the speech was found")
			assert.Len(t, rec.of(listen.TopicRecognized), tc.recognized)
			assert.Empty(t, rec.of(listen.TopicWake))
			assert.Empty(t, rec.of(pipeline.TopicHandle), "no false command")
		})
	}
}

func TestAudioFlagsCheck(t *testing.T) {
	tests := []struct {
		args  []string
		input string
		err   string
	}{
		{args: nil, input: "console"},
		{args: []string{"--audio", "null"}, input: "console"},
		{args: nil, input: "none"}, // a service robot: runs until stopped, shell only
		{args: []string{"--audio", "stdin"}, input: "console", err: "use it with --input none"},
		{args: []string{"--audio", "null", "--audio-realtime"}, input: "console", err: "file: sources only"},
		{args: []string{"--speaker", "board"}, input: "console"},
		{args: []string{"--speaker", "portaudio:USB"}, input: "console"},
		{args: []string{"--audio", "null", "--echo-margin", "6"}, input: "console"},
		{args: []string{"--audio", "null", "--wake", "grammar"}, input: "console"},
		{args: []string{"--audio", "null", "--wake", "spotter"}, input: "console", err: "want detector or grammar"},
		{args: []string{"--audio", "null", "--wake-threshold", "0.5"}, input: "console"},
		{args: []string{"--audio", "null", "--wake-threshold", "1"}, input: "console", err: "--wake-threshold"},
	}
	for _, tc := range tests {
		err := parseAudioFlags(t, tc.args...).Check(tc.input)
		if tc.err == "" {
			assert.NoError(t, err, "%v", tc.args)
			continue
		}
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.err)
	}
}

// The audio flags the typed configuration holds are checked with it,
// before the robot starts: jibod run says which flag is wrong.
func TestRunChecksAudioFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--command-window", "1ms"}, "--command-window"},
		{[]string{"--vad-max-speech", "2h"}, "max speech"},
		{[]string{"--audio-gain", "80"}, "--audio-gain"},
		{[]string{"--tts", "festival"}, "want sim or espeak"},
		{[]string{"--speaker", "alsa:hw0"}, "want board or portaudio[:DEVICE]"},
		{[]string{"--echo-margin", "60"}, "--echo-margin"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"run", "--input", "none", "--state", "none", "--audio", "null"}, tc.args...)
		// Bounded: a flag that is not refused would start the robot.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		code := run(ctx, nil, args, strings.NewReader(""), io.Discard, &stderr)
		cancel()
		assert.Equal(t, 2, code, "%v: %s", tc.args, stderr.String())
		assert.Contains(t, stderr.String(), tc.err, "%v", tc.args)
	}
}

// --audio portaudio speaks through PortAudio too, unless --speaker says
// otherwise.
func TestSpeakerFollowsPortaudio(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--audio", "portaudio"}, "portaudio"},
		{[]string{"--audio", "portaudio:USB", "--speaker", "board"}, "board"},
		{[]string{"--audio", "null"}, ""},
	} {
		f := parseAudioFlags(t, tc.args...)
		require.NoError(t, f.Check("console"), "%v", tc.args)
		assert.Equal(t, tc.want, f.Speech.Speaker, "%v", tc.args)
	}
}

// The pure build has no recogniser and says so, before opening anything.
func TestNoRecognizerInThisBuild(t *testing.T) {
	f := parseAudioFlags(t, "--audio", "null")
	_, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: runtime.NoState,
		Log: slog.New(slog.DiscardHandler), Hearing: *f, Recognizer: func(context.Context, hearing.Parts, hearing.Options) (audio.Recognizer, func() error, error) {
			return nil, nil, hearing.ErrNoASR
		}})
	require.ErrorIs(t, err, hearing.ErrNoASR)
	assert.Contains(t, err.Error(), "build with -tags sphinx")
}

func TestWakeButtons(t *testing.T) {
	r := testRobot(t, &recorder{}, hearing.Config{}, nil)
	got, err := hearing.WakeButtons(r.Body().Board.Buttons, parseAudioFlags(t))
	require.NoError(t, err)
	assert.Empty(t, got, "the sim board has no wake button")
	_, err = hearing.WakeButtons(r.Body().Board.Buttons, parseAudioFlags(t, "--wake-button", "talk"))
	assert.ErrorContains(t, err, `--wake-button "talk": the board has no such button`)
}

// fakeEspeak writes an espeak-ng stand-in that prints seconds of a tone as
// a streamed WAV.
func fakeEspeak(t *testing.T, seconds float64) string {
	t.Helper()
	dir := t.TempDir()
	rate := 22050
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(0x7ffff024))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		w(v)
	}
	b.WriteString("data")
	w(uint32(0x7ffff000))
	for i := range int(seconds * float64(rate)) {
		w(int16(6000 * math.Sin(2*math.Pi*200*float64(i)/float64(rate))))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "speech.wav"), b.Bytes(), 0o644))
	prog := filepath.Join(dir, "espeak-ng")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\ncat > /dev/null\ncat "+filepath.Join(dir, "speech.wav")+"\n"), 0o755))
	return prog
}

// --tts espeak speaks through espeak-ng on the board's sound output, and
// --speaker-wav records it.
func TestEspeakVoiceAndSpeakerWAV(t *testing.T) {
	rec := &recorder{}
	wav := filepath.Join(t.TempDir(), "spk.wav")
	r := testRobot(t, rec, hearing.Config{Speech: hearing.Speech{TTS: hearing.TTSEspeak, Program: fakeEspeak(t, 0.3), SpeakerWAV: wav}}, nil)
	u, err := console.NewUtterer(r.Bus(), "test")
	require.NoError(t, err)
	defer u.Close()
	_, _, err = u.Say(context.Background(), "hello")
	require.NoError(t, err)
	u.Close()
	require.NoError(t, r.Close(context.Background()))
	require.NotEmpty(t, rec.of("jibo.body.speaker.say"))
	require.NotEmpty(t, rec.of("jibo.body.speaker.done"))
	require.NotEmpty(t, rec.of("jibo.body.audio.play"), "played on the board's sound output")
	fh, err := os.Open(wav)
	require.NoError(t, err)
	defer fh.Close()
	c, err := audio.DecodeWAV(fh)
	require.NoError(t, err)
	assert.InDelta(t, 0.3*float64(len(rec.of("jibo.body.speaker.done"))), c.Duration(), 0.05, "the recording holds what was said")
}

func TestEspeakNeedsASoundOutput(t *testing.T) {
	prof, err := runtime.LoadProfile("sim")
	require.NoError(t, err)
	prof.AudioOut = nil
	_, err = newTestRobot(context.Background(), runtime.Config{Profile: prof, SpeakWPM: 0, StateDir: runtime.NoState,
		Log: slog.New(slog.DiscardHandler), Hearing: hearing.Config{Speech: hearing.Speech{TTS: hearing.TTSEspeak, Program: fakeEspeak(t, 0.1)}}})
	assert.ErrorContains(t, err, "no sound output")
}

// gated yields nothing until opened, then a wake phrase's worth of sound
// and silence.
type gated struct {
	open chan struct{}
	pcm  []int16
}

func (g *gated) Read(ctx context.Context, buf []int16) (int, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if len(g.pcm) == 0 {
		return 0, io.EOF
	}
	n := copy(buf, g.pcm)
	g.pcm = g.pcm[n:]
	return n, nil
}
func (g *gated) Close() error { return nil }

// Barge-in: "hey jibo" heard while the robot speaks stops the speech (the
// global stop's ovos.stop), and the recording ends where it was cut.
func TestBargeIn(t *testing.T) {
	rec := &recorder{}
	wav := filepath.Join(t.TempDir(), "spk.wav")
	r := testRobot(t, rec, hearing.Config{Speech: hearing.Speech{TTS: hearing.TTSEspeak, Program: fakeEspeak(t, 5), SpeakerWAV: wav}}, nil)
	// "Hey Jibo, what time is it", the wake word detector's to find.
	src := &gated{open: make(chan struct{})}
	src.pcm = append(make([]int16, 16000), loadTestWAV(t, "hey_jibo_what_time.wav")...)
	src.pcm = append(src.pcm, make([]int16, 16000)...)
	// The microphone opens once the listener itself knows the robot is
	// speaking. The listener answers transformer list requests in order
	// with what it hears about the speaker, and a reply carries its
	// request's context: the reply to the request sent on the speaker's
	// message means the listener has seen that message.
	const pingKey = "barge_test_ping"
	ready := make(chan struct{}, 1)
	seen, err := r.Bus().Subscribe(transform.TopicListResp, func(_ context.Context, m bus.Message) {
		switch m.ContextString(pingKey) {
		case "speaking":
			select {
			case <-src.open:
			default:
				close(src.open)
			}
		case "ready":
			select {
			case ready <- struct{}{}:
			default:
			}
		}
	})
	require.NoError(t, err)
	defer seen.Close()
	ping := func(ctx context.Context, what string) {
		m := bus.NewMessage(transform.TopicList, map[string]any{})
		m.Context[pingKey] = what
		if err := r.Bus().Publish(ctx, m); err != nil {
			t.Errorf("asking the listener: %v", err)
		}
	}
	speaking, err := r.Bus().Subscribe("jibo.body.speaker.say", func(ctx context.Context, _ bus.Message) { ping(ctx, "speaking") })
	require.NoError(t, err)
	defer speaking.Close()
	h, err := hearing.ListenOn(context.Background(), r.HearingParts(), src, &scriptedASR{texts: []string{"hey jibo"}}, func() error { return nil },
		parseAudioFlags(t), "en-US", false, nil, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	// The listener subscribes from its own goroutine: wait until it answers.
	for answered := false; !answered; {
		ping(context.Background(), "ready")
		select {
		case <-ready:
			answered = true
		case <-time.After(20 * time.Millisecond):
		}
	}
	u, err := console.NewUtterer(r.Bus(), "test")
	require.NoError(t, err)
	defer u.Close()
	_, _, err = u.Say(context.Background(), "hello") // returns once speech was stopped
	require.NoError(t, err)
	require.NoError(t, h.Wait(context.Background()))
	require.NoError(t, h.Stop())
	u.Close()
	require.NoError(t, r.Close(context.Background())) // the recorder has seen everything
	assert.Len(t, rec.of(pipeline.TopicStop), 1, "the wake phrase stops the robot")
	assert.NotEmpty(t, rec.of("jibo.body.speaker.interrupted"))
	assert.Equal(t, "voice", rec.of(listen.TopicWake)[0].DataString("source"))
	fh, err := os.Open(wav)
	require.NoError(t, err)
	defer fh.Close()
	c, err := audio.DecodeWAV(fh)
	require.NoError(t, err)
	assert.Less(t, c.Duration(), 5.0, "cut short")
}

func TestAudioLevel(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"audio", "level", "--audio", "file:" + filepath.Join("..", "..", "audio", "testdata", "hey_jibo_what_time.wav")},
		strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 20, "one reading per 100 ms of the 1.9 s file")
	assert.Contains(t, out.String(), "speech")
	assert.Contains(t, lines[0], "dBFS")

	out.Reset()
	code = run(context.Background(), testTrainer, []string{"audio", "level", "--audio", "null", "--seconds", "0.3"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Equal(t, 3, strings.Count(out.String(), "-inf dBFS"))

	out.Reset()
	raw := make([]byte, 3200*2+1)
	code = run(context.Background(), testTrainer, []string{"audio", "level", "--audio", "stdin"}, bytes.NewReader(raw), &out, &errb)
	assert.Equal(t, 1, code, "a stream that ends mid-sample is an error")
	assert.Contains(t, errb.String(), "mid-sample")
}

func TestAudioDevices(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"audio", "devices"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "backends: file, stdin, null")
	code = run(context.Background(), testTrainer, []string{"audio", "nope"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 2, code)
}

func TestHeardLine(t *testing.T) {
	for _, tc := range []struct {
		m    bus.Message
		want string
	}{
		{bus.NewMessage(listen.TopicRecognized, map[string]any{"hypotheses": []any{map[string]any{"text": "hey jibo hello", "confidence": 0.9}}}), `(heard: "hey jibo hello")`},
		{bus.NewMessage(listen.TopicRecognized, map[string]any{"hypotheses": []any{}}), "(heard speech, recognised nothing)"},
		{bus.NewMessage(listen.TopicError, map[string]any{"error": "device vanished"}), "(audio: device vanished)"},
	} {
		assert.Equal(t, tc.want, hearing.HeardLine(tc.m))
	}
}
