package intenttool

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// NewStack builds the robot's intent stack: its engines, the registration
// service on b (none when b is nil) and its further tiers. The tools take
// it from the caller, so they measure and match with the robot's own.
type NewStack func(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error)

// EvalOptions are how Evaluate runs.
type EvalOptions struct {
	// Stack builds the stack the corpus is measured on; nil measures the
	// template and keyword engines alone.
	Stack NewStack
	// Progress, if not nil, hears how many tests are done.
	Progress func(done, total int)
}

// Report is what eval measured; its JSON form is the --json output.
type Report struct {
	Tests                        int     `json:"tests"`
	IntentAccuracy               float64 `json:"intent_accuracy"`
	ExactAccuracy                float64 `json:"exact_accuracy"`
	TestsWithoutContext          int     `json:"tests_without_context"`
	IntentAccuracyWithoutContext float64 `json:"intent_accuracy_without_context"`
	ExactAccuracyWithoutContext  float64 `json:"exact_accuracy_without_context"`
	P50us                        float64 `json:"p50_us"`
	P95us                        float64 `json:"p95_us"`
	MaxUs                        float64 `json:"max_us"`
	BuildMs                      float64 `json:"build_ms"`
	HeapMB                       float64 `json:"heap_mb"`
	// LearnMs and LearntHeapMB are the paraphrase tier's training time and
	// the heap its models keep; zero without it.
	LearnMs           float64          `json:"learn_ms,omitempty"`
	LearntHeapMB      float64          `json:"learnt_heap_mb,omitempty"`
	Intents           int              `json:"intents"`
	KeywordIntents    int              `json:"keyword_intents"`
	Templates         int              `json:"templates"`
	TemplatesRejected int              `json:"templates_rejected"`
	IntentsRejected   int              `json:"intents_rejected"`
	Rejected          []Rejection      `json:"rejected"`
	Tiers             map[string]*Tier `json:"tiers"`
	// Abstained counts tests where the best candidate scored below the
	// claim floor, so nothing was claimed; AbstainedRight, how many of
	// those candidates had the expected intent.
	Abstained      int `json:"abstained"`
	AbstainedRight int `json:"abstained_right"`
	// Asked counts the tests nothing claimed that the robot would ask
	// about ("Were you asking about …?", intent.Stack.Guess); AskedRight,
	// how many of those asked about the expected intent.
	Asked      int `json:"asked"`
	AskedRight int `json:"asked_right"`
	// Calibration compares each test's best candidate's score with how
	// often its intent was right, in bands of 0.1.
	Calibration                 []CalibrationBin `json:"calibration"`
	Failures                    []Failure        `json:"failures,omitempty"`
	intentOK, exactOK           int
	intentOKNoCtx, exactOKNoCtx int
	bands                       []string // the stack's, in claim order
}

// Tier counts the tests one band ("none": no band) claimed, and how
// many of those it got right (the intent; slots not compared).
type Tier struct {
	Claimed int `json:"claimed"`
	Correct int `json:"correct"`
}

// CalibrationBin is one score band of the calibration table: the tests whose best
// candidate scored in [from, to), and how many had the expected intent.
type CalibrationBin struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Tests int     `json:"tests"`
	Right int     `json:"right"`
}

// Rejection is a template the grammar refused or an intent an engine
// refused.
type Rejection struct {
	Intent   string `json:"intent"`
	Template string `json:"template,omitempty"`
	Error    string `json:"error"`
}

// Failure is a test whose intent or slots differ from the expectation.
type Failure struct {
	Utterance string            `json:"utterance"`
	Want      string            `json:"want"`
	WantSlots map[string]string `json:"want_slots"`
	Got       string            `json:"got"`
	GotSlots  map[string]string `json:"got_slots"`
	Tier      string            `json:"tier"`
	// Confidence and Why are the claim's; absent without a claim.
	Confidence float64 `json:"confidence,omitempty"`
	Why        string  `json:"why,omitempty"`
	// Abstained is the best candidate when nothing was claimed.
	Abstained *Abstention `json:"abstained,omitempty"`
}

// Abstention is a candidate the stack did not claim: it scored below
// the claim floor.
type Abstention struct {
	Intent string  `json:"intent"`
	Score  float64 `json:"score"`
	Why    string  `json:"why"`
}

// Evaluate loads the corpus into the intent stack's engines and runs every
// test through its bands, surest first, as the robot's pipeline does
// without its fallback stages.
func Evaluate(ctx context.Context, c *Corpus, o EvalOptions) (*Report, error) {
	withParaphrase, progress := o.Stack != nil, o.Progress
	rep := &Report{Tests: len(c.Tests), Intents: len(c.Intents), KeywordIntents: len(c.KeywordIntents),
		Tiers: map[string]*Tier{}, Rejected: []Rejection{}}
	quiet := slog.New(slog.DiscardHandler)

	// The grammar check is done first and apart, so the build time is what
	// the engines cost.
	tdefs := make([]intent.TemplateIntent, 0, len(c.Intents))
	for _, name := range slices.Sorted(maps.Keys(c.Intents)) {
		in := c.Intents[name]
		def := intent.TemplateIntent{SkillID: evalSkill, IntentName: name, Lang: c.Lang, Vocab: c.Vocab}
		for _, t := range in.Templates {
			rep.Templates++
			if _, err := intent.Check(t, c.Vocab); err != nil {
				rep.TemplatesRejected++
				rep.Rejected = append(rep.Rejected, Rejection{Intent: name, Template: t, Error: err.Error()})
				continue
			}
			def.Samples = append(def.Samples, t)
		}
		if len(in.Values) > 0 {
			def.Entities = in.Values
		}
		if len(def.Samples) == 0 {
			rep.IntentsRejected++
			rep.Rejected = append(rep.Rejected, Rejection{Intent: name, Error: "every template was rejected"})
			continue
		}
		tdefs = append(tdefs, def)
	}
	kdefs := make([]intent.KeywordIntent, 0, len(c.KeywordIntents))
	for _, name := range slices.Sorted(maps.Keys(c.KeywordIntents)) {
		k := c.KeywordIntents[name]
		descs := func(names []string) []intent.KeywordVocab {
			out := make([]intent.KeywordVocab, len(names))
			for i, n := range names {
				out[i] = intent.KeywordVocab{Name: n, Samples: c.Vocab[n]}
			}
			return out
		}
		def := intent.KeywordIntent{SkillID: evalSkill, IntentName: name, Lang: c.Lang,
			Required: descs(k.Required), Optional: descs(k.Optional), Excluded: descs(k.Excluded)}
		for _, g := range k.OneOf {
			def.OneOf = append(def.OneOf, descs(g))
		}
		kdefs = append(kdefs, def)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	var st *intent.Stack
	var err error
	if withParaphrase {
		st, err = o.Stack(nil, quiet, false)
	} else {
		st, err = intent.NewStack(intent.StackConfig{Logger: quiet})
	}
	if err != nil {
		return nil, err
	}
	for _, def := range tdefs {
		if _, err := st.Templates.Register(def); err != nil {
			rep.IntentsRejected++
			rep.Rejected = append(rep.Rejected, Rejection{Intent: def.IntentName, Error: err.Error()})
		}
	}
	for _, def := range kdefs {
		if _, err := st.Keywords.Register(def); err != nil {
			rep.IntentsRejected++
			rep.Rejected = append(rep.Rejected, Rejection{Intent: def.IntentName, Error: err.Error()})
		}
	}
	rep.BuildMs = roundTo(float64(time.Since(start).Microseconds())/1000, 1)
	runtime.GC()
	runtime.ReadMemStats(&after)
	// Clamped: on a tiny corpus the collector can free more than was built.
	rep.HeapMB = roundTo(max(0, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)))/(1<<20), 1)
	if withParaphrase {
		start = time.Now()
		if err := st.Learn(ctx); err != nil {
			return nil, fmt.Errorf("learning the corpus: %w", err)
		}
		rep.LearnMs = roundTo(float64(time.Since(start).Microseconds())/1000, 1)
		before = after
		runtime.GC()
		runtime.ReadMemStats(&after)
		rep.LearntHeapMB = roundTo(max(0, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)))/(1<<20), 1)
	}
	rep.bands = nil
	for _, b := range st.Bands() {
		rep.bands = append(rep.bands, b.ID())
	}

	sess := session.Empty()
	bins := make([]CalibrationBin, 10)
	for i := range bins {
		bins[i] = CalibrationBin{From: float64(i) / 10, To: float64(i+1) / 10}
	}
	lat := make([]time.Duration, 0, len(c.Tests))
	step := max(1, len(c.Tests)/200)
	for i, t := range c.Tests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if progress != nil && i%step == 0 {
			progress(i, len(c.Tests))
		}
		q := intent.Query{Hypotheses: intent.Texts(t.Utterance), Lang: c.Lang, Session: sess}
		t0 := time.Now()
		m, band, rec, err := st.Claim(ctx, q)
		lat = append(lat, time.Since(t0))
		if err == nil && !rep.right(t, m) {
			// Asked again after the clock stopped, with the runners-up and
			// their explanations: they cost the robot nothing, only the
			// report.
			q.Limit, q.Explain = 3, true
			m, band, rec, err = st.Claim(ctx, q)
		}
		if err != nil {
			return nil, fmt.Errorf("test %d: %w", i, err)
		}
		var abstained *Abstention
		if len(rec.Candidates) > 0 {
			best := rec.Candidates[0]
			b := &bins[min(9, int(best.Score*10))]
			b.Tests++
			if best.IntentName == t.Intent {
				b.Right++
			}
			if m == nil {
				abstained = &Abstention{Intent: best.IntentName, Score: roundTo(best.Score, 4), Why: best.Explain()}
				rep.Abstained++
				if best.IntentName == t.Intent {
					rep.AbstainedRight++
				}
			}
		}
		if band == "" {
			band = "none"
			if g, ok, err := st.Guess(ctx, q); err == nil && ok {
				rep.Asked++
				if g.IntentName == t.Intent {
					rep.AskedRight++
				}
			}
		}
		rep.score(t, m, band, abstained)
	}
	for _, b := range bins {
		if b.Tests > 0 {
			rep.Calibration = append(rep.Calibration, b)
		}
	}
	if progress != nil {
		progress(len(c.Tests), len(c.Tests))
	}
	slices.Sort(lat)
	rep.P50us = micros(percentile(lat, 0.50))
	rep.P95us = micros(percentile(lat, 0.95))
	rep.MaxUs = micros(lat[len(lat)-1])
	rep.IntentAccuracy = ratio(rep.intentOK, rep.Tests)
	rep.ExactAccuracy = ratio(rep.exactOK, rep.Tests)
	rep.IntentAccuracyWithoutContext = ratio(rep.intentOKNoCtx, rep.TestsWithoutContext)
	rep.ExactAccuracyWithoutContext = ratio(rep.exactOKNoCtx, rep.TestsWithoutContext)
	return rep, nil
}

// score counts one test: the intent is right when it names the expected
// intent (or nothing claimed an utterance that should stay unmatched), and
// exact when the slots are also exactly the expected ones.
func (r *Report) score(t CorpusTest, m *pipeline.Match, tier string, abstained *Abstention) {
	got, gotSlots := "", map[string]string{}
	if m != nil {
		got, gotSlots = m.IntentName, m.Slots
	}
	want := t.Slots
	if want == nil {
		want = map[string]string{}
	}
	intentOK := got == t.Intent
	exactOK := intentOK && maps.Equal(gotSlots, want)
	tc := r.tier(tier)
	tc.Claimed++
	if intentOK {
		tc.Correct++
	}
	if !t.NeedsContext {
		r.TestsWithoutContext++
	}
	if intentOK {
		r.intentOK++
		if !t.NeedsContext {
			r.intentOKNoCtx++
		}
	}
	if exactOK {
		r.exactOK++
		if !t.NeedsContext {
			r.exactOKNoCtx++
		}
		return
	}
	f := Failure{Utterance: t.Utterance, Want: t.Intent, WantSlots: want,
		Got: got, GotSlots: gotSlots, Tier: tier, Abstained: abstained}
	if m != nil {
		f.Confidence, f.Why = roundTo(m.Confidence, 4), m.Why
	}
	r.Failures = append(r.Failures, f)
}

// right reports whether a claim is exactly what the test expects.
func (r *Report) right(t CorpusTest, m *pipeline.Match) bool {
	if m == nil {
		return t.Intent == ""
	}
	want := t.Slots
	if want == nil {
		want = map[string]string{}
	}
	return m.IntentName == t.Intent && maps.Equal(m.Slots, want)
}

// tier returns the counts of a tier, creating them.
func (r *Report) tier(id string) *Tier {
	tc := r.Tiers[id]
	if tc == nil {
		tc = &Tier{}
		r.Tiers[id] = tc
	}
	return tc
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func micros(d time.Duration) float64 { return roundTo(float64(d.Nanoseconds())/1000, 1) }

func ratio(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return roundTo(float64(n)/float64(of), 4)
}

func roundTo(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}
