package paraphrase

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// Model is a trained paraphrase classifier: a softmax over the registered
// intents and a "none" class of everyday sentences, with calibrated
// thresholds. It is read-only after Train, so Classify may run
// concurrently.
type Model struct {
	lang   *Language
	labels []Label // labels[0] is "none"
	infos  []*intentInfo
	index  map[uint64]int32
	// background holds the words of the everyday sentences.
	background map[string]bool
	k          int
	w          []float32 // feature-major: w[row*k+class]
	bias       []float32
	temp       float32
	// classWeight evens out the classes' sample counts in training.
	classWeight []float32

	minProb, minMargin float64
	stats              TrainStats
}

// intentInfo is what the model keeps of one intent besides its weights.
type intentInfo struct {
	// words are the words its grammar and entity lists can say.
	words map[string]bool
	slots []string
	types map[string]string
	// entities are the slot values its entity lists spell, as words.
	entities map[string][][]string
	// blacklist holds the values that never fill a slot (RES-06).
	blacklist map[string]map[string]bool
	required  []string
	// skeletons are sampled template expansions with slot markers, for
	// finding open slot values.
	skeletons []skeleton
	// openSlot: some slot has neither a type nor an entity list, so words
	// the intent does not know may be its value.
	openSlot bool
	// samples are its training samples made of function words only, as
	// said.
	samples map[string]bool
}

// Stats says what training did.
func (m *Model) Stats() TrainStats { return m.stats }

// Thresholds are the calibrated least probability and margin of a claim.
func (m *Model) Thresholds() (minProbability, minMargin float64) { return m.minProb, m.minMargin }

// Labels lists the intents the model knows.
func (m *Model) Labels() []Label { return slices.Clone(m.labels[1:]) }

// Scored is one class with its calibrated probability.
type Scored struct {
	Label
	Probability float64
}

// Evidence is one feature's pull towards the winner and away from the
// runner-up.
type Evidence struct {
	Feature string
	Weight  float64
}

// Decision is what Classify made of an utterance.
type Decision struct {
	// Ranked lists the classes by probability, "none" (the zero Label)
	// among them; at most five.
	Ranked []Scored
	// Claim is true when the winner is an intent whose probability and
	// lead clear the calibrated thresholds and the utterance gives it
	// evidence; Label is then the winner.
	Claim bool
	Label Label
	// Probability is the winner's calibrated probability.
	Probability float64
	// Reason says why the tier abstained; empty for a claim.
	Reason string
	// Why lists the features that most favour the winner over the
	// runner-up.
	Why []Evidence
}

// Classify ranks the intents for an utterance and decides whether to
// claim the best one. It abstains unless the winner is an intent with at
// least the calibrated probability and margin, the utterance says some
// word the intent's templates or entities know, and it leaves no more
// words unexplained than it explains (an open slot may explain the rest).
func (m *Model) Classify(utterance string) Decision {
	return m.ClassifyAmong(utterance, nil)
}

// ClassifyAmong is Classify over the intents allow accepts (nil accepts
// all): the others are out of the running, as an intent whose required
// context is not live (CTX-11) is, and their probability counts for
// "none".
func (m *Model) ClassifyAmong(utterance string, allow func(Label) bool) Decision {
	words := strings.Fields(intent.Normalize(utterance))
	if len(words) == 0 {
		return Decision{Reason: "empty utterance"}
	}
	if len(words) > MaxUtteranceWords {
		return Decision{Reason: fmt.Sprintf("utterance has %d words, more than the %d the tier reads", len(words), MaxUtteranceWords)}
	}
	fs := featurize(words, nil)
	rows := make([]int32, 0, len(fs))
	vals := make([]float32, 0, len(fs))
	known := make([]feature, 0, len(fs))
	nm := norm(fs)
	for _, f := range fs {
		if r, ok := m.index[f.hash]; ok {
			rows = append(rows, r)
			vals = append(vals, kindWeight(f.kind)*nm)
			known = append(known, f)
		}
	}
	p := make([]float32, m.k)
	m.scores(rows, vals, p)
	softmax(p, m.temp)
	if allow != nil {
		// What the model gives an intent out of the running goes to
		// "none", not to the others: "make it snappy" sounds like a change
		// to a timer, and with no timer just set it is nothing.
		for c := 1; c < m.k; c++ {
			if !allow(m.labels[c]) {
				p[0] += p[c]
				p[c] = 0
			}
		}
	}
	order := make([]int, m.k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] > p[b]:
			return -1
		case p[a] < p[b]:
			return 1
		}
		return 0
	})
	d := Decision{}
	for _, c := range order[:min(5, len(order))] {
		d.Ranked = append(d.Ranked, Scored{Label: m.labels[c], Probability: float64(p[c])})
	}
	top, second := order[0], order[min(1, len(order)-1)]
	d.Label, d.Probability = m.labels[top], float64(p[top])
	d.Why = m.why(words, known, rows, vals, top, second)
	d.Reason = m.verdict(words, p, top, second)
	d.Claim = d.Reason == ""
	return d
}

// verdict says why the model abstains from the winner top, "" when it
// claims it: the winner must be an intent, clear the least probability
// and margin over the runner-up, and have evidence in the words.
func (m *Model) verdict(words []string, p []float32, top, second int) string {
	margin := float64(p[top] - p[second])
	switch {
	case top == 0:
		return "it sounds like none of the intents"
	case float64(p[top]) < m.minProb:
		return fmt.Sprintf("%s at %.2f is below the %.2f needed", m.labels[top], p[top], m.minProb)
	case margin < m.minMargin:
		return fmt.Sprintf("%s leads %s by only %.2f (%.2f needed)", m.labels[top], m.labels[second], margin, m.minMargin)
	}
	if ok, why := m.evidence(top, words); !ok {
		return why
	}
	return ""
}

// decide is Classify's decision on probabilities already computed: the
// winner and whether it is claimed.
func (m *Model) decide(words []string, p []float32) (int, bool) {
	top, second := 0, -1
	for c := range p {
		switch {
		case p[c] > p[top]:
			top, second = c, top
		case c != top && (second < 0 || p[c] > p[second]):
			second = c
		}
	}
	if second < 0 {
		second = top
	}
	return top, m.verdict(words, p, top, second) == ""
}

// evidence checks that the utterance rests on words the intent knows: at
// least one of its content words (or a slot value) must be one the
// intent's templates or entities say, no content word may be one that
// only everyday sentences say ("turn off the oven": the background knows
// "oven", the mute intent does not), and unknown words may not outnumber
// known ones. Slot values count as known.
func (m *Model) evidence(c int, words []string) (bool, string) {
	info := m.infos[c]
	inSlot := make([]bool, len(words))
	for _, sp := range m.slotSpans(info, words) {
		for k := sp[0]; k < sp[1]; k++ {
			inSlot[k] = true
		}
	}
	var knownWords, unknown, foreign []string
	for i, w := range words {
		switch {
		case m.lang.narrative[w] && !info.words[w]:
			return false, fmt.Sprintf("%q tells about someone or something else; %s never says it", w, m.labels[c])
		case m.lang.isFunction(w):
		case inSlot[i] || info.words[w]:
			knownWords = append(knownWords, w)
		case m.background[w]:
			foreign = append(foreign, w)
		default:
			unknown = append(unknown, w)
		}
	}
	switch {
	case len(foreign) > 0:
		return false, fmt.Sprintf("%s does not know %s, which everyday speech says", m.labels[c], strings.Join(foreign, ", "))
	case len(knownWords) == 0 && len(unknown) == 0:
		// Only function words: "what can you do" is the intent only as the
		// intent says it; "it is what it is" is nothing.
		if info.samples[strings.Join(words, " ")] {
			return true, ""
		}
		return false, fmt.Sprintf("only function words, and not as %s says them", m.labels[c])
	case len(knownWords) == 0:
		return false, fmt.Sprintf("no word of it is one %s knows (%s)", m.labels[c], strings.Join(unknown, ", "))
	case len(unknown) > len(knownWords):
		return false, fmt.Sprintf("%d words %s does not know (%s), more than the %d it knows",
			len(unknown), m.labels[c], strings.Join(unknown, ", "), len(knownWords))
	}
	return true, ""
}

// why returns the features pulling most towards top and away from second.
func (m *Model) why(words []string, fs []feature, rows []int32, vals []float32, top, second int) []Evidence {
	type pull struct {
		name string
		v    float32
	}
	byName := map[string]float32{}
	for i, f := range fs {
		r := int(rows[i]) * m.k
		byName[f.name(words)] += (m.w[r+top] - m.w[r+second]) * vals[i]
	}
	var ps []pull
	for n, v := range byName {
		if v > 0 {
			ps = append(ps, pull{n, v})
		}
	}
	slices.SortFunc(ps, func(a, b pull) int {
		switch {
		case a.v > b.v:
			return -1
		case a.v < b.v:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]Evidence, 0, 5)
	for _, p := range ps[:min(5, len(ps))] {
		out = append(out, Evidence{Feature: p.name, Weight: float64(p.v)})
	}
	return out
}
