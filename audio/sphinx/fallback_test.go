//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/ngram"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fallbackLM is testLM's grammar with a domain language model that also
// holds wordings the grammar lacks ("what is the time"), searched only
// where the grammar's sentence is refused.
func fallbackLM(t *testing.T) testLM {
	t.Helper()
	lm := newTestLM(t, ModelFallback)
	var c ngram.Corpus
	for i, s := range []string{"what time is it", "tell me the time", "what is the time", "how are you", "whats the date"} {
		c.Sentences = append(c.Sentences, ngram.Sentence{Tokens: strings.Fields(s), Group: i})
	}
	open, err := OpenWords(1000)
	require.NoError(t, err)
	m, err := ngram.Build(c, ngram.Options{Open: open, OpenWeight: 0.3})
	require.NoError(t, err)
	var sb strings.Builder
	require.NoError(t, m.WriteARPA(&sb))
	lm.arpa, lm.words = sb.String(), m.Words()
	return lm
}

// timeToo understands commandsOnly's commands and the other wordings of
// the time the fallback's model holds.
func timeToo(ctx context.Context, text string) (Meaning, error) {
	if text == "tell me the time" || text == "what is the time" {
		return Meaning{Intent: "clock:time", Confidence: 0.97, Parsed: true}, nil
	}
	return commandsOnly(ctx, text)
}

// noisy is pcm over white noise of the given RMS, the same on every run.
func noisy(pcm []int16, rms float64, seed uint64) []int16 {
	rng := rand.New(rand.NewPCG(seed, 1))
	lead := make([]int16, audio.SampleRate/2)
	out := append(lead, pcm...)
	out = append(out, make([]int16, audio.SampleRate/2)...)
	for i := range out {
		out[i] = int16(max(-32768, min(32767, float64(out[i])+rng.NormFloat64()*rms)))
	}
	return out
}

// TestFallbackHearsWhatTheGrammarLacks is issue 24's "paraphrases
// heard": a wording the grammar does not hold, which the grammar refuses,
// is transcribed by the domain language model and acted on, marked open,
// because an intent claims it surely; speech no intent claims is still
// refused, and what the grammar accepts is as before.
func TestFallbackHearsWhatTheGrammarLacks(t *testing.T) {
	lm := fallbackLM(t)
	floors := Config{MinConfidence: 0.8, MinCoverage: 0.8}
	plainCfg, fbCfg := floors, floors
	plainCfg.Grammar = lm.Grammar
	fbCfg.Grammar, fbCfg.Understand = lm, timeToo
	plain := newTestRecognizer(t, plainCfg)
	r := newTestRecognizer(t, fbCfg)

	// A robot has heard something before: the front end's noise
	// estimate goes on from it.
	for _, rec := range []*Recognizer{plain, r} {
		_, err := rec.Recognize(context.Background(), speak(t, "how are you"))
		require.NoError(t, err)
	}
	pcm := speak(t, "what is the time")
	h, err := plain.Recognize(context.Background(), pcm)
	require.NoError(t, err)
	require.Empty(t, h, "the grammar alone refuses it")
	h, v, err := r.RecognizeVerdict(context.Background(), pcm)
	require.NoError(t, err)
	require.Len(t, h, 1, "verdict %+v", v)
	assert.Equal(t, "what is the time", h[0].Text)
	assert.True(t, h[0].Open, "a transcript, not a grammar sentence")
	assert.Equal(t, "acted", v.Fallback)
	assert.Equal(t, "clock:time", v.Claim)
	assert.NotEmpty(t, v.Dropped, "the grammar's sentence was refused first")

	for _, say := range []string{"she told me a story about her grandmother who lived on a farm", "the train leaves at half past nine"} {
		h, v, err := r.RecognizeVerdict(context.Background(), speak(t, say))
		require.NoError(t, err)
		assert.Empty(t, h, "%q heard as %v (%+v)", say, h, v)
	}
	for _, say := range []string{"what time is it", "set a timer for twenty seconds", "how are you"} {
		h, v, err := r.RecognizeVerdict(context.Background(), speak(t, say))
		require.NoError(t, err)
		assert.Equal(t, say, best(h))
		assert.Empty(t, v.Fallback, "the grammar's sentence taken: no fallback")
	}
}

// TestFallbackLeavesTheDecoderAsItWas: the fallback searches the
// features the grammar's search computed, so the front end's noise
// estimate, which goes on from one utterance to the next, is what it
// would have been without it: every utterance after a refused one is
// decoded exactly as by a recogniser without the fallback.
func TestFallbackLeavesTheDecoderAsItWas(t *testing.T) {
	lm := fallbackLM(t)
	plain := newTestRecognizer(t, Config{Grammar: lm.Grammar, MinConfidence: 0.8, MinCoverage: 0.8})
	r := newTestRecognizer(t, Config{Grammar: lm, Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8})
	utterances := [][]int16{
		noisy(speak(t, "tell me the time"), 300, 1),
		noisy(speak(t, "what time is it"), 30, 2),
		noisy(speak(t, "she told me a story about her grandmother"), 900, 3),
		noisy(speak(t, "set a timer for five minutes"), 200, 4),
		noisy(speak(t, "how are you"), 600, 5),
	}
	fallbacks := 0
	for i, pcm := range utterances {
		hp, vp, err := plain.RecognizeVerdict(context.Background(), pcm)
		require.NoError(t, err)
		hf, vf, err := r.RecognizeVerdict(context.Background(), pcm)
		require.NoError(t, err)
		if vf.Fallback != "" {
			fallbacks++
			continue
		}
		assert.Equal(t, hp, hf, "utterance %d", i)
		assert.Equal(t, vp, vf, "utterance %d: the same search, the same scores", i)
	}
	assert.Positive(t, fallbacks, "the fallback ran")
}

// A fallback language model without the intent engines to decide on its
// transcripts is refused.
func TestFallbackNeedsTheIntentEngines(t *testing.T) {
	r, err := New(context.Background(), Config{Grammar: fallbackLM(t)})
	if err == nil {
		r.Close()
	}
	assert.ErrorContains(t, err, "needs the intent engines")
}

// TestValuesConfidence: the slots' words are rated as the whole
// alignment is, over their own frames only, and a value the alignment
// does not say rates nothing.
func TestValuesConfidence(t *testing.T) {
	segs := []segment{
		{word: "<sil>", start: 0, end: 9, ascr: -9000},
		{word: "set", start: 10, end: 19, ascr: -1000},
		{word: "a", start: 20, end: 24, ascr: -500},
		{word: "timer", start: 25, end: 39, ascr: -1500},
		{word: "for", start: 40, end: 44, ascr: -500},
		{word: "seven", start: 45, end: 64, ascr: -200},
		{word: "minutes(2)", start: 65, end: 84, ascr: -200},
	}
	_, want := confidence(segs[5:])
	tests := []struct {
		slots map[string]string
		want  float64
	}{
		{map[string]string{"duration": "seven minutes"}, want},
		{map[string]string{"duration": "eight minutes"}, 0},
		{map[string]string{"duration": "seven minutes", "label": "lunch"}, 0},
		{map[string]string{"number": "seven", "unit": "minutes"}, want},
		{map[string]string{"a": "seven", "b": "seven"}, 0}, // one "seven" cannot say two slots
		{map[string]string{"a": "seven", "b": "seven minutes"}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, valuesConfidence(segs, tt.slots), 1e-9, "%q", tt.slots)
	}
	// Said twice, each slot takes its own: the longer value first, so
	// the value inside it does not take its words.
	twice := append(slices.Clone(segs), segment{word: "and", start: 85, end: 89, ascr: -300}, segment{word: "seven", start: 90, end: 109, ascr: -200})
	_, both := confidence([]segment{twice[5], twice[6], twice[8]})
	assert.InDelta(t, both, valuesConfidence(twice, map[string]string{"a": "seven", "b": "seven minutes"}), 1e-9)
	assert.InDelta(t, both, valuesConfidence(twice, map[string]string{"b": "seven", "a": "seven minutes"}), 1e-9)
	assert.Greater(t, want, 0.9, "the slot's words scored well")
	_, whole := confidence(segs)
	assert.Less(t, whole, want, "the other words scored worse")
}

// slottedGrammar is a grammar that gives an intent's own sentences.
type slottedGrammar struct{ Grammar }

func (slottedGrammar) SlotIntents() []string { return []string{"timer:set", "gone:away"} }
func (slottedGrammar) IntentJSGF(intent string) (string, bool) {
	if intent != "timer:set" {
		return "", false
	}
	return "#JSGF V1.0;\ngrammar t;\npublic <u> = set a timer for (five | ten) minutes;\n", true
}

// TestSlotGrammars: each intent with slots gets its own grammar,
// compiled to the decoder's automaton; a grammar that cannot give them
// gives none.
func TestSlotGrammars(t *testing.T) {
	got := slotGrammars(slottedGrammar{JSGF("")})
	require.Len(t, got, 1)
	require.NotNil(t, got["timer:set"].fsg)
	assert.ElementsMatch(t, []string{"set", "a", "timer", "for", "five", "ten", "minutes"}, got["timer:set"].fsg.words())
	got = slotGrammars(JSGF("#JSGF V1.0;\ngrammar t;\npublic <u> = hello;\n"))
	assert.Empty(t, got)
}

// TestVerdictNamesTheSearches: the verdict lists the searches an
// utterance went through, which is what it cost (jibod audio eval's
// searches): the grammar's alone where its sentence is taken, the
// fallback's after it where the sentence is refused, and none of the
// fallback's where the utterance is longer than it transcribes.
func TestVerdictNamesTheSearches(t *testing.T) {
	lm := fallbackLM(t)
	r := newTestRecognizer(t, Config{Grammar: lm, Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8})
	_, v, err := r.RecognizeVerdict(context.Background(), speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Equal(t, []string{searchName}, v.Searches)
	assert.Positive(t, v.Decoded)

	h, v, err := r.RecognizeVerdict(context.Background(), speak(t, "what is the time"))
	require.NoError(t, err)
	require.Len(t, h, 1, "verdict %+v", v)
	require.NotEmpty(t, v.Searches)
	assert.Equal(t, searchName, v.Searches[0], "the grammar first")
	assert.Equal(t, fallbackName, v.Searches[len(v.Searches)-1], "then the fallback")

	fb := DefaultFallback
	fb.MaxAudio = 100 * time.Millisecond
	short := newTestRecognizer(t, Config{Grammar: lm, Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8, Fallback: &fb})
	h, v, err = short.RecognizeVerdict(context.Background(), speak(t, "what is the time"))
	require.NoError(t, err)
	assert.Empty(t, h)
	assert.Equal(t, "too long", v.Fallback)
	assert.NotContains(t, v.Searches, fallbackName, "not transcribed: longer than the fallback takes")
}

// TestFallbackReadsItsNBest: with Fallback.NBest the fallback records
// its next distinct transcripts in the verdict (for measuring), and with
// its own language weight and insertion penalty it searches as told;
// what it acts on is still its best transcript's.
func TestFallbackReadsItsNBest(t *testing.T) {
	lm := fallbackLM(t)
	pcm := speak(t, "what is the time")
	for _, fb := range []Fallback{
		func() Fallback { f := DefaultFallback; f.NBest = 5; return f }(),
		func() Fallback {
			f := DefaultFallback
			f.NBest = 5
			f.LanguageWeight, f.InsertionPenalty = 10, 0.65
			return f
		}(),
	} {
		cfg := Config{MinConfidence: 0.8, MinCoverage: 0.8, Grammar: lm, Understand: timeToo, Fallback: &fb}
		r := newTestRecognizer(t, cfg)
		_, err := r.Recognize(context.Background(), speak(t, "how are you"))
		require.NoError(t, err)
		h, v, err := r.RecognizeVerdict(context.Background(), pcm)
		require.NoError(t, err)
		require.Len(t, h, 1, "verdict %+v", v)
		assert.Equal(t, "what is the time", h[0].Text)
		assert.Equal(t, "acted", v.Fallback)
		require.NotEmpty(t, v.Transcripts, "the lattice's other transcripts")
		assert.LessOrEqual(t, len(v.Transcripts), fb.NBest-1)
		assert.Len(t, v.TranscriptMargins, len(v.Transcripts))
		assert.NotContains(t, v.Transcripts, v.Transcript, "distinct from the best")
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(v.Transcripts))), len(v.Transcripts), "distinct")
	}
}

// TestFallbackRivalCheck: with the rival check on, a claim is acted on
// only when the best transcript of another meaning in the fallback's
// n-best list scores the margin per frame under the list's first; with a
// margin no rival can reach the claim is refused ("rival") and the rival
// recorded, and with a negative margin it is measured and acted on. The
// n-best transcripts and the rival are measured on one scale, from the
// list's first: a rival among the transcripts has the same margin in
// both.
func TestFallbackRivalCheck(t *testing.T) {
	lm := fallbackLM(t)
	pcm := speak(t, "what is the time")
	for _, tt := range []struct {
		margin float64
		want   string
	}{
		{MaxRivalMargin, "rival"},
		{-1, "acted"},
	} {
		t.Run(fmt.Sprint(tt.margin), func(t *testing.T) {
			fb := DefaultFallback
			fb.RivalMargin, fb.NBest = tt.margin, 8
			r := newTestRecognizer(t, Config{MinConfidence: 0.8, MinCoverage: 0.8, Grammar: lm, Understand: timeToo, Fallback: &fb})
			_, err := r.Recognize(context.Background(), speak(t, "how are you"))
			require.NoError(t, err)
			h, v, err := r.RecognizeVerdict(context.Background(), pcm)
			require.NoError(t, err)
			assert.Equal(t, tt.want, v.Fallback, "verdict %+v", v)
			if tt.want == "rival" {
				assert.Empty(t, h, "a refused claim is not acted on")
			} else {
				require.Len(t, h, 1)
				assert.Equal(t, "what is the time", h[0].Text)
			}
			assert.Equal(t, "clock:time", v.Claim)
			assert.NotEmpty(t, v.TranscriptWords)
			require.NotNil(t, v.TranscriptRivalMargin, "measured")
			assert.GreaterOrEqual(t, *v.TranscriptRivalMargin, 0.0)
			assert.NotEqual(t, v.Transcript, v.TranscriptRival)
			require.NotEmpty(t, v.TranscriptRival, "a transcript of another meaning in the list")
			assert.True(t, slices.IsSorted(v.TranscriptMargins), "best first: %v", v.TranscriptMargins)
			if i := slices.Index(v.Transcripts, v.TranscriptRival); i >= 0 {
				assert.InDelta(t, *v.TranscriptRivalMargin, v.TranscriptMargins[i], 1e-9, "one scale")
			}
		})
	}
}

func TestFallbackCheck(t *testing.T) {
	with := func(change func(*Fallback)) Fallback { f := DefaultFallback; change(&f); return f }
	tests := []struct {
		name string
		f    Fallback
		err  string
	}{
		{"the default", DefaultFallback, ""},
		{"a floor after the garbage path", with(func(f *Fallback) { f.GarbageConfidence = 0.85 }), ""},
		{"the floor after the garbage path over 1", with(func(f *Fallback) { f.GarbageConfidence = 1.5 }), "after the garbage path"},
		{"the floor after the garbage path NaN", with(func(f *Fallback) { f.GarbageConfidence = math.NaN() }), "after the garbage path"},
		{"a rival margin", with(func(f *Fallback) { f.RivalMargin = 2 }), ""},
		{"measuring rivals", with(func(f *Fallback) { f.RivalMargin = -1 }), ""},
		{"a rival margin too wide", with(func(f *Fallback) { f.RivalMargin = MaxRivalMargin + 1 }), "rival margin"},
		{"a rival margin NaN", with(func(f *Fallback) { f.RivalMargin = math.NaN() }), "rival margin"},
		{"rivals read without a margin", with(func(f *Fallback) { f.Rivals = 0 }), ""},
		{"one rival read", with(func(f *Fallback) { f.RivalMargin, f.Rivals = 1, 1 }), "rivals"},
		{"too many rivals read", with(func(f *Fallback) { f.RivalMargin, f.Rivals = 1, MaxRivals+1 }), "rivals"},
		{"language weight and penalty", with(func(f *Fallback) { f.LanguageWeight, f.InsertionPenalty = 10, 0.2 }), ""},
		{"n-best", with(func(f *Fallback) { f.NBest = MaxNBest }), ""},
		{"no agreement", with(func(f *Fallback) { f.AgreedTail = 0 }), ""},
		{"agreement over a long tail", with(func(f *Fallback) { f.AgreedTail = MaxAgreedTail }), ""},
		{"agreement over too long a tail", with(func(f *Fallback) { f.AgreedTail = MaxAgreedTail + 1 }), "filler words"},
		{"agreement over a negative tail", with(func(f *Fallback) { f.AgreedTail = -1 }), "filler words"},
		{"claim over 1", with(func(f *Fallback) { f.Claim = 1.5 }), "not all in [0, 1]"},
		{"beam 0", with(func(f *Fallback) { f.Beam = 0 }), "beams"},
		{"few HMMs", with(func(f *Fallback) { f.MaxHMMs = 10 }), "HMMs"},
		{"negative language weight", with(func(f *Fallback) { f.LanguageWeight = -1 }), "language weight"},
		{"huge penalty", with(func(f *Fallback) { f.InsertionPenalty = 1000 }), "insertion penalty"},
		{"penalty over 1, not a probability", with(func(f *Fallback) { f.InsertionPenalty = 1.5 }), "insertion penalty"},
		{"n-best too many", with(func(f *Fallback) { f.NBest = MaxNBest + 1 }), "n-best"},
		{"no audio", with(func(f *Fallback) { f.MaxAudio = 0 }), "longest utterance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Check()
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

// TestFallbackAgreement is the agreement rule's table (Recognizer.agreed):
// where the garbage path refused a sentence of the grammar only for a
// few filler words after it, and the fallback's transcript, over its
// floors, means what that sentence means, the sentence is heard;
// anything less leaves the refusal standing.
func TestFallbackAgreement(t *testing.T) {
	grammar := map[string]bool{"whats the date": true, "delete it": true, "set the volume to three": true, "delete that timer": true,
		"cancel that timer": true, "what time is it": true}
	vocab := map[string][]string{
		"clock:date":   {"what", "whats", "day", "date", "is", "it", "the", "today"},
		"clock:time":   {"what", "whats", "time", "is", "it", "the"},
		"timer:cancel": {"cancel", "delete", "it", "that", "the", "timer"},
	}
	meanings := map[string]Meaning{
		"whats the date":                  {Intent: "clock:date", Confidence: 1, Parsed: true},
		"what the date day":               {Intent: "clock:date", Confidence: 0.7},
		"whats the date today":            {Intent: "clock:date", Confidence: 1, Parsed: true},
		"delete it":                       {Intent: "timer:cancel", Confidence: 1, Parsed: true},
		"delete the timer":                {Intent: "timer:cancel", Confidence: 0.55},
		"delete that timer":               {Intent: "timer:cancel", Confidence: 1, Parsed: true},
		"tell me the time":                {Intent: "clock:time", Confidence: 1, Parsed: true},
		"set the volume to three":         {Intent: "volume:set", Confidence: 1, Parsed: true, Slots: map[string]string{"level": "three"}},
		"set the volume that to three":    {Intent: "volume:set", Confidence: 0.8, Slots: map[string]string{"level": "three"}},
		"set the volume that to one":      {Intent: "volume:set", Confidence: 0.8, Slots: map[string]string{"level": "one"}},
		"what day":                        {Intent: "clock:date", Confidence: 0.7},
		"whats the":                       {Intent: "clock:date", Confidence: 0.6},
		"cancel that timer":               {Intent: "timer:cancel", Confidence: 1, Parsed: true},
		"cancel that timer know":          {Intent: "timer:cancel", Confidence: 0.8},
		"cancel the timer that":           {Intent: "timer:cancel", Confidence: 0.8},
		"cancel that timer now":           {Intent: "timer:cancel", Confidence: 0.95, Parsed: true},
		"what time is it":                 {Intent: "clock:time", Confidence: 1, Parsed: true},
		"what time is it eleven":          {Intent: "clock:time", Confidence: 0.8},
		"set the volume to three or four": {Intent: "volume:set", Confidence: 0.8, Slots: map[string]string{"level": "three"}},
		"set the volume to three please":  {Intent: "volume:set", Confidence: 1, Parsed: true, Slots: map[string]string{"level": "three"}},
	}
	understand := func(_ context.Context, text string) (Meaning, error) { return meanings[text], nil }
	intentWords := func(intent string) ([]string, bool) { w, ok := vocab[intent]; return w, ok }
	g := search{accepts: func(s string) bool { return grammar[s] }, prons: map[string][]string{}, intentWords: intentWords}
	tests := []struct {
		name       string
		sentence   string // the grammar's search's, as the verdict has it
		dropped    string
		transcript string
		conf       float64
		tail       int // Fallback.AgreedTail
		want       string
	}{
		{"a filler word after the sentence, the transcript a guess of its intent", "whats the date =they", "garbage", "what the date day", 0.98, 2, "whats the date"},
		{"two filler words", "whats the date =they =if", "garbage", "what the date day", 0.9, 2, "whats the date"},
		{"the transcript a parse of its intent", "whats the date =they", "garbage", "whats the date today", 0.9, 2, "whats the date"},
		{"three filler words: speech went on", "whats the date =it's =the =they", "garbage", "what the date day", 0.98, 2, ""},
		{"three filler words, three allowed", "whats the date =it's =the =they", "garbage", "what the date day", 0.98, 3, "whats the date"},
		{"the rule off", "whats the date =they", "garbage", "what the date day", 0.98, 0, ""},
		{"the transcript means another intent", "delete it =i'm", "garbage", "tell me the time", 0.95, 2, ""},
		// A claim that binds slots is left to the slots' own search
		// (Recognizer.slotted), which honours KeepSlots, SlotGuesses and
		// the slots' words' floor.
		{"a guess that binds slots, the same values", "set the volume to three =would", "garbage", "set the volume that to three", 0.9, 2, ""},
		{"a guess that binds slots, other values", "set the volume to three =would", "garbage", "set the volume that to one", 0.9, 2, ""},
		{"a parse that binds slots", "set the volume to three =please", "garbage", "set the volume to three please", 0.9, 2, ""},
		{"set the volume to three or four: a guess of three", "set the volume to three =or =four", "garbage", "set the volume to three or four", 0.9, 2, ""},
		// A guess's words beyond the sentence's must be its intent's own.
		{"cancel that timer, no: a guess with a word not the intent's", "cancel that timer =it =know", "garbage", "cancel that timer know", 0.95, 2, ""},
		{"what time is it in london: a guess with a word not the intent's", "what time is it =in =done", "garbage", "what time is it eleven", 0.95, 2, ""},
		{"a guess whose other words are the intent's", "cancel that timer =it", "garbage", "cancel the timer that", 0.95, 2, "cancel that timer"},
		{"a parse with a word not the intent's agrees", "cancel that timer =now", "garbage", "cancel that timer now", 0.95, 2, "cancel that timer"},
		{"the words before the fillers no sentence of the grammar", "whats the =date", "garbage", "what the date day", 0.98, 2, ""},
		{"the words before the fillers a guess", "what day =is =it", "garbage", "what the date day", 0.98, 2, ""},
		{"filler words alone", "=do =we", "garbage", "what the date day", 0.98, 2, ""},
		{"filler words before the sentence", "=the whats the date", "garbage", "what the date day", 0.98, 2, ""},
		{"no filler words: refused by the floors, not the garbage path", "whats the date", "floors", "what the date day", 0.98, 2, ""},
		{"a claim under the claim floor", "delete it =i'm", "garbage", "delete the timer", 0.86, 2, ""},
		{"a claim at the claim floor", "delete it =i'm", "garbage", "delete the timer", 0.92, 2, "delete it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := DefaultFallback
			fb.AgreedTail = tt.tail
			r := &Recognizer{cfg: Config{Fallback: &fb, Understand: understand}, log: slog.New(slog.DiscardHandler)}
			v := audio.Verdict{Sentence: tt.sentence, Dropped: tt.dropped, Transcript: tt.transcript}
			got, err := r.agreed(context.Background(), g, &v, meanings[tt.transcript], tt.conf)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("a grammar that cannot say an intent's words: a guess never agrees", func(t *testing.T) {
		fb := DefaultFallback
		r := &Recognizer{cfg: Config{Fallback: &fb, Understand: understand}, log: slog.New(slog.DiscardHandler)}
		bare := search{accepts: g.accepts, prons: g.prons}
		v := audio.Verdict{Sentence: "whats the date =they", Dropped: "garbage", Transcript: "what the date day"}
		got, err := r.agreed(context.Background(), bare, &v, meanings[v.Transcript], 0.98)
		require.NoError(t, err)
		assert.Empty(t, got)
		v.Transcript = "whats the date today"
		got, err = r.agreed(context.Background(), bare, &v, meanings[v.Transcript], 0.98)
		require.NoError(t, err)
		assert.Equal(t, "whats the date", got, "a parse still agrees")
	})
}
