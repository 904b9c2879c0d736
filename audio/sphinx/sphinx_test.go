//go:build sphinx

package sphinx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// speak synthesises text with espeak-ng and converts it to recognition
// PCM with sox (scripts/deps.sh installs both). sox's resampler filters
// what lies above 8 kHz; audio.ToRecognition's linear interpolation folds
// it back into the band, and recognition of espeak-ng's 22.05 kHz speech
// suffers.
func speak(t testing.TB, text string, args ...string) []int16 {
	t.Helper()
	for _, p := range []string{"espeak-ng", "sox"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is needed to synthesise test speech (scripts/deps.sh installs it)", p)
		}
	}
	dir := t.TempDir()
	raw, wav := filepath.Join(dir, "raw.wav"), filepath.Join(dir, "s.wav")
	out, err := exec.Command("espeak-ng", append(append([]string{"-v", "en-us"}, args...), "-w", raw, text)...).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command("sox", "-V1", "-D", raw, "-r", "16000", "-c", "1", "-b", "16", wav).CombinedOutput()
	require.NoError(t, err, string(out))
	f, err := os.Open(wav)
	require.NoError(t, err)
	defer f.Close()
	clip, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	require.Equal(t, audio.SampleRate, clip.Format.SampleRate)
	return audio.ToRecognition(clip)
}

// testGrammar is a small command grammar in the shape audio/grammar
// generates.
const testGrammar = `#JSGF V1.0;
grammar test;
public <utterance> = <wake> [<command>] | <command>;
<wake> = hey jibo;
<command> = what time is it | (set | start) a timer for <number> (minutes | seconds) | how are you | whats the date;
<number> = one | two | three | four | five | ten | twenty;
`

// sentences is a grammar accepting only the sentences it is told.
type sentences struct {
	text string
	ok   map[string]bool
}

func (s sentences) JSGF() string          { return s.text }
func (s sentences) Accepts(x string) bool { return s.ok[x] }

func newTestRecognizer(t testing.TB, cfg Config) *Recognizer {
	t.Helper()
	if cfg.Grammar == nil {
		cfg.Grammar = JSGF(testGrammar)
	}
	r, err := New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func best(h []audio.Hypothesis) string {
	if len(h) == 0 {
		return ""
	}
	return h[0].Text
}

func TestRecognizesCommands(t *testing.T) {
	r := newTestRecognizer(t, Config{NBest: 3})
	tests := []struct{ say, want string }{
		{"hey jibo, what time is it", "hey jibo what time is it"},
		{"what time is it", "what time is it"},
		{"hey jibo, set a timer for five minutes", "hey jibo set a timer for five minutes"},
		{"how are you", "how are you"},
		{"hey jibo", "hey jibo"},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			h, err := r.Recognize(context.Background(), speak(t, tt.say))
			require.NoError(t, err)
			require.NotEmpty(t, h)
			assert.Equal(t, tt.want, h[0].Text)
			for _, x := range h {
				assert.GreaterOrEqual(t, x.Confidence, 0.0)
				assert.LessOrEqual(t, x.Confidence, h[0].Confidence, "the best comes first")
			}
		})
	}
}

// TestWiderWordBeamRetry: when no path reaches the end of a sentence
// (here, a word beam of 0.5, so narrow that every path is pruned before
// its last word), the utterance is searched again with the wider word
// beam, and heard; speech that fits no sentence still gives nothing.
func TestWiderWordBeamRetry(t *testing.T) {
	var logs bytes.Buffer
	r := newTestRecognizer(t, Config{Args: []string{"-wbeam", "0.5"},
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	h, err := r.Recognize(context.Background(), speak(t, "hey jibo, set a timer for five minutes"))
	require.NoError(t, err)
	assert.Equal(t, "hey jibo set a timer for five minutes", best(h))
	assert.Contains(t, logs.String(), "searching again with a wider word beam", "the first search found no sentence")

	r = newTestRecognizer(t, Config{MinConfidence: 0.8, MinCoverage: 0.8, Args: []string{"-wbeam", "0.5"}})
	h, err = r.Recognize(context.Background(), speak(t, "she told me a story about her grandmother who lived on a farm"))
	require.NoError(t, err)
	assert.Empty(t, h)
}

// TestOutOfGrammar: speech that is no sentence of the grammar gives no
// hypothesis. The decoder forces it onto a sentence; its words then cover
// little of the speech, or fit it badly: the floors (jibod's) drop it.
func TestOutOfGrammar(t *testing.T) {
	r := newTestRecognizer(t, Config{MinConfidence: 0.8, MinCoverage: 0.8})
	for _, say := range []string{
		"she told me a story about her grandmother who lived on a farm",
		"the weather in paris is lovely this time of year",
	} {
		h, err := r.Recognize(context.Background(), speak(t, say))
		require.NoError(t, err)
		assert.Empty(t, h, "%q heard as %v", say, h)
	}
	h, err := r.Recognize(context.Background(), speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Equal(t, "what time is it", best(h), "a command still passes")
}

// TestAcceptanceModel: with the acceptance model deciding
// (JIBOD_SPHINX_ACCEPT=on), a command said plainly is acted on with a
// confidence the intent stack takes (0.8 or more), and everyday speech
// forced onto a sentence is refused; the verdict says what the model
// measured.
func TestAcceptanceModel(t *testing.T) {
	m, err := DefaultAcceptModel()
	require.NoError(t, err)
	r := newTestRecognizer(t, Config{Accept: m})
	h, v, err := r.RecognizeVerdict(context.Background(), speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Equal(t, "what time is it", best(h))
	require.NotEmpty(t, h)
	assert.GreaterOrEqual(t, h[0].Confidence, 0.8)
	assert.GreaterOrEqual(t, v.Accept, m.Threshold)
	assert.Len(t, v.Features, len(AcceptFeatureNames))
	assert.Empty(t, v.Dropped)
	for _, say := range []string{
		"she told me a story about her grandmother who lived on a farm",
		"the weather in paris is lovely this time of year",
	} {
		h, v, err := r.RecognizeVerdict(context.Background(), speak(t, say))
		require.NoError(t, err)
		assert.Empty(t, h, "%q heard as %v", say, h)
		if v.Sentence != "" {
			assert.Equal(t, "acceptance", v.Dropped, "%q", say)
			assert.Less(t, v.Accept, m.Threshold)
		}
	}

	// Under the veto, what the floors pass is acted on below the
	// threshold, and nothing the floors refuse is.
	vetoed := *m
	vetoed.Threshold, vetoed.FloorVeto = 0.999, 0.001
	r = newTestRecognizer(t, Config{Accept: &vetoed, MinConfidence: 0.5, MinCoverage: 0.5})
	h, v, err = r.RecognizeVerdict(context.Background(), speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Equal(t, "what time is it", best(h), "the floors pass it: %+v", v)
	r = newTestRecognizer(t, Config{Accept: &vetoed, MinConfidence: 1, MinCoverage: 1})
	h, v, err = r.RecognizeVerdict(context.Background(), speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Empty(t, h)
	assert.Equal(t, "acceptance", v.Dropped)
}

// TestAcceptsFilters: a sentence the grammar does not accept (a partial
// path) is never returned.
func TestAcceptsFilters(t *testing.T) {
	g := sentences{text: testGrammar, ok: map[string]bool{"how are you": true}}
	r := newTestRecognizer(t, Config{Grammar: g})
	h, err := r.Recognize(context.Background(), speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Empty(t, h)
}

// TestWakeFloor: a wake phrase without enough evidence is taken off the
// sentence, which then stands as a command without it.
func TestWakeFloor(t *testing.T) {
	r := newTestRecognizer(t, Config{Wake: "hey jibo", WakeMinConfidence: 1})
	h, err := r.Recognize(context.Background(), speak(t, "hey jibo, what time is it"))
	require.NoError(t, err)
	assert.Equal(t, "what time is it", best(h))
	h, err = r.Recognize(context.Background(), speak(t, "hey jibo"))
	require.NoError(t, err)
	assert.Empty(t, h, "nothing is left of a bare wake phrase")
}

// TestMinConfidence: a forced fit is dropped by the confidence floor.
func TestMinConfidence(t *testing.T) {
	r := newTestRecognizer(t, Config{MinConfidence: 1})
	h, err := r.Recognize(context.Background(), speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Empty(t, h, "nothing reaches confidence 1")
}

func TestSetGrammarAtRunTime(t *testing.T) {
	r := newTestRecognizer(t, Config{})
	pcm := speak(t, "turn on the kitchen light")
	h, err := r.Recognize(context.Background(), pcm)
	require.NoError(t, err)
	assert.NotEqual(t, "turn on the kitchen light", best(h))

	lights := JSGF("#JSGF V1.0;\ngrammar l;\npublic <u> = turn (on | off) the (kitchen | garden) light | what time is it;\n")
	require.NoError(t, r.SetGrammar(context.Background(), lights))
	h, err = r.Recognize(context.Background(), pcm)
	require.NoError(t, err)
	assert.Equal(t, "turn on the kitchen light", best(h))

	// A grammar with a word nobody can pronounce is refused; the old one
	// stays.
	err = r.SetGrammar(context.Background(), JSGF("#JSGF V1.0;\ngrammar x;\npublic <u> = zorblaxian quux;\n"))
	var missing *MissingWordsError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, []string{"quux", "zorblaxian"}, missing.Words)
	// So is one pocketsphinx cannot compile.
	err = r.SetGrammar(context.Background(), JSGF("#JSGF V1.0;\ngrammar x;\npublic <u> = what <undefined>;\n"))
	assert.Error(t, err)
	h, err = r.Recognize(context.Background(), pcm)
	require.NoError(t, err)
	assert.Equal(t, "turn on the kitchen light", best(h))
}

// TestConcurrentUse: recognitions and grammar swaps from several
// goroutines (run with -race); each decoder serves one at a time.
// answerGrammar is a small answer grammar: lengths of time, yes and no.
const answerGrammar = `#JSGF V1.0;
grammar answers;
public <utterance> = <wake> [<answer>] | <answer>;
<wake> = hey jibo;
<answer> = (one | two | five | ten) (minutes | seconds) | yes | no;
`

// TestAnswerGrammar: the answer grammar is a search of its own, used only
// by RecognizeAnswer; it can be replaced and removed at run time.
func TestAnswerGrammar(t *testing.T) {
	ctx := context.Background()
	r := newTestRecognizer(t, Config{Answers: JSGF(answerGrammar), MinCoverage: 0.6})
	five := speak(t, "five minutes")

	h, err := r.RecognizeAnswer(ctx, five)
	require.NoError(t, err)
	assert.Equal(t, "five minutes", best(h), "heard as an answer")
	h, err = r.Recognize(ctx, five)
	require.NoError(t, err)
	assert.NotEqual(t, "five minutes", best(h), "the main grammar has no such sentence")
	h, err = r.Recognize(ctx, speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Equal(t, "what time is it", best(h), "the main grammar is unchanged")

	require.NoError(t, r.SetAnswerGrammar(ctx, JSGF("#JSGF V1.0;\ngrammar a;\npublic <a> = yes | no;\n")))
	h, err = r.RecognizeAnswer(ctx, speak(t, "yes"))
	require.NoError(t, err)
	assert.Equal(t, "yes", best(h))

	err = r.SetAnswerGrammar(ctx, JSGF("#JSGF V1.0;\ngrammar a;\npublic <a> = xyzzyq;\n"))
	require.Error(t, err, "a word nothing can pronounce")
	assert.Contains(t, err.Error(), "answer grammar")
	h, err = r.RecognizeAnswer(ctx, speak(t, "no"))
	require.NoError(t, err)
	assert.Equal(t, "no", best(h), "a refused answer grammar keeps the old one")

	require.NoError(t, r.SetAnswerGrammar(ctx, nil))
	h, err = r.RecognizeAnswer(ctx, five)
	require.NoError(t, err)
	assert.Empty(t, h, "no answer grammar, no answers")
}

func TestConcurrentUse(t *testing.T) {
	r := newTestRecognizer(t, Config{Decoders: 2})
	pcm := speak(t, "what time is it")
	other := JSGF(testGrammar + "\n")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%3 == 0 {
				if err := r.SetGrammar(context.Background(), other); err != nil {
					errs <- err
				}
				return
			}
			h, err := r.Recognize(context.Background(), pcm)
			if err == nil && best(h) != "what time is it" {
				err = fmt.Errorf("heard %q", best(h))
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestRecognizeLimitsAndClose(t *testing.T) {
	r, err := New(context.Background(), Config{Grammar: JSGF(testGrammar), MaxSeconds: 2})
	require.NoError(t, err)
	_, err = r.Recognize(context.Background(), make([]int16, 3*audio.SampleRate))
	assert.ErrorContains(t, err, "longer than 2 s")
	h, err := r.Recognize(context.Background(), nil)
	assert.NoError(t, err)
	assert.Empty(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.Recognize(ctx, make([]int16, audio.SampleRate))
	assert.ErrorIs(t, err, context.Canceled)
	require.NoError(t, r.Close())
	require.NoError(t, r.Close(), "twice is fine")
	_, err = r.Recognize(context.Background(), make([]int16, audio.SampleRate))
	assert.ErrorContains(t, err, "closed")
	assert.ErrorContains(t, r.SetGrammar(context.Background(), JSGF(testGrammar)), "closed")
}

func TestNewRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		err  string
	}{
		{"no grammar", Config{}, "no grammar"},
		{"empty grammar", Config{Grammar: JSGF(" ")}, "empty grammar"},
		{"n-best", Config{Grammar: JSGF(testGrammar), NBest: MaxNBest + 1}, "n-best"},
		{"decoders", Config{Grammar: JSGF(testGrammar), Decoders: MaxDecoders + 1}, "decoders"},
		{"confidence", Config{Grammar: JSGF(testGrammar), MinConfidence: 2}, "confidence"},
		{"trim margin", Config{Grammar: JSGF(testGrammar), TrimMargin: MaxTrimMargin + time.Millisecond}, "trim margin 2.001s over 2s"},
		{"noise suppression", Config{Grammar: JSGF(testGrammar), DenoiseBelowSNR: MaxDenoiseBelowSNR + 1}, "noise suppression below 41 dB over 40"},
		{"enhancement", Config{Grammar: JSGF(testGrammar), EnhanceBelowSNR: MaxEnhanceBelowSNR + 1}, "enhancement below 201 dB over 200"},
		{"enhancement NaN", Config{Grammar: JSGF(testGrammar), EnhanceBelowSNR: math.NaN()}, "enhancement below NaN dB"},
		{"enhancement background", Config{Grammar: JSGF(testGrammar), EnhanceAboveBackground: MaxEnhanceAboveBackground + 1}, "background fluctuation of 31 dB over 30"},
		{"odd args", Config{Grammar: JSGF(testGrammar), Args: []string{"-beam"}}, "pairs"},
		{"reserved arg", Config{Grammar: JSGF(testGrammar), Args: []string{"-dict", "x"}}, "set by the recognizer"},
		{"unknown arg", Config{Grammar: JSGF(testGrammar), Args: []string{"-nosuchflag", "1"}}, "arguments refused"},
		{"model", Config{Grammar: JSGF(testGrammar), ModelDir: "/nonexistent"}, "acoustic model"},
		{"fallback claim", Config{Grammar: JSGF(testGrammar), Fallback: fallbackWith(func(f *Fallback) { f.Claim = 1.5 })}, "fallback: claim 1.5"},
		{"fallback beam", Config{Grammar: JSGF(testGrammar), Fallback: fallbackWith(func(f *Fallback) { f.Beam = 2 })}, "fallback: beams 2"},
		{"fallback HMMs", Config{Grammar: JSGF(testGrammar), Fallback: fallbackWith(func(f *Fallback) { f.MaxHMMs = 5 })}, "fallback: 5 HMMs"},
		{"fallback length", Config{Grammar: JSGF(testGrammar), Fallback: fallbackWith(func(f *Fallback) { f.MaxAudio = time.Hour })}, "fallback: longest utterance"},
		{"rival margin", Config{Grammar: JSGF(testGrammar), RivalMargin: MaxRivalMargin + 1}, "rival margin 1001 over 1000"},
		{"rival margin NaN", Config{Grammar: JSGF(testGrammar), RivalMargin: math.NaN()}, "rival margin NaN"},
		{"rivals", Config{Grammar: JSGF(testGrammar), Rivals: MaxRivals + 1}, "51 rivals not in 1..50"},
		{"rivals without meanings", Config{Grammar: JSGF(testGrammar), RivalMargin: 1}, "rival check needs the intent engines"},
		{"word posterior", Config{Grammar: JSGF(testGrammar), WordPosterior: 1.5}, "word posterior floor 1.5 over 1"},
		{"word posterior NaN", Config{Grammar: JSGF(testGrammar), WordPosterior: math.NaN()}, "word posterior floor NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if cfg.Grammar == nil && tt.name != "no grammar" {
				cfg.Grammar = JSGF(testGrammar)
			}
			r, err := New(context.Background(), cfg)
			if err == nil {
				r.Close()
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

// TestGateZeroValues: the noise suppression's and the enhancement's
// thresholds read alike: 0 is the default, a negative number none.
func TestGateZeroValues(t *testing.T) {
	r := newTestRecognizer(t, Config{})
	assert.Equal(t, DefaultDenoiseBelowSNR, r.cfg.DenoiseBelowSNR)
	assert.Equal(t, DefaultEnhanceBelowSNR, r.cfg.EnhanceBelowSNR)
	assert.Equal(t, DefaultEnhanceAboveBackground, r.cfg.EnhanceAboveBackground)

	r = newTestRecognizer(t, Config{DenoiseBelowSNR: -1, EnhanceBelowSNR: -1, EnhanceAboveBackground: -1})
	assert.Equal(t, -1.0, r.cfg.DenoiseBelowSNR)
	assert.Equal(t, -1.0, r.cfg.EnhanceBelowSNR)
	assert.Equal(t, -1.0, r.cfg.EnhanceAboveBackground)
	noisy, _ := noisyTone(5)
	h := &halver{}
	var v audio.Verdict
	out, _ := enhanceAt(h, noisy, quietSNR(noisy), r.cfg.EnhanceBelowSNR, r.cfg.EnhanceAboveBackground, &v)
	assert.Equal(t, noisy, out, "a negative threshold enhances nothing")
	assert.Equal(t, noisy, denoise(noisy, r.cfg.DenoiseBelowSNR), "nor suppresses")
}

// TestGuessedWords: a word cmudict lacks is pronounced by espeak-ng's
// rules, and recognised.
func TestGuessedWords(t *testing.T) {
	lex, err := NewLexicon(DefaultDict, LexiconOptions{Guesser: EspeakGuesser{}})
	require.NoError(t, err)
	p, err := lex.Lookup(context.Background(), []string{"hiya", "unmute"})
	require.NoError(t, err)
	assert.Equal(t, []string{"HH AY AH"}, p["hiya"])
	r := newTestRecognizer(t, Config{Lexicon: lex,
		Grammar: JSGF("#JSGF V1.0;\ngrammar g;\npublic <u> = (hiya | unmute | hello) [there];\n")})
	h, err := r.Recognize(context.Background(), speak(t, "unmute"))
	require.NoError(t, err)
	assert.Equal(t, "unmute", best(h))
}

// pronsOf returns a decoder of r's and its pronunciations of word, once
// every decoder has taken r's current grammars.
func pronsOf(t *testing.T, r *Recognizer, word string) (*decoder, []string) {
	t.Helper()
	d, err := r.take(context.Background())
	require.NoError(t, err)
	r.mu.Lock()
	g := r.grammar
	r.mu.Unlock()
	d, err = r.apply(d, g)
	r.give(d)
	require.NoError(t, err)
	return d, slices.Clone(d.prons[word])
}

// TestNamePronunciations: a name's pronunciation set on the lexicon is
// heard once the grammar is set again, added to the decoder as a variant
// of the word (the dictionary's own kept); taking it away builds a new
// decoder, since pocketsphinx cannot remove one.
func TestNamePronunciations(t *testing.T) {
	ctx := context.Background()
	lex, err := NewLexicon(DefaultDict, LexiconOptions{})
	require.NoError(t, err)
	g := JSGF("#JSGF V1.0;\ngrammar n;\npublic <u> = this is (siobhan | ann) | what time is it;\n")
	r := newTestRecognizer(t, Config{Lexicon: lex, Grammar: g, MinConfidence: 0.8, MinCoverage: 0.8})
	own := []string{"SH AW B AA N"} // cmudict's
	d0, p := pronsOf(t, r, "siobhan")
	require.Equal(t, own, p)
	// Without the name's pronunciation this small grammar already hears
	// "this is siobhan" (confidence 0.95 against 1.00 with it): the
	// answer grammar's open slot is what tells them apart
	// (cmd/jibod TestHearingAPhoneticName).
	shivawn := speak(t, "this is shivawn")

	require.NoError(t, lex.SetNames(map[string][]string{"siobhan": {"SH IH V AO N"}}))
	require.NoError(t, r.SetGrammar(ctx, g))
	d1, p := pronsOf(t, r, "siobhan")
	assert.Equal(t, []string{"SH AW B AA N", "SH IH V AO N"}, p)
	assert.Same(t, d0, d1, "the variant is added to the decoder it has")
	h, err := r.Recognize(ctx, shivawn)
	require.NoError(t, err)
	assert.Equal(t, "this is siobhan", best(h))
	h, err = r.Recognize(ctx, speak(t, "this is ann"))
	require.NoError(t, err)
	assert.Equal(t, "this is ann", best(h), "the other words as before")

	require.NoError(t, lex.SetNames(nil))
	require.NoError(t, r.SetGrammar(ctx, g))
	d2, p := pronsOf(t, r, "siobhan")
	assert.Equal(t, own, p)
	assert.NotSame(t, d1, d2, "a new decoder without the variant")
	h, err = r.Recognize(ctx, speak(t, "what time is it"))
	require.NoError(t, err)
	assert.Equal(t, "what time is it", best(h))
}

func BenchmarkRecognize(b *testing.B) {
	r := newTestRecognizer(b, Config{})
	pcm := speak(b, "hey jibo, set a timer for five minutes")
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Recognize(context.Background(), pcm); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/(float64(len(pcm))/audio.SampleRate), "rtf")
}

// fallbackWith is DefaultFallback changed by change.
func fallbackWith(change func(*Fallback)) *Fallback {
	f := DefaultFallback
	change(&f)
	return &f
}
