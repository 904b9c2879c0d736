package tts

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/device"
)

// streamedWAV is a WAV as espeak-ng writes it to a pipe: placeholder sizes.
func streamedWAV(rate int, samples []int16) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(0x7ffff024))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(uint16(1))
	w(uint32(rate))
	w(uint32(rate * 2))
	w(uint16(2))
	w(uint16(16))
	b.WriteString("data")
	w(uint32(0x7ffff000))
	for _, s := range samples {
		w(s)
	}
	return b.Bytes()
}

func tone(rate int, seconds float64) []int16 {
	out := make([]int16, int(float64(rate)*seconds))
	for i := range out {
		out[i] = int16(8000 * math.Sin(2*math.Pi*220*float64(i)/float64(rate)))
	}
	return out
}

// fakeEngine writes an espeak-ng stand-in script named espeak-ng into a
// fresh folder: body runs with $D set to the folder, where speech.wav
// holds speech.
func fakeEngine(t *testing.T, body string, speech []byte) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "speech.wav"), speech, 0o644))
	script := "#!/bin/sh\nD=" + dir + "\n" + body + "\n"
	path := filepath.Join(dir, "espeak-ng")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

const echoEngine = `printf '%s\n' "$@" > "$D/args"; cat > "$D/text"; cat "$D/speech.wav"`

// events records a voice's events.
type events struct {
	mu    sync.Mutex
	kinds []string
}

func (e *events) observe(ev device.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ev.Device != SpeakerName {
		return
	}
	e.kinds = append(e.kinds, ev.Kind)
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.kinds...)
}

func TestSayPlaysWhatTheEngineSynthesises(t *testing.T) {
	speech := tone(22050, 0.5)
	prog := fakeEngine(t, echoEngine, streamedWAV(22050, speech))
	out := filepath.Join(t.TempDir(), "spk.wav")
	sink, err := audio.CreateWAVSink(out, audio.SinkOptions{Rate: 16000})
	require.NoError(t, err)
	ev := &events{}
	v, err := New(Config{Program: prog, Voice: "en-us", WPM: 160, Pitch: 40, Sink: sink, Observer: ev.observe})
	require.NoError(t, err)
	require.NoError(t, v.Say(context.Background(), "Hello\nthere,\tfriend"))
	require.NoError(t, sink.Close())
	assert.Equal(t, []string{"say", "done"}, ev.list())

	dir := filepath.Dir(prog)
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	require.NoError(t, err)
	assert.Equal(t, "--stdout\n--stdin\n-b\n1\n-v\nen-us\n-s\n160\n-p\n40\n", string(args))
	text, err := os.ReadFile(filepath.Join(dir, "text"))
	require.NoError(t, err)
	assert.Equal(t, "Hello there, friend", string(text), "control characters become spaces; text goes on stdin, never argv")

	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	clip, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	assert.Equal(t, 16000, clip.Format.SampleRate, "resampled to the sink's rate")
	assert.InDelta(t, 0.5, clip.Duration(), 0.01)
}

func TestSynthesizeErrors(t *testing.T) {
	wav := streamedWAV(22050, tone(22050, 0.2))
	tests := []struct {
		name, body, want string
	}{
		{"engine fails", `echo "voice xx not found" >&2; exit 1`, "voice xx not found"},
		{"engine writes no WAV", `echo hello`, "bad WAV"},
		{"engine writes a WAV that lies", `head -c 60 "$D/speech.wav"; printf x`, "not a whole number"},
	}
	for _, tc := range tests {
		prog := fakeEngine(t, tc.body, wav)
		v, err := New(Config{Program: prog, Sink: audio.NewNullSink(audio.SinkOptions{})})
		require.NoError(t, err)
		err = v.Say(context.Background(), "hi")
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

func TestTimeoutKillsTheEngine(t *testing.T) {
	prog := fakeEngine(t, `exec sleep 30`, nil)
	v, err := New(Config{Program: prog, Sink: audio.NewNullSink(audio.SinkOptions{}), Timeout: 1})
	require.NoError(t, err)
	err = v.Say(context.Background(), "hi")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "took longer than")
}

func TestNewValidates(t *testing.T) {
	sink := audio.NewNullSink(audio.SinkOptions{})
	t.Setenv("PATH", t.TempDir())
	_, err := New(Config{Sink: sink})
	require.ErrorIs(t, err, ErrNoEngine)
	assert.Contains(t, err.Error(), "install the espeak-ng package")
	for _, c := range []Config{
		{Program: "/bin/sh"},
		{Program: "/bin/sh", Sink: sink, WPM: 5},
		{Program: "/bin/sh", Sink: sink, Pitch: 120},
		{Program: "/bin/sh", Sink: sink, Voice: "en; rm -rf"},
		{Program: "/bin/sh", Sink: sink, Timeout: -1},
	} {
		_, err := New(c)
		assert.Error(t, err, "%+v", c)
	}
}

func TestFoundOnPath(t *testing.T) {
	prog := fakeEngine(t, echoEngine, streamedWAV(16000, tone(16000, 0.1)))
	t.Setenv("PATH", filepath.Dir(prog))
	v, err := New(Config{Sink: audio.NewNullSink(audio.SinkOptions{})})
	require.NoError(t, err)
	assert.Equal(t, prog, v.Program())
}

func TestTextLimits(t *testing.T) {
	prog := fakeEngine(t, echoEngine, streamedWAV(16000, tone(16000, 0.1)))
	sink := audio.NewNullSink(audio.SinkOptions{})
	v, err := New(Config{Program: prog, Sink: sink})
	require.NoError(t, err)
	assert.Error(t, v.Say(context.Background(), strings.Repeat("a", device.MaxSayBytes+1)))
	assert.Error(t, v.Say(context.Background(), string([]byte{0xff})))
	require.NoError(t, v.Say(context.Background(), " \n "))
	assert.Zero(t, sink.Samples(), "blank text says nothing")
}

// startedSink tells when playing starts.
type startedSink struct {
	audio.Sink
	once    sync.Once
	started chan struct{}
}

func (s *startedSink) Write(ctx context.Context, pcm []int16, rate int) error {
	s.once.Do(func() { close(s.started) })
	return s.Sink.Write(ctx, pcm, rate)
}

// Barge-in: cancelling Say stops the sink part-way and reports what was
// said; what reached the speaker WAV is less than the whole sentence.
func TestSayInterruptedWhilePlaying(t *testing.T) {
	prog := fakeEngine(t, echoEngine, streamedWAV(16000, tone(16000, 5)))
	out := filepath.Join(t.TempDir(), "spk.wav")
	wav, err := audio.CreateWAVSink(out, audio.SinkOptions{Pace: true})
	require.NoError(t, err)
	sink := &startedSink{Sink: wav, started: make(chan struct{})}
	ev := &events{}
	v, err := New(Config{Program: prog, Sink: sink, Observer: ev.observe})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-sink.started; cancel() }()
	err = v.Say(ctx, "one two three four five six")
	var ie *device.InterruptedError
	require.ErrorAs(t, err, &ie)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "one two three four five six", ie.Text)
	assert.Equal(t, []string{"say", "interrupted"}, ev.list())
	require.NoError(t, wav.Close())
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	clip, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	assert.Less(t, clip.Duration(), 5.0)
}

func TestSayInterruptedWhileSynthesising(t *testing.T) {
	prog := fakeEngine(t, `exec sleep 30`, nil)
	ev := &events{}
	ctx, cancel := context.WithCancel(context.Background())
	v, err := New(Config{Program: prog, Sink: audio.NewNullSink(audio.SinkOptions{}), Observer: func(e device.Event) {
		ev.observe(e)
		if e.Kind == "say" {
			cancel() // the engine is started next and must be killed
		}
	}})
	require.NoError(t, err)
	err = v.Say(ctx, "hello")
	var ie *device.InterruptedError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "", ie.Spoken)
	assert.Equal(t, []string{"say", "interrupted"}, ev.list())
}

func TestSpokenPart(t *testing.T) {
	assert.Equal(t, "one two", spokenPart("one two three four", 1, 2))
	assert.Equal(t, "", spokenPart("one two", 0, 2))
	assert.Equal(t, "one two", spokenPart("one two", 5, 2))
}

// With the real espeak-ng installed, speech comes out at its 22,050 Hz.
func TestRealEspeak(t *testing.T) {
	if _, err := exec.LookPath(DefaultProgram); err != nil {
		t.Skip("espeak-ng is not installed")
	}
	v, err := New(Config{Sink: audio.NewNullSink(audio.SinkOptions{})})
	require.NoError(t, err)
	pcm, rate, err := v.Synthesize(context.Background(), "hey jibo, what time is it")
	require.NoError(t, err)
	assert.Equal(t, 22050, rate)
	secs := float64(len(pcm)) / float64(rate)
	assert.Greater(t, secs, 0.8)
	assert.Less(t, secs, 4.0)
	assert.Greater(t, audio.LevelDBFS(pcm), -40.0)
	_, _, err = v.Synthesize(context.Background(), "-v xx --help")
	require.NoError(t, err, "text that looks like options is read as text")
}

// BenchmarkRealEspeak measures one sentence's synthesis through the real
// program (process start included).
func BenchmarkRealEspeak(b *testing.B) {
	if _, err := exec.LookPath(DefaultProgram); err != nil {
		b.Skip("espeak-ng is not installed")
	}
	v, err := New(Config{Sink: audio.NewNullSink(audio.SinkOptions{})})
	require.NoError(b, err)
	var secs float64
	for b.Loop() {
		pcm, rate, err := v.Synthesize(context.Background(), "hey jibo, what time is it")
		require.NoError(b, err)
		secs = float64(len(pcm)) / float64(rate)
	}
	b.ReportMetric(secs, "audio-s")
}
