package hearing

import (
	"context"
	"errors"
	"io"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
)

// samplesOf is d of audio in samples.
func samplesOf(d time.Duration) int64 { return int64(d) * audio.SampleRate / int64(time.Second) }

// speech is silence, then d of a tone the detector takes for speech, then
// silence.
func speech(d time.Duration) []int16 {
	pcm := make([]int16, samplesOf(time.Second))
	for i := range samplesOf(d) {
		pcm = append(pcm, int16(6000*math.Sin(2*math.Pi*300*float64(i)/audio.SampleRate)))
	}
	return append(pcm, make([]int16, samplesOf(time.Second))...)
}

// scripted answers each utterance with the next scripted text at
// confidence 0.9.
type scripted struct {
	mu    sync.Mutex
	texts []string
}

func (s *scripted) Recognize(context.Context, []int16) ([]audio.Hypothesis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.texts) == 0 {
		return nil, errors.New("scripted recogniser: more utterances than scripted")
	}
	t := s.texts[0]
	s.texts = s.texts[1:]
	return []audio.Hypothesis{{Text: t, Confidence: 0.9}}, nil
}

// hooked is a clip that runs a hook when the stream reaches at, then
// waits for the bubble to settle so the listener has seen what it
// published.
type hooked struct {
	pcm  []int16
	pos  int64
	at   int64
	hook func()
}

func (s *hooked) Read(_ context.Context, buf []int16) (int, error) {
	if s.hook != nil && s.pos >= s.at {
		h := s.hook
		s.hook = nil
		h()
		synctest.Wait()
	}
	if s.pos >= int64(len(s.pcm)) {
		return 0, io.EOF
	}
	end := int64(len(s.pcm))
	if s.hook != nil {
		end = min(end, max(s.at, s.pos+1))
	}
	n := copy(buf, s.pcm[s.pos:end])
	s.pos += int64(n)
	return n, nil
}

func (s *hooked) Close() error { return nil }

// robotBus is a bus with a stand-in pipeline that answers every command
// with ovos.utterance.handled, recording every message.
type robotBus struct {
	bus  *bus.Bus
	mu   sync.Mutex
	msgs []bus.Message
}

func newRobotBus(t *testing.T) *robotBus {
	r := &robotBus{bus: bus.New(bus.Options{})}
	_, err := r.bus.Subscribe("*", func(_ context.Context, m bus.Message) {
		r.mu.Lock()
		r.msgs = append(r.msgs, m)
		r.mu.Unlock()
	}, bus.WithQueue(4096, bus.Block))
	require.NoError(t, err)
	_, err = r.bus.Subscribe(pipeline.TopicHandle, func(ctx context.Context, m bus.Message) {
		_ = r.bus.Publish(ctx, m.Forward(pipeline.TopicHandled, map[string]any{}))
	})
	require.NoError(t, err)
	return r
}

func (r *robotBus) of(topic string) []bus.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []bus.Message
	for _, m := range r.msgs {
		if topic == "" || m.Type == topic {
			out = append(out, m)
		}
	}
	return out
}

// hear runs a bus listener over src until it ends, with the wake button
// "wake".
func hear(t *testing.T, r *robotBus, src audio.Source, asr audio.Recognizer, chain *transform.Chain) {
	t.Helper()
	bl, err := newBusListener(r.bus, listen.Config{Source: src, Recognizer: asr, Chain: chain, Sync: true, Lang: "en-US"}, []string{"wake"})
	require.NoError(t, err)
	require.NoError(t, bl.Run(context.Background()))
	synctest.Wait()
}

// A command heard goes to the pipeline as ovos.utterance.handle from the
// source "audio" (PIPE-01: data {utterances, lang}), tied to its input,
// with the recogniser's confidence (intent.ContextASR) and the audio
// transformers that changed it (TRF-03) in its context; the listener's
// events come before it, in order.
func TestListenerOnTheBus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobotBus(t)
		defer r.bus.Close(context.Background())
		g, err := transform.NewGain(6)
		require.NoError(t, err)
		chain, err := transform.New(transform.Config{Transformers: []transform.Transformer{&transform.DCBlock{}, g}})
		require.NoError(t, err)
		hear(t, r, audio.NewClipSource(speech(800*time.Millisecond), false), &scripted{texts: []string{"hey jibo hello"}}, chain)

		h := r.of(pipeline.TopicHandle)
		require.Len(t, h, 1)
		assert.Equal(t, map[string]any{"utterances": []any{"hello"}, "lang": "en-US"}, h[0].Data)
		assert.Equal(t, "audio", h[0].Context[bus.KeySource])
		assert.Equal(t, "audio-1", h[0].Context[console.KeyInput])
		assert.Equal(t, []any{"dc-block", "gain"}, h[0].Context[transform.KeyIDs], "TRF-03")
		assert.Equal(t, map[string]any{"scores": []any{0.9}, "pass": "grammar"}, h[0].Context[intent.ContextASR],
			"the recogniser's confidence per hypothesis, for the intent stack to combine with its own")
		var order []string
		for _, m := range r.of("") {
			switch m.Type {
			case listen.TopicSpeechStart, listen.TopicSpeechEnd, listen.TopicRecognized, listen.TopicWake, pipeline.TopicHandle:
				order = append(order, m.Type)
				assert.Equal(t, "audio", m.Context[bus.KeySource], m.Type)
			}
		}
		assert.Equal(t, []string{listen.TopicSpeechStart, listen.TopicSpeechEnd, listen.TopicRecognized, listen.TopicWake, pipeline.TopicHandle}, order)
	})
}

// What the robot does on the bus reaches the listener: the wake button
// and the shell's request open the window (another button does not); a
// skill's question (ovos.utterance.speak with listen) opens it for the
// answer; the wake phrase said while the speaker talks stops the robot
// with the global stop.
func TestListenerFollowsTheBus(t *testing.T) {
	tests := []struct {
		name     string
		topic    string
		data     map[string]any
		texts    []string
		commands int
		wakes    []string
		stops    int
	}{
		{name: "the wake button", topic: "jibo.body.button.wake.press", texts: []string{"what time is it"}, commands: 1, wakes: []string{listen.SourceButton}},
		{name: "another button", topic: "jibo.body.button.stop.press", texts: []string{"what time is it"}},
		{name: "the shell's request", topic: TopicWakeRequest, texts: []string{"what time is it"}, commands: 1, wakes: []string{listen.SourceShell}},
		{name: "a question", topic: pipeline.TopicSpeak, data: map[string]any{"utterance": "for how long?", "listen": true}, texts: []string{"five minutes"}, commands: 1},
		{name: "words without a question", topic: pipeline.TopicSpeak, data: map[string]any{"utterance": "hello"}, texts: []string{"five minutes"}},
		{name: "barge-in", topic: TopicSpeakerSay, texts: []string{"hey jibo"}, wakes: []string{listen.SourceVoice}, stops: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRobotBus(t)
				defer r.bus.Close(context.Background())
				src := &hooked{pcm: speech(600 * time.Millisecond), at: samplesOf(500 * time.Millisecond), hook: func() {
					require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(tc.topic, tc.data)))
				}}
				hear(t, r, src, &scripted{texts: tc.texts}, nil)
				assert.Len(t, r.of(pipeline.TopicHandle), tc.commands)
				var wakes []string
				for _, m := range r.of(listen.TopicWake) {
					wakes = append(wakes, m.DataString("source"))
				}
				assert.Equal(t, tc.wakes, wakes)
				assert.Len(t, r.of(pipeline.TopicStop), tc.stops)
			})
		})
	}
}

// TRF-10: the listener's wiring answers the list of the loaded audio
// transformers, in reply to the request.
func TestListenerAnswersTheTransformerList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobotBus(t)
		defer r.bus.Close(context.Background())
		chain, err := transform.New(transform.Config{Transformers: []transform.Transformer{&transform.DCBlock{}}})
		require.NoError(t, err)
		src := &hooked{pcm: make([]int16, audio.SampleRate), at: samplesOf(100 * time.Millisecond), hook: func() {
			require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(transform.TopicList, nil)))
		}}
		hear(t, r, src, &scripted{}, chain)
		resp := r.of(transform.TopicListResp)
		require.Len(t, resp, 1, "TRF-10")
		assert.Equal(t, []any{"dc-block"}, resp[0].Data["loaded"])
		assert.Equal(t, map[string]any{"dc-block": int64(10)}, resp[0].Data["priorities"])
	})
}

// Wake buttons must name a topic; there is a bus to listen on.
func TestBusListenerValidates(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	cfg := listen.Config{Source: audio.NewNullSource(), Recognizer: &scripted{}}
	for _, buttons := range [][]string{{"a.b"}, {"a b"}, make([]string, maxWakeButtons+1)} {
		_, err := newBusListener(b, cfg, buttons)
		assert.Error(t, err, "%q", buttons)
	}
	_, err := newBusListener(nil, cfg, nil)
	assert.ErrorContains(t, err, "no bus")
	_, err = newBusListener(b, cfg, []string{"wake", "head"})
	assert.NoError(t, err)
}
