package paraphrase

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/internal/sortx"
)

// Training defaults and limits.
const (
	// DefaultSeed seeds sampling and training when Options leaves it zero:
	// the same registrations always train the same model.
	DefaultSeed = 0x6a69626f
	// DefaultSamplesPerIntent caps the template samples drawn per intent
	// before augmentation.
	DefaultSamplesPerIntent = 160
	// DefaultEpochs is how many passes training makes over the samples.
	DefaultEpochs = 8
	// MaxIntents caps the intents one model learns.
	MaxIntents = 2_000
	// MaxSamplesPerIntent caps Options.SamplesPerIntent.
	MaxSamplesPerIntent = 2_000
	// MaxTemplatesPerIntent caps the templates of one intent.
	MaxTemplatesPerIntent = 1_000
	// MaxUtteranceWords is the longest utterance Classify reads; longer
	// ones are abstained from.
	MaxUtteranceWords = 48
	// maxWholeLine is the most expansions of a template line read whole
	// for what an intent says as it stands; maxWholeSaid bounds them per
	// intent. Larger lines are known by their samples.
	maxWholeLine = 1_000
	maxWholeSaid = 4_000
)

// Default decision thresholds (see docs/paraphrase.md for how they were
// chosen).
const (
	DefaultMinProbability = 0.7
	DefaultMinMargin      = 0.3
	// learningRate is the first epoch's step; it decays as 1/(1+ep/2).
	learningRate = 2
	// finalEpochs passes at finalRate learn the held-out samples after
	// calibration.
	finalEpochs = 2
	finalRate   = 0.3
	// l2 pulls the weights a sample touches towards zero.
	l2 = 1e-6
	// maxHeldOutWrong is the share of wrong claims on held-out samples
	// above which calibration raises the least probability of a claim.
	maxHeldOutWrong = 0.02
)

// Intent is one intent the tier learns: what its skill registered.
type Intent struct {
	SkillID string
	Name    string
	// Templates are the intent's sentence templates (OVOS-INTENT-1).
	Templates []string
	// Vocab maps a vocabulary name to its templates, for <name>.
	Vocab map[string][]string
	// Entities maps a slot to its value templates (.entity files).
	Entities map[string][]string
	// SlotTypes maps a slot to its type (duration, number, …); typed slot
	// tokens ({duration:d}) add to it.
	SlotTypes map[string]string
	// RequiredSlots must be found in an utterance for the tier to claim it.
	RequiredSlots []string
	// SlotBlacklist maps a slot to values that never fill it (RES-06).
	SlotBlacklist map[string][]string
}

// FromTemplateIntent is the tier's view of a template intent definition.
func FromTemplateIntent(d intent.TemplateIntent) Intent {
	return Intent{SkillID: d.SkillID, Name: d.IntentName, Templates: d.Samples, Vocab: d.Vocab,
		Entities: d.Entities, SlotTypes: d.SlotTypes, RequiredSlots: d.RequiredSlots, SlotBlacklist: d.SlotBlacklist}
}

// Options tune training. Zero values pick defaults.
type Options struct {
	// Language is the language's data; nil means English.
	Language *Language
	// Seed seeds sampling and training; 0 means DefaultSeed.
	Seed uint64
	// SamplesPerIntent caps the template samples per intent before
	// augmentation; 0 means DefaultSamplesPerIntent.
	SamplesPerIntent int
	// Epochs; 0 means DefaultEpochs.
	Epochs int
	// MinProbability and MinMargin are the least calibrated probability of
	// the winner, and the least lead over the runner-up, for a claim; 0
	// means the defaults. Calibration may raise them, never lower them.
	MinProbability, MinMargin float64
}

// Label names an intent; the zero Label is the "none" class.
type Label struct {
	SkillID string
	Intent  string
}

// String is "skill:intent", or "none".
func (l Label) String() string {
	if l == (Label{}) {
		return "none"
	}
	return l.SkillID + ":" + l.Intent
}

// TrainStats says what training did.
type TrainStats struct {
	Intents     int
	Samples     int // training samples, augmentation and background included
	HeldOut     int // calibration samples
	Features    int
	Temperature float64
	// MinProbability is the calibrated least probability of a claim.
	MinProbability float64
	// HeldOutAccuracy is the share of held-out intent samples whose top
	// class is their intent, before any threshold.
	HeldOutAccuracy float64
	Took            time.Duration
}

// example is one training sample.
type example struct {
	words []string
	label int
	feats []int32
	vals  []float32
}

// Train learns a model from intents alone: their templates, vocabularies
// and entity lists, sampled with a fixed seed; no network, no other
// model. A malformed template is an error naming the intent.
func Train(intents []Intent, opts Options) (*Model, error) {
	return TrainContext(context.Background(), intents, opts)
}

// TrainContext is Train that stops, with ctx's error, when ctx ends: the
// robot learns off the utterance path and must not be held up at exit by
// a training under way.
func TrainContext(ctx context.Context, intents []Intent, opts Options) (*Model, error) {
	start := time.Now()
	if len(intents) == 0 {
		return nil, errors.New("training: no intents")
	}
	if len(intents) > MaxIntents {
		return nil, fmt.Errorf("training: %d intents, limit %d", len(intents), MaxIntents)
	}
	if opts.SamplesPerIntent > MaxSamplesPerIntent {
		return nil, fmt.Errorf("training: %d samples per intent, limit %d", opts.SamplesPerIntent, MaxSamplesPerIntent)
	}
	lang := opts.Language
	if lang == nil {
		var err error
		if lang, err = English(); err != nil {
			return nil, err
		}
	}
	seed := opts.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	per := cmpOr(opts.SamplesPerIntent, DefaultSamplesPerIntent)
	m := &Model{lang: lang, labels: []Label{{}}, infos: []*intentInfo{nil},
		minProb: DefaultMinProbability, minMargin: DefaultMinMargin}
	if opts.MinProbability > 0 {
		m.minProb = opts.MinProbability
	}
	if opts.MinMargin > 0 {
		m.minMargin = opts.MinMargin
	}
	// In label order, so the model depends on what is registered, not on
	// the order it was registered in.
	intents = slices.Clone(intents)
	sortx.StableFunc(intents, func(a, b Intent) int {
		return cmp.Or(strings.Compare(a.SkillID, b.SkillID), strings.Compare(a.Name, b.Name))
	})
	seen := map[Label]bool{}
	var train, held []example
	for _, in := range intents {
		l := Label{in.SkillID, in.Name}
		if in.SkillID == "" || in.Name == "" {
			return nil, fmt.Errorf("training: intent %q of skill %q: skill and intent name are required", in.Name, in.SkillID)
		}
		if seen[l] {
			return nil, fmt.Errorf("training: intent %s given twice", l)
		}
		seen[l] = true
		if len(in.Templates) > MaxTemplatesPerIntent {
			return nil, fmt.Errorf("training: intent %s: %d templates, limit %d", l, len(in.Templates), MaxTemplatesPerIntent)
		}
		g, err := newGrammar(in)
		if err != nil {
			return nil, fmt.Errorf("training: intent %s: %w", l, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("training: %w", err)
		}
		rng := rand.New(rand.NewPCG(seed, hashString(hashStart(0), l.String())))
		idx := len(m.labels)
		m.labels = append(m.labels, l)
		info, base := g.study(rng, lang, per)
		info.required = slices.Clone(in.RequiredSlots)
		for _, b := range info.bound {
			if !slices.Contains(info.required, b) {
				info.required = append(info.required, b)
			}
		}
		info.samples, info.said = map[string]bool{}, map[string]bool{}
		for _, b := range base {
			k := strings.Join(b, " ")
			info.said[k] = true
			if len(contentOnly(lang, b)) == 0 {
				info.samples[k] = true
			}
		}

		m.infos = append(m.infos, info)
		tr, ho := split(rng, base)
		for _, s := range augment(rng, lang, tr) {
			train = append(train, example{words: s, label: idx})
		}
		for _, s := range augment(rng, lang, ho) {
			held = append(held, example{words: s, label: idx})
		}
	}
	train, held = unambiguous(train, held)
	rng := rand.New(rand.NewPCG(seed, 1))
	tr, ho := split(rng, m.consistent(lang.background))
	m.background = map[string]bool{}
	addWords := func(ss [][]string) {
		for _, s := range ss {
			for _, w := range s {
				if !lang.isFunction(w) {
					m.background[w] = true
				}
			}
		}
	}
	// Calibration sees only the training background's words, as an
	// utterance would; the held-out ones join after.
	addWords(tr)
	defer addWords(ho)
	for _, s := range augmentBackground(rng, lang, tr) {
		train = append(train, example{words: s, label: 0})
	}
	for _, s := range ho {
		held = append(held, example{words: s, label: 0})
	}
	m.index = map[uint64]int32{}
	var buf []feature
	for i := range train {
		buf = featurize(train[i].words, buf)
		train[i].feats, train[i].vals = m.indexFeatures(buf, true)
	}
	for i := range held {
		buf = featurize(held[i].words, buf)
		held[i].feats, held[i].vals = m.indexFeatures(buf, false)
	}
	m.initWeights(train)
	if err := m.fit(ctx, rng, train, cmpOr(opts.Epochs, DefaultEpochs), learningRate); err != nil {
		return nil, err
	}
	m.calibrate(held)
	// The held-out samples are phrasings too: a short last pass learns
	// them, at a step small enough to leave the calibration standing.
	if err := m.fit(ctx, rng, append(train, held...), finalEpochs, finalRate); err != nil {
		return nil, err
	}
	m.stats.MinProbability = m.minProb
	m.stats.Intents = len(m.labels) - 1
	m.stats.Samples = len(train)
	m.stats.HeldOut = len(held)
	m.stats.Features = len(m.index)
	m.stats.Took = time.Since(start)
	return m, nil
}

// unambiguous drops the samples whose words more than one intent says:
// "timer" alone, left of "set the timer" and "check the timer" once
// function words go, says nothing about which of them is meant.
func unambiguous(train, held []example) ([]example, []example) {
	labels := map[string]int{}
	for _, e := range append(slices.Clone(train), held...) {
		k := strings.Join(e.words, " ")
		if l, ok := labels[k]; !ok {
			labels[k] = e.label
		} else if l != e.label {
			labels[k] = -1
		}
	}
	keep := func(samples []example) []example {
		out := samples[:0]
		for _, e := range samples {
			if labels[strings.Join(e.words, " ")] >= 0 {
				out = append(out, e)
			}
		}
		return out
	}
	return keep(train), keep(held)
}

// consistent drops the background sentences that some intent says: when
// most of a sentence's content words are words of one intent ("turn the
// lights back on" against a lights skill), it is no everyday sentence for
// this robot, whatever the generic list thinks.
func (m *Model) consistent(bg [][]string) [][]string {
	out := make([][]string, 0, len(bg))
	for _, s := range bg {
		content := contentOnly(m.lang, s)
		said := false
		for _, info := range m.infos[1:] {
			known := 0
			for _, w := range content {
				if info.words[w] {
					known++
				}
			}
			if len(content) > 0 && 4*known >= 3*len(content) {
				said = true
				break
			}
		}
		if !said {
			out = append(out, s)
		}
	}
	return out
}

func cmpOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// split holds out about one sample in seven for calibration.
func split(rng *rand.Rand, samples [][]string) (train, held [][]string) {
	order := rng.Perm(len(samples))
	for i, j := range order {
		if len(samples) >= 7 && i%7 == 3 {
			held = append(held, samples[j])
		} else {
			train = append(train, samples[j])
		}
	}
	return train, held
}

// indexFeatures maps features to model rows; with add, unseen features get
// a row, otherwise they are dropped (they carry no weight).
func (m *Model) indexFeatures(fs []feature, add bool) ([]int32, []float32) {
	out := make([]int32, 0, len(fs))
	vals := make([]float32, 0, len(fs))
	norm := norm(fs)
	for _, f := range fs {
		r, ok := m.index[f.hash]
		if !ok {
			if !add {
				continue
			}
			r = int32(len(m.index))
			m.index[f.hash] = r
		}
		out = append(out, r)
		vals = append(vals, kindWeight(f.kind)*norm)
	}
	return out, vals
}

// study samples an intent's training text and gathers what Classify and
// the slot finder need: the words its grammar can say, its slots, and its
// skeletons with slots.
func (g *grammar) study(rng *rand.Rand, lang *Language, per int) (*intentInfo, [][]string) {
	info := &intentInfo{words: map[string]bool{}, literal: map[string]bool{}, types: g.types, entities: map[string][][]string{},
		blacklist: map[string]map[string]bool{}}
	for s, ts := range g.blacklist {
		info.blacklist[s] = map[string]bool{}
		for _, t := range ts {
			for _, v := range g.enumerateCapped(t, 200) {
				info.blacklist[s][strings.Join(strings.Fields(intent.Normalize(v)), " ")] = true
			}
		}
	}
	g.words(info.words, false)
	g.words(info.literal, true)
	slots := map[string]bool{}
	for _, line := range g.lines {
		walkSlots(line, func(e elem) { slots[e.name] = true })
	}
	info.slots = slices.Sorted(maps.Keys(slots))
	// A slot every template binds is required in effect: the skill never
	// hears its intent without it, so a paraphrase that leaves it unsaid
	// is asked about, not acted on.
	var always map[string]bool
	for i, line := range g.lines {
		b := boundSlots(line)
		info.lineBound = append(info.lineBound, slices.Sorted(maps.Keys(b)))
		if i == 0 {
			always = b
			continue
		}
		for n := range always {
			if !b[n] {
				delete(always, n)
			}
		}
	}
	info.bound = slices.Sorted(maps.Keys(always))
	for _, s := range info.slots {
		if len(g.entities[s]) == 0 && g.types[s] == "" {
			info.openSlot = true
		}
		for _, t := range g.entities[s] {
			for _, v := range g.enumerateCapped(t, 200) {
				if ws := strings.Fields(intent.Normalize(v)); len(ws) > 0 {
					info.entities[s] = append(info.entities[s], ws)
				}
			}
		}
	}
	sks := g.skeletons(rng, per)
	for i, sk := range sks {
		sks[i] = lang.readTokens(sk)
		for _, t := range sks[i] {
			if t.slot == "" && lang.readAs[t.text] {
				info.words[t.text], info.literal[t.text] = true, true
			}
		}
	}
	// A word is a topic of the intent when its templates mostly say it
	// after a determiner: "timer" in "cancel my timer", not "loud" in "not
	// that loud".
	info.topic, info.pairs, info.negated = map[string]bool{}, map[string]bool{}, map[string]bool{}
	info.whole, info.forms, info.bare = map[string]bool{}, map[string]bool{}, map[string]bool{}
	info.together = pairSet{}
	addWhole := func(sk skeleton) {
		if sk.hasSlot() {
			return
		}
		ws := make([]string, len(sk))
		for i, t := range sk {
			ws[i] = t.text
		}
		info.whole[strings.Join(ws, " ")] = true
		info.bare[strings.Join(lang.unwrap(ws), " ")] = true
		info.together.add(lang, ws)
	}
	// What the templates say as it stands is read from every expansion of
	// a line small enough to expand, not only from the sampled ones: a
	// sample drawn or not says nothing of the request.
	budget := maxWholeSaid
	for _, line := range g.lines {
		n := g.count(line, maxWholeLine, 0)
		if n > maxWholeLine || n > budget {
			continue
		}
		budget -= n
		for _, r := range g.enumerate(line, 0) {
			addWhole(lang.readTokens(tokens(r)))
		}
	}
	said, introduced := map[string]int{}, map[string]int{}
	for _, sk := range sks {
		addWhole(sk)
		var ws []string
		for _, t := range sk {
			if t.slot == "" {
				ws = append(ws, t.text)
			}
		}
		info.together.add(lang, ws)
	}
	info.own = map[string]bool{}
	for b := range info.bare {
		if !strings.Contains(b, " ") && lang.isFunction(b) {
			info.own[b] = true
		}
	}
	for w := range info.whole {
		info.forms[strings.Join(lang.form(strings.Fields(w)), " ")] = true
	}
	for _, sk := range sks {
		for i, t := range sk {
			if t.slot != "" || lang.isFunction(t.text) {
				continue
			}
			said[t.text]++
			if i > 0 && sk[i-1].slot == "" && lang.determiners[sk[i-1].text] {
				introduced[t.text]++
			}
		}
		for i, t := range sk {
			if t.slot == "" && lang.questions[t.text] {
				info.asks = true
			}
			if i == 0 || t.slot != "" || sk[i-1].slot != "" {
				continue
			}
			k := sk[i-1].text + " " + t.text
			info.pairs[k] = true
			if lang.negations[sk[i-1].text] {
				info.negated[t.text] = true
			}
			if lang.questions[k] && !lang.polite[k] {
				info.asks = true
			}
		}
	}
	for w, n := range introduced {
		if 2*n >= said[w] {
			info.topic[w] = true
		}
	}
	rng.Shuffle(len(sks), func(i, j int) { sks[i], sks[j] = sks[j], sks[i] })
	for _, sk := range sks {
		if sk.hasSlot() && len(info.skeletons) < 400 {
			info.skeletons = append(info.skeletons, sk)
		}
	}
	var out [][]string
	seen := map[string]bool{}
	add := func(ws []string) {
		k := strings.Join(ws, " ")
		if len(ws) > 0 && !seen[k] {
			seen[k] = true
			out = append(out, ws)
		}
	}
	// Every skeleton once, then the ones with slots again with other
	// values until the budget is spent.
	for round := 0; round < 4 && len(out) < per; round++ {
		for _, sk := range sks {
			if len(out) >= per || (round > 0 && !sk.hasSlot()) {
				continue
			}
			add(g.render(rng, lang, sk))
		}
	}
	return info, out
}

// render fills a skeleton's slots.
func (g *grammar) render(rng *rand.Rand, lang *Language, sk skeleton) []string {
	var ws []string
	for _, t := range sk {
		if t.slot == "" {
			ws = append(ws, t.text)
			continue
		}
		ws = append(ws, g.fill(rng, lang, t)...)
	}
	return ws
}

// words adds every literal word the grammar can say: its templates, the
// vocabularies they reach and, unless templatesOnly, its entity values.
// It walks the structure, so it costs the size of the templates, not of
// their expansions.
func (g *grammar) words(into map[string]bool, templatesOnly bool) {
	var walk func(seq []elem, depth int)
	walk = func(seq []elem, depth int) {
		for _, e := range seq {
			switch e.kind {
			case kText:
				for _, w := range strings.Fields(intent.Normalize(e.text)) {
					into[w] = true
				}
			case kVocab:
				if depth < maxVocabDepth {
					for _, v := range g.vocab[e.name] {
						walk(v, depth+1)
					}
				}
			case kGroup:
				for _, b := range e.branches {
					walk(b, depth)
				}
			}
		}
	}
	for _, l := range g.lines {
		walk(l, 0)
	}
	if templatesOnly {
		return
	}
	for _, es := range g.entities {
		for _, e := range es {
			walk(e, 0)
		}
	}
}

// enumerateCapped expands a slot-free template when it has at most limit
// expansions, else draws limit of them.
func (g *grammar) enumerateCapped(seq []elem, limit int) []string {
	if g.count(seq, limit, 0) <= limit {
		return g.enumerate(seq, 0)
	}
	rng := rand.New(rand.NewPCG(DefaultSeed, uint64(limit)))
	out := make([]string, 0, limit)
	for range limit {
		var b strings.Builder
		g.draw(rng, seq, 0, &b)
		out = append(out, b.String())
	}
	return out
}

// augment adds how people wrap what the templates say: polite prefixes and
// suffixes, indirect questions ("i wonder what time it is"), the content
// words alone ("time?"), and a word left out.
func augment(rng *rand.Rand, lang *Language, base [][]string) [][]string {
	out := make([][]string, 0, len(base)*2)
	for _, s := range base {
		out = append(out, s)
		if len(lang.prefixes) > 0 && rng.IntN(3) == 0 {
			out = append(out, join(lang.prefixes[rng.IntN(len(lang.prefixes))], s))
		}
		if len(lang.suffixes) > 0 && rng.IntN(4) == 0 {
			out = append(out, join(s, lang.suffixes[rng.IntN(len(lang.suffixes))]))
		}
		if len(lang.indirect) > 0 && rng.IntN(2) == 0 {
			if inv, ok := indirect(lang, s); ok {
				out = append(out, join(lang.indirect[rng.IntN(len(lang.indirect))], inv))
			}
		}
		if c := contentOnly(lang, s); len(c) > 0 && len(c) <= 3 && len(c) < len(s) && rng.IntN(2) == 0 {
			out = append(out, c)
		}
		if len(s) >= 3 && rng.IntN(4) == 0 {
			// Speakers drop function words ("set timer for ten minutes");
			// dropping any other word may drop the one that says which
			// intent is meant.
			i := rng.IntN(len(s))
			if lang.isFunction(s[i]) {
				out = append(out, append(slices.Clone(s[:i]), s[i+1:]...))
			}
		}
	}
	return out
}

// augmentBackground wraps some background sentences the way requests are
// wrapped, so wrappers say nothing about any intent.
func augmentBackground(rng *rand.Rand, lang *Language, base [][]string) [][]string {
	out := slices.Clone(base)
	for _, s := range base {
		if len(lang.prefixes) > 0 && rng.IntN(4) == 0 {
			out = append(out, join(lang.prefixes[rng.IntN(len(lang.prefixes))], s))
		}
		if len(lang.indirect) > 0 && rng.IntN(6) == 0 {
			if inv, ok := indirect(lang, s); ok {
				out = append(out, join(lang.indirect[rng.IntN(len(lang.indirect))], inv))
			}
		}
	}
	return out
}

func join(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

var questionWords = map[string]bool{"what": true, "whats": true, "which": true, "who": true, "whos": true,
	"where": true, "when": true, "how": true, "hows": true}

var auxiliaries = map[string]bool{"is": true, "are": true, "was": true, "were": true, "do": true, "does": true,
	"did": true, "can": true, "will": true, "should": true, "have": true, "has": true}

// indirect turns a direct question into its indirect form: "what time is
// it" → "what time it is", "whats the date" → "what the date is". English
// word order; other languages get no indirect forms.
func indirect(lang *Language, s []string) ([]string, bool) {
	if len(s) < 2 || !questionWords[s[0]] || len(lang.indirect) == 0 {
		return nil, false
	}
	switch s[0] {
	case "whats":
		return append([]string{"what"}, append(slices.Clone(s[1:]), "is")...), true
	case "hows":
		return append([]string{"how"}, append(slices.Clone(s[1:]), "is")...), true
	case "whos":
		return append([]string{"who"}, append(slices.Clone(s[1:]), "is")...), true
	}
	for i := 1; i < len(s) && i <= 3; i++ {
		if auxiliaries[s[i]] {
			if i+1 >= len(s) {
				return nil, false
			}
			out := slices.Clone(s[:i])
			out = append(out, s[i+1:]...)
			return append(out, s[i]), true
		}
	}
	return nil, false
}

// contentOnly keeps the words that are not function words.
func contentOnly(lang *Language, s []string) []string {
	var out []string
	for _, w := range s {
		if !lang.isFunction(w) {
			out = append(out, w)
		}
	}
	return out
}

// initWeights sizes the weights for the features indexed and weighs the
// classes so each intent counts alike however many samples it has.
func (m *Model) initWeights(train []example) {
	k := len(m.labels)
	m.k = k
	m.w = make([]float32, len(m.index)*k)
	m.bias = make([]float32, k)
	counts := make([]float64, k)
	for _, e := range train {
		counts[e.label]++
	}
	avg := float64(len(train)) / float64(k)
	m.classWeight = make([]float32, k)
	for c := range k {
		if counts[c] > 0 {
			m.classWeight[c] = float32(min(max(avg/counts[c], 0.3), 3))
		}
	}
}

// fit trains the softmax weights by stochastic gradient descent from a
// first step of lr0, decaying as 1/(1+ep/2). It stops between epochs
// when ctx ends.
func (m *Model) fit(ctx context.Context, rng *rand.Rand, train []example, epochs int, lr0 float32) error {
	k := m.k
	cw := m.classWeight
	scores := make([]float32, k)
	grad := make([]float32, k)
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	for ep := range epochs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("training: %w", err)
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		lr := lr0 / (1 + 0.5*float32(ep))
		for _, i := range order {
			e := &train[i]
			m.scores(e.feats, e.vals, scores)
			softmax(scores, 1)
			wt := cw[e.label]
			for c := range k {
				g := scores[c]
				if c == e.label {
					g--
				}
				grad[c] = g * wt
			}
			for c := range k {
				m.bias[c] -= lr * grad[c]
			}
			for j, f := range e.feats {
				row := m.w[int(f)*k : int(f)*k+k]
				x := e.vals[j]
				for c, g := range grad {
					if g > -1e-4 && g < 1e-4 {
						continue
					}
					row[c] -= lr * (g*x + l2*row[c])
				}
			}
		}
	}
	return nil
}

// scores computes the raw class scores of a feature bag.
func (m *Model) scores(feats []int32, vals []float32, out []float32) {
	copy(out, m.bias)
	k := m.k
	for j, f := range feats {
		row := m.w[int(f)*k : int(f)*k+k]
		x := vals[j]
		for c, v := range row {
			out[c] += v * x
		}
	}
}

// softmax turns scores into probabilities in place, at temperature t.
func softmax(s []float32, t float32) {
	mx := s[0]
	for _, v := range s {
		mx = max(mx, v)
	}
	var sum float32
	for i, v := range s {
		e := float32(math.Exp(float64((v - mx) / t)))
		s[i] = e
		sum += e
	}
	for i := range s {
		s[i] /= sum
	}
}

// calibrate picks the temperature that makes the held-out probabilities
// honest (least negative log-likelihood), then raises the thresholds if
// held-out samples show claims they would let through wrongly.
func (m *Model) calibrate(held []example) {
	m.temp = 1
	if len(held) == 0 {
		return
	}
	raw := make([][]float32, len(held))
	for i, e := range held {
		raw[i] = make([]float32, m.k)
		m.scores(e.feats, e.vals, raw[i])
	}
	p := make([]float32, m.k)
	best := math.Inf(1)
	for _, t := range []float32{0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5} {
		nll := 0.0
		for i, e := range held {
			copy(p, raw[i])
			softmax(p, t)
			nll -= math.Log(max(float64(p[e.label]), 1e-12))
		}
		if nll < best {
			best, m.temp = nll, t
		}
	}
	right, intents := 0, 0
	for i, e := range held {
		copy(p, raw[i])
		softmax(p, m.temp)
		top := argmax(p)
		if e.label != 0 {
			intents++
			if top == e.label {
				right++
			}
		}
	}
	if intents > 0 {
		m.stats.HeldOutAccuracy = float64(right) / float64(intents)
	}
	m.stats.Temperature = float64(m.temp)
	// The least probability of a claim stays at its floor, chosen on
	// natural paraphrases (docs/paraphrase.md), unless the held-out
	// samples show more than maxHeldOutWrong of the floor's claims going
	// to the wrong intent: intents that overlap that much need more
	// certainty. Held-out samples are template text, easier than what
	// people say, so they can only raise the floor, never lower it.
	probs := make([][]float32, len(held))
	for i := range held {
		probs[i] = make([]float32, m.k)
		copy(probs[i], raw[i])
		softmax(probs[i], m.temp)
	}
	for th := m.minProb; th < 0.96; th += 0.025 {
		m.minProb = th
		claims, wrong := 0, 0
		for i, e := range held {
			top, ok := m.decide(e.words, probs[i])
			if !ok {
				continue
			}
			claims++
			if top != e.label {
				wrong++
			}
		}
		if float64(wrong) <= maxHeldOutWrong*float64(claims) {
			break
		}
	}
}

func argmax(p []float32) int {
	best := 0
	for i, v := range p {
		if v > p[best] {
			best = i
		}
	}
	return best
}
