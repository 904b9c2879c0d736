package transform

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fake is a scriptable transformer.
type fake struct {
	id   string
	prio int
	fn   func(in Chunk) (Chunk, error)
	seen [][]int16
}

func (f *fake) ID() string    { return f.id }
func (f *fake) Priority() int { return f.prio }
func (f *fake) TransformAudio(_ context.Context, in Chunk) (Chunk, error) {
	f.seen = append(f.seen, append([]int16(nil), in.PCM...))
	if f.fn == nil {
		return in, nil
	}
	return f.fn(in)
}

func add(k int16) func(Chunk) (Chunk, error) {
	return func(in Chunk) (Chunk, error) {
		for i := range in.PCM {
			in.PCM[i] += k
		}
		return in, nil
	}
}

// many makes n pass-through transformers with distinct ids.
func many(n int) []Transformer {
	ts := make([]Transformer, n)
	for i := range ts {
		ts[i] = &fake{id: fmt.Sprintf("t%d", i)}
	}
	return ts
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		err  string
	}{
		{"TRF-01 empty id", Config{Transformers: []Transformer{&fake{id: ""}}}, "TRF-01"},
		{"TRF-01 colon in id", Config{Transformers: []Transformer{&fake{id: "a:b"}}}, "TRF-01"},
		{"TRF-01 duplicate id", Config{Transformers: []Transformer{&fake{id: "a"}, &fake{id: "a"}}}, "loaded twice"},
		{"nil transformer", Config{Transformers: []Transformer{nil}}, "nil"},
		{"TRF-08 order names unknown", Config{Transformers: []Transformer{&fake{id: "a"}}, Order: []string{"b"}}, "not loaded"},
		{"TRF-08 order names twice", Config{Transformers: []Transformer{&fake{id: "a"}}, Order: []string{"a", "a"}}, "twice"},
		{"TRF-01 the wiring's id rule", Config{Transformers: []Transformer{&fake{id: "a b"}},
			ValidateID: func(id string) error { return fmt.Errorf("transformer id %q: not topic syntax (TRF-01)", id) }},
			`audio chain: transformer id "a b": not topic syntax`},
		{"too many", Config{Transformers: many(MaxTransformers + 1)}, "65 transformers, limit 64"},
	}
	for _, tc := range tests {
		_, err := New(tc.cfg)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.err, tc.name)
	}
}

func TestOrderAndComposition(t *testing.T) {
	mk := func() []Transformer {
		return []Transformer{&fake{id: "late", prio: 100}, &fake{id: "b", prio: 50}, &fake{id: "a", prio: 50}, &fake{id: "early", prio: 1}}
	}
	tests := []struct {
		name       string
		order      []string
		pref, deny []string
		want       []string
	}{
		{name: "TRF-08 ascending priority, ties stable by id", want: []string{"early", "a", "b", "late"}},
		{name: "TRF-08 deployer order overrides and omits", order: []string{"late", "a"}, want: []string{"late", "a"}},
		{name: "TRF-09 session preference", pref: []string{"b", "early", "nope", "b"}, want: []string{"b", "early"}},
		{name: "TRF-09 blacklist is policy", pref: []string{"b", "early"}, deny: []string{"early"}, want: []string{"b"}},
		{name: "TRF-09 blacklist over default order", deny: []string{"a", "late"}, want: []string{"early", "b"}},
		{name: "TRF-09 all dropped runs nothing", deny: []string{"a", "b", "early", "late"}, want: nil},
	}
	for _, tc := range tests {
		c, err := New(Config{Transformers: mk(), Order: tc.order})
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, c.Compose(tc.pref, tc.deny).IDs(), tc.name)
	}
	c, err := New(Config{Transformers: mk()})
	require.NoError(t, err)
	loaded, prios := c.List()
	assert.Equal(t, []string{"early", "a", "b", "late"}, loaded, "TRF-10")
	assert.Equal(t, map[string]int{"early": 1, "a": 50, "b": 50, "late": 100}, prios, "TRF-10")
}

func TestProcess(t *testing.T) {
	ctx := context.Background()
	in := []int16{1, 2, 3}
	tests := []struct {
		name     string
		ts       []*fake
		wantPCM  []int16
		wantLang string
		changed  []string
		cancel   *Cancel
	}{
		{name: "TRF-02 every transformer runs, each output feeds the next",
			ts:      []*fake{{id: "one", prio: 1, fn: add(10)}, {id: "two", prio: 2, fn: add(100)}},
			wantPCM: []int16{111, 112, 113}, wantLang: "en-US", changed: []string{"one", "two"}},
		{name: "TRF-03 a pass-through appends nothing",
			ts:      []*fake{{id: "noop", prio: 1}, {id: "two", prio: 2, fn: add(1)}},
			wantPCM: []int16{2, 3, 4}, wantLang: "en-US", changed: []string{"two"}},
		{name: "TRF-04 lang is threaded",
			ts: []*fake{{id: "detect", prio: 1, fn: func(c Chunk) (Chunk, error) { c.Lang = "de-DE"; return c, nil }},
				{id: "check", prio: 2, fn: func(c Chunk) (Chunk, error) {
					if c.Lang != "de-DE" {
						return c, errors.New("lang not threaded")
					}
					c.PCM[0] = 9
					return c, nil
				}}},
			wantPCM: []int16{9, 2, 3}, wantLang: "de-DE", changed: []string{"check"}},
		{name: "TRF-11 an error keeps the input",
			ts:      []*fake{{id: "bad", prio: 1, fn: func(c Chunk) (Chunk, error) { c.PCM[0] = 99; c.Lang = "xx"; return c, errors.New("boom") }}, {id: "ok", prio: 2, fn: add(1)}},
			wantPCM: []int16{2, 3, 4}, wantLang: "en-US", changed: []string{"ok"}},
		{name: "TRF-11 a panic keeps the input",
			ts:      []*fake{{id: "bad", prio: 1, fn: func(Chunk) (Chunk, error) { panic("oops") }}},
			wantPCM: []int16{1, 2, 3}, wantLang: "en-US"},
		{name: "TRF-11 wrong-shaped output keeps the input",
			ts:      []*fake{{id: "bad", prio: 1, fn: func(c Chunk) (Chunk, error) { c.PCM = c.PCM[:1]; return c, nil }}},
			wantPCM: []int16{1, 2, 3}, wantLang: "en-US"},
		{name: "TRF-12 cancellation stops the chain and is stamped",
			ts: []*fake{{id: "gate", prio: 1, fn: func(c Chunk) (Chunk, error) {
				c.Context = map[string]any{KeyCanceled: true, KeyCancelReason: "transcription_invalid"}
				return c, nil
			}}, {id: "after", prio: 2, fn: add(1)}},
			wantPCM: []int16{1, 2, 3}, wantLang: "en-US", cancel: &Cancel{Reason: "transcription_invalid", By: "gate"}},
		{name: "TRF-12 one key alone is ignored as a shape violation",
			ts: []*fake{{id: "half", prio: 1, fn: func(c Chunk) (Chunk, error) {
				c.PCM[0] = 50
				c.Context = map[string]any{KeyCanceled: true}
				return c, nil
			}}},
			wantPCM: []int16{1, 2, 3}, wantLang: "en-US"},
	}
	for _, tc := range tests {
		var ts []Transformer
		for _, f := range tc.ts {
			ts = append(ts, f)
		}
		c, err := New(Config{Transformers: ts})
		require.NoError(t, err, tc.name)
		run := c.Compose(nil, nil)
		pcm := append([]int16(nil), in...)
		res := run.Process(ctx, pcm, "en-US")
		assert.Equal(t, tc.wantPCM, res.PCM, tc.name)
		assert.Equal(t, tc.wantLang, res.Lang, tc.name)
		assert.Equal(t, tc.changed, run.Changed(), tc.name)
		assert.Equal(t, tc.cancel, res.Cancel, tc.name)
		assert.Equal(t, in, pcm, "%s: the caller's buffer is never touched", tc.name)
		if tc.cancel != nil {
			assert.Empty(t, tc.ts[1].seen, "%s: TRF-12 stops the chain", tc.name)
		}
	}
}

func TestChangedIsOncePerWindow(t *testing.T) {
	a, b := &fake{id: "a", prio: 1, fn: add(1)}, &fake{id: "b", prio: 2, fn: add(1)}
	c, err := New(Config{Transformers: []Transformer{a, b}})
	require.NoError(t, err)
	run := c.Compose(nil, nil)
	for range 3 {
		run.Process(context.Background(), []int16{0}, "")
	}
	assert.Equal(t, []string{"a", "b"}, run.Changed(), "TRF-03: one append per execution window")
	run.Reset()
	assert.Empty(t, run.Changed())
}

func TestDCBlock(t *testing.T) {
	f := &DCBlock{}
	pcm := make([]int16, 16000)
	for i := range pcm {
		pcm[i] = 3000 + int16(1000*math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	out, err := f.TransformAudio(context.Background(), Chunk{PCM: pcm})
	require.NoError(t, err)
	var sum float64
	tail := out.PCM[8000:]
	for _, v := range tail {
		sum += float64(v)
	}
	assert.InDelta(t, 0, sum/float64(len(tail)), 20, "the offset is gone")
	var peak int16
	for _, v := range tail {
		peak = max(peak, v)
	}
	assert.InDelta(t, 1000, float64(peak), 30, "speech frequencies pass")
}

func TestGain(t *testing.T) {
	_, err := NewGain(41)
	require.Error(t, err)
	_, err = NewGain(math.NaN())
	require.Error(t, err)
	g, err := NewGain(20)
	require.NoError(t, err)
	out, err := g.TransformAudio(context.Background(), Chunk{PCM: []int16{100, -100, 5000, -5000}})
	require.NoError(t, err)
	assert.Equal(t, []int16{1000, -1000, 32767, -32768}, out.PCM)
}

func BenchmarkProcess(b *testing.B) {
	g, _ := NewGain(6)
	c, err := New(Config{Transformers: []Transformer{&DCBlock{}, g}})
	require.NoError(b, err)
	run := c.Compose(nil, nil)
	pcm := make([]int16, 320)
	for i := range pcm {
		pcm[i] = int16(i * 37)
	}
	b.ReportAllocs()
	for b.Loop() {
		run.Process(context.Background(), pcm, "")
	}
}
