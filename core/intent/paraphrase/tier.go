package paraphrase

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// DefaultTierID is the tier's pipeline id.
const DefaultTierID = "paraphrase"

// TierOptions configure a Tier.
type TierOptions struct {
	// ID is the pipeline id; "" means DefaultTierID.
	ID string
	// Train tunes training; its Language is ignored (see Languages).
	Train Options
	// Languages maps a primary language subtag ("en") to its data; nil
	// means English for "en" only. A language without data is not served.
	Languages map[string]*Language
	// Aligner finds slot values by the template structure; nil means the
	// model's own slot finder (Model.Slots).
	Aligner SlotAligner
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock context expiry is read by; nil means time.Now.
	Now func() time.Time
}

// Tier offers the paraphrase classifier to the pipeline: it claims an
// utterance the template tiers did not when a model trained on the
// registered intents is confident enough, and abstains otherwise. It
// keeps one model per language, retrained when that language's intents
// change: by Build, which the robot calls after registrations from a
// goroutine of its own, or else by the next Match, which then waits for
// it. It starts no goroutines.
type Tier struct {
	id      string
	opts    TierOptions
	aligner SlotAligner
	log     *slog.Logger
	now     func() time.Time

	mu    sync.Mutex
	langs map[string]*tierLang // lowercase tag → state

	// build serialises training; english is made under it, on first use,
	// when Languages is nil.
	build   sync.Mutex
	english *Language
}

// tierLang is one language's intents and the model trained on them; gen
// counts changes of the intents, built is the gen the model was trained
// on.
type tierLang struct {
	intents    []Intent
	gen, built uint64
	model      *Model
	err        error
}

var (
	_ pipeline.Plugin       = (*Tier)(nil)
	_ pipeline.IntentLister = (*Tier)(nil)
)

// NewTier returns a tier with no intents.
func NewTier(o TierOptions) *Tier {
	t := &Tier{id: o.ID, opts: o, aligner: o.Aligner, log: o.Logger, now: o.Now, langs: map[string]*tierLang{}}
	if t.now == nil {
		t.now = time.Now
	}
	if t.id == "" {
		t.id = DefaultTierID
	}
	if t.log == nil {
		t.log = slog.Default()
	}
	return t
}

// ID is the tier's pipeline id.
func (t *Tier) ID() string { return t.id }

// Update replaces the intents of a language; the model is retrained on
// the next Match or Build. An intent whose templates do not parse is an
// error and changes nothing.
func (t *Tier) Update(lang string, intents []Intent) error {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return fmt.Errorf("paraphrase tier: %w", err)
	}
	if len(intents) > MaxIntents {
		return fmt.Errorf("paraphrase tier: %d intents for %s, limit %d", len(intents), tag, MaxIntents)
	}
	for _, in := range intents {
		if _, err := newGrammar(in); err != nil {
			return fmt.Errorf("paraphrase tier: intent %s:%s: %w", in.SkillID, in.Name, err)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(intents) == 0 {
		delete(t.langs, tag)
		return nil
	}
	st := t.langs[tag]
	if st == nil {
		st = &tierLang{}
		t.langs[tag] = st
	}
	st.intents = slices.Clone(intents)
	st.gen++
	return nil
}

// UpdateFromEngine replaces every language's intents with the enabled
// definitions the template engine holds in the default scope.
func (t *Tier) UpdateFromEngine(e *intent.TemplateEngine) error {
	byLang := map[string][]Intent{}
	for _, r := range e.Registrations(intent.DefaultSession) {
		if r.Enabled && (r.SessionID == "" || r.SessionID == intent.DefaultSession) {
			byLang[r.Lang] = append(byLang[r.Lang], FromTemplateIntent(r.Definition))
		}
	}
	t.mu.Lock()
	stale := slices.Collect(maps.Keys(t.langs))
	t.mu.Unlock()
	for _, l := range stale {
		if _, ok := byLang[l]; !ok {
			if err := t.Update(l, nil); err != nil {
				return err
			}
		}
	}
	for _, l := range slices.Sorted(maps.Keys(byLang)) {
		if err := t.Update(l, byLang[l]); err != nil {
			return err
		}
	}
	return nil
}

// Build trains every language whose intents changed, now rather than on
// the next utterance. It returns the first training error.
func (t *Tier) Build() error {
	t.mu.Lock()
	tags := slices.Sorted(maps.Keys(t.langs))
	t.mu.Unlock()
	var first error
	for _, tag := range tags {
		if _, err := t.model(tag); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// language returns the data for a tag, or nil. Call it under t.build.
func (t *Tier) language(tag string) *Language {
	primary, _, _ := strings.Cut(tag, "-")
	if t.opts.Languages != nil {
		return t.opts.Languages[primary]
	}
	if primary != "en" {
		return nil
	}
	if t.english == nil {
		l, err := English()
		if err != nil {
			t.log.Error("paraphrase tier: built-in English data", "err", err)
			return nil
		}
		t.english = l
	}
	return t.english
}

// model returns the current model of a language, training it first when
// its intents changed since. Utterances wait for a retraining rather than
// use a model that may claim an intent no longer registered.
func (t *Tier) model(tag string) (*Model, error) {
	t.mu.Lock()
	st := t.langs[tag]
	if st == nil || st.built == st.gen {
		defer t.mu.Unlock()
		if st == nil {
			return nil, nil
		}
		return st.model, st.err
	}
	t.mu.Unlock()

	t.build.Lock()
	defer t.build.Unlock()
	t.mu.Lock()
	st = t.langs[tag]
	if st == nil || st.built == st.gen { // trained (or removed) meanwhile
		defer t.mu.Unlock()
		if st == nil {
			return nil, nil
		}
		return st.model, st.err
	}
	intents, gen := st.intents, st.gen
	t.mu.Unlock()

	var m *Model
	var err error
	if lang := t.language(tag); lang == nil {
		err = fmt.Errorf("paraphrase tier: no language data for %s", tag)
	} else {
		o := t.opts.Train
		o.Language = lang
		m, err = Train(intents, o)
	}
	if err != nil {
		t.log.Warn("paraphrase tier: training failed; the tier abstains in this language", "lang", tag, "err", err)
	} else {
		s := m.Stats()
		t.log.Info("paraphrase tier trained", "lang", tag, "intents", s.Intents, "samples", s.Samples,
			"features", s.Features, "took", s.Took)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur := t.langs[tag]; cur == st {
		st.model, st.err, st.built = m, err, gen
	}
	return m, err
}

// Stats returns the training figures of a language's model, training it
// first if needed; zero when it has none.
func (t *Tier) Stats(lang string) TrainStats {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return TrainStats{}
	}
	m, _ := t.model(tag)
	if m == nil {
		return TrainStats{}
	}
	return m.Stats()
}

// Explain classifies one utterance and says what the tier decided and
// why, for tools.
func (t *Tier) Explain(utterance, lang string) (Decision, error) {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return Decision{}, fmt.Errorf("paraphrase tier: %w", err)
	}
	m, err := t.model(tag)
	if err != nil {
		return Decision{}, err
	}
	if m == nil {
		return Decision{Reason: "no intents in " + tag}, nil
	}
	return m.Classify(utterance), nil
}

// Intents lists the intents the tier can claim (PIPE-31).
func (t *Tier) Intents(string) []pipeline.IntentRef {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []pipeline.IntentRef
	for _, tag := range slices.Sorted(maps.Keys(t.langs)) {
		for _, in := range t.langs[tag].intents {
			out = append(out, pipeline.IntentRef{SkillID: in.SkillID, IntentName: in.Name, Lang: tag})
		}
	}
	return out
}

// Match claims the most probable of the candidate utterances that the
// model claims and whose required slots are found; it abstains (nil)
// otherwise.
func (t *Tier) Match(ctx context.Context, utterances []string, lang string, s session.Session) (*pipeline.Match, error) {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return nil, nil // not a language the tier serves
	}
	m, err := t.model(tag)
	if m == nil || err != nil {
		return nil, nil // nothing learnt; training errors are logged once
	}
	allow := t.allowed(tag, s)
	var best *pipeline.Match
	for _, u := range utterances {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := m.ClassifyAmong(u, allow)
		if !d.Claim || (best != nil && d.Probability <= best.Confidence) {
			continue
		}
		slots, ok := t.slots(ctx, m, d.Label, u)
		if !ok {
			continue
		}
		best = &pipeline.Match{SkillID: d.Label.SkillID, IntentName: d.Label.Intent, Lang: lang, Slots: slots,
			Utterance: u, Confidence: d.Probability, Why: why(d)}
	}
	return best, nil
}

// allowed returns which of a language's intents the session's context
// allows (CTX-11, CTX-12), nil when every one is.
func (t *Tier) allowed(tag string, s session.Session) func(Label) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.langs[tag]
	if st == nil {
		return nil
	}
	var gated map[Label]Intent
	for _, in := range st.intents {
		if len(in.RequiresContext) > 0 || len(in.ExcludesContext) > 0 {
			if gated == nil {
				gated = map[Label]Intent{}
			}
			gated[Label{in.SkillID, in.Name}] = in
		}
	}
	if gated == nil {
		return nil
	}
	now := float64(t.now().UnixMilli()) / 1000
	return func(l Label) bool {
		in, ok := gated[l]
		return !ok || s.ContextAllows(in.SkillID, in.RequiresContext, in.ExcludesContext, now)
	}
}

// slots finds the claimed intent's slots: through the aligner when one is
// wired and it aligns, else the model's own finder. ok is false when a
// required slot is missing.
func (t *Tier) slots(ctx context.Context, m *Model, l Label, u string) (map[string]string, bool) {
	var slots map[string]string
	if t.aligner != nil {
		if s, ok := t.aligner.Align(ctx, l.SkillID, l.Intent, u); ok {
			slots = s
		}
	}
	if slots == nil {
		slots = m.Slots(l, u)
	}
	if slots == nil {
		slots = map[string]string{}
	}
	c := slices.Index(m.labels, l)
	for _, r := range m.infos[c].required {
		if _, ok := slots[r]; !ok {
			return nil, false
		}
	}
	return slots, true
}

func why(d Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "paraphrase %.2f", d.Probability)
	if len(d.Ranked) > 1 {
		fmt.Fprintf(&b, " over %s %.2f", d.Ranked[1].Label, d.Ranked[1].Probability)
	}
	if len(d.Why) > 0 {
		b.WriteString("; ")
		for i, e := range d.Why {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.Feature)
		}
	}
	return b.String()
}
