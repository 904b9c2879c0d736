package paraphrase

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/openjibo/jibod/core/intent"
)

// DefaultTierID is the tier's source name and the pipeline id of its
// stage.
const DefaultTierID = "paraphrase"

// TierOptions configure a Tier.
type TierOptions struct {
	// ID is the source name and stage id; "" means DefaultTierID.
	ID string
	// Train tunes training; its Language is ignored (see Languages).
	Train Options
	// Languages maps a primary language subtag ("en") to its data; nil
	// means English for "en" only. A language without data is not served.
	Languages map[string]*Language
	// Aligner finds slot values by the template structure; nil means the
	// template engine the tier learns from (TemplateEngine.AlignSlots),
	// and the model's own slot finder (Model.Slots) where it does not
	// align.
	Aligner SlotAligner
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Trainer trains a language's model (tag, a lowercase language tag,
	// says which); nil means TrainContext. A process that builds many
	// tiers on the same skills, as a test binary does, may share one
	// Memo's Train.
	Trainer func(ctx context.Context, tag string, intents []Intent, o Options) (*Model, error)
}

// Tier is the paraphrase classifier as a source of the intent stack
// (intent.Generaliser, intent.Learner): it learns one model per language
// from the template intents registered with the stack, off the utterance
// path, and offers the intent a model claims for an utterance; an intent
// it finds likely but not likely enough is offered as refused, for the
// robot to ask about. Its stage claims only when no template or keyword
// parse is sure. It starts no goroutines: the stack has it learn.
type Tier struct {
	id   string
	opts TierOptions
	log  *slog.Logger

	mu     sync.Mutex
	langs  map[string]*tierLang // lowercase tag → state
	engine *intent.TemplateEngine
	align  SlotAligner

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
	_ intent.Generaliser = (*Tier)(nil)
	_ intent.Learner     = (*Tier)(nil)
)

// NewTier returns a tier with no intents.
func NewTier(o TierOptions) *Tier {
	t := &Tier{id: o.ID, opts: o, log: o.Logger, align: o.Aligner, langs: map[string]*tierLang{}}
	if t.id == "" {
		t.id = DefaultTierID
	}
	if t.log == nil {
		t.log = slog.Default()
	}
	return t
}

// Name is the tier's source name.
func (t *Tier) Name() string { return t.id }

// Stage is the pipeline id of the tier's stage.
func (t *Tier) Stage() string { return t.id }

// Update replaces the intents of a language; Build trains on them. An
// intent whose templates do not parse is an error and changes nothing.
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
	if slices.EqualFunc(st.intents, intents, sameIntent) {
		return nil // nothing to learn: a change elsewhere, or in another scope
	}
	st.intents = slices.Clone(intents)
	st.gen++
	return nil
}

// sameIntent reports whether two intents train alike.
func sameIntent(a, b Intent) bool {
	return a.SkillID == b.SkillID && a.Name == b.Name && slices.Equal(a.Templates, b.Templates) &&
		maps.EqualFunc(a.Vocab, b.Vocab, slices.Equal) && maps.EqualFunc(a.Entities, b.Entities, slices.Equal) &&
		maps.Equal(a.SlotTypes, b.SlotTypes) && slices.Equal(a.RequiredSlots, b.RequiredSlots) &&
		maps.EqualFunc(a.SlotBlacklist, b.SlotBlacklist, slices.Equal)
}

// UpdateFromEngine replaces every language's intents with the enabled
// definitions the template engine holds in the default scope, and keeps
// the engine: to align slots with, unless TierOptions.Aligner is set, and
// to check that an intent the model knows is still enabled.
func (t *Tier) UpdateFromEngine(e *intent.TemplateEngine) error {
	byLang := map[string][]Intent{}
	for _, r := range e.Registrations(intent.DefaultSession) {
		if r.Enabled && (r.SessionID == "" || r.SessionID == intent.DefaultSession) {
			byLang[r.Lang] = append(byLang[r.Lang], FromTemplateIntent(r.Definition))
		}
	}
	t.mu.Lock()
	t.engine = e
	if t.opts.Aligner == nil {
		t.align = engineAligner{e}
	}
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

// Learn learns the template engine's registrations (intent.Learner):
// UpdateFromEngine, then Build.
func (t *Tier) Learn(ctx context.Context, e *intent.TemplateEngine) error {
	if err := t.UpdateFromEngine(e); err != nil {
		return err
	}
	return t.Build(ctx)
}

// Build trains every language whose intents changed. It returns the
// first training error; that language's tier then abstains. When ctx
// ends it stops, keeps the models it had and returns ctx's error; the
// next Build trains again.
func (t *Tier) Build(ctx context.Context) error {
	t.mu.Lock()
	tags := slices.Sorted(maps.Keys(t.langs))
	t.mu.Unlock()
	var first error
	for _, tag := range tags {
		if err := t.train(ctx, tag); err != nil && first == nil {
			first = err
		}
		if err := ctx.Err(); err != nil {
			return err
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

// train trains a language's model when its intents changed since it was
// last trained.
func (t *Tier) train(ctx context.Context, tag string) error {
	t.build.Lock()
	defer t.build.Unlock()
	t.mu.Lock()
	st := t.langs[tag]
	if st == nil || st.built == st.gen { // trained (or removed) meanwhile
		t.mu.Unlock()
		return nil
	}
	intents, gen := st.intents, st.gen
	t.mu.Unlock()

	var m *Model
	var err error
	lang := t.language(tag)
	if lang == nil {
		// Not a language the tier serves: the engines alone understand it.
		t.log.Info("paraphrase tier: no language data; the tier does not serve this language", "lang", tag)
	} else {
		o := t.opts.Train
		o.Language = lang
		if t.opts.Trainer != nil {
			m, err = t.opts.Trainer(ctx, tag, intents, o)
		} else {
			m, err = TrainContext(ctx, intents, o)
		}
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err() // stopped: not a failure of the data; trained next time
	case lang == nil:
	case err != nil:
		t.log.Warn("paraphrase tier: training failed; the tier abstains in this language", "lang", tag, "err", err)
	default:
		s := m.Stats()
		t.log.Info("paraphrase tier trained", "lang", tag, "intents", s.Intents, "samples", s.Samples,
			"features", s.Features, "took", s.Took)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur := t.langs[tag]; cur == st {
		st.model, st.err, st.built = m, err, gen
	}
	return err
}

// current returns a language's last trained model, or nil; it never
// trains.
func (t *Tier) current(tag string) *Model {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.langs[tag]; st != nil {
		return st.model
	}
	return nil
}

// Stats returns the training figures of a language's model; zero when it
// has none.
func (t *Tier) Stats(lang string) TrainStats {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return TrainStats{}
	}
	if m := t.current(tag); m != nil {
		return m.Stats()
	}
	return TrainStats{}
}

// Explain classifies one utterance and says what the tier decided and
// why, for tools.
func (t *Tier) Explain(utterance, lang string) (Decision, error) {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return Decision{}, fmt.Errorf("paraphrase tier: %w", err)
	}
	m := t.current(tag)
	if m == nil {
		return Decision{Reason: "no model for " + tag}, nil
	}
	return m.Classify(utterance), nil
}

// Candidates classifies one hypothesis among the intents the request
// keeps and the engine still has enabled (intent.Source): the intent the
// model claims, with its slots; or, when the model found an intent likely
// but abstained for want of probability or lead, or a required slot is
// not said, that intent refused (Candidate.Refused), for the robot to ask
// about. Nothing for what sounds like none of the intents or lacks
// evidence in the words. The confidence is the model's calibrated
// probability.
func (t *Tier) Candidates(ctx context.Context, req intent.Request) ([]intent.Candidate, error) {
	tag, err := intent.NormalizeLang(req.Lang)
	if err != nil {
		return nil, nil // not a language the tier serves
	}
	m := t.current(tag)
	if m == nil {
		return nil, nil // nothing learnt (yet); training errors are logged once
	}
	t.mu.Lock()
	e, align := t.engine, t.align
	t.mu.Unlock()
	allow := func(l Label) bool {
		if req.Keep != nil && !req.Keep(l.SkillID, l.Intent) {
			return false
		}
		// A model learnt before a change never offers an intent since
		// removed or disabled.
		return e == nil || e.Enabled(req.SessionID, l.SkillID, l.Intent, tag)
	}
	d := m.ClassifyAmong(req.Utterance, allow)
	if !d.Claim && !d.Unsure {
		return nil, nil
	}
	slots, missing := t.slots(ctx, m, align, d.Label, req)
	c := intent.Candidate{SkillID: d.Label.SkillID, IntentName: d.Label.Intent, Slots: slots,
		Confidence: d.Probability, Why: why(d), Refused: d.Reason}
	if c.Refused == "" && len(missing) > 0 {
		c.Refused = "required slot not said: " + strings.Join(missing, ", ")
		c.Missing = missing
	}
	return []intent.Candidate{c}, nil
}

// slots finds an intent's slots: through the aligner when it aligns the
// utterance with the intent's templates, else the model's own finder; a
// required slot the aligner left out is taken from the model's finder.
// missing lists the required slots neither found.
func (t *Tier) slots(ctx context.Context, m *Model, align SlotAligner, l Label, req intent.Request) (map[string]string, []string) {
	var slots map[string]string
	if align != nil {
		if s, ok := align.Align(ctx, req.SessionID, l.SkillID, l.Intent, req.Lang, req.Utterance); ok {
			slots = maps.Clone(s)
		}
	}
	var own map[string]string
	if slots == nil {
		own = m.Slots(l, req.Utterance)
		slots = own
	}
	if slots == nil {
		slots = map[string]string{}
	}
	var missing []string
	if c := slices.Index(m.labels, l); c > 0 {
		for _, r := range m.infos[c].required {
			if _, ok := slots[r]; ok {
				continue
			}
			if own == nil {
				own = m.Slots(l, req.Utterance)
			}
			if v, ok := own[r]; ok {
				slots[r] = v
			} else {
				missing = append(missing, r)
			}
		}
	}
	return slots, missing
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
	if d.Reason != "" {
		b.WriteString("; refused: " + d.Reason)
	}
	return b.String()
}
