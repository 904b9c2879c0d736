package paraphrase

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/internal/sortx"
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
	// words are the words its grammar and entity lists can say; literal
	// the words its templates say, entity values aside.
	words, literal map[string]bool
	slots          []string
	types          map[string]string
	// entities are the slot values its entity lists spell, as words.
	entities map[string][][]string
	// blacklist holds the values that never fill a slot (RES-06).
	blacklist map[string]map[string]bool
	// required are its required slots and those every template binds
	// (bound); lineBound the slots each template binds.
	required, bound []string
	lineBound       [][]string
	// skeletons are sampled template expansions with slot markers, for
	// finding open slot values.
	skeletons []skeleton
	// openSlot: some slot has neither a type nor an entity list, so words
	// the intent does not know may be its value.
	openSlot bool
	// samples are its training samples made of function words only, as
	// said.
	samples map[string]bool
	// said holds its training samples as said, before augmentation.
	said map[string]bool
	// topic holds the words its templates put right after a determiner:
	// what its requests are about ("the timer", "your favorite color"),
	// which alone is no request.
	topic map[string]bool
	// pairs holds the pairs of adjacent words its templates say ("what
	// time"), slots aside.
	pairs map[string]bool
	// negated holds the words its templates say right after a negation
	// ("be" in "dont be quiet").
	negated map[string]bool
	// asks is true when one of its templates asks a question, a polite
	// opening that wraps any request ("can you") aside.
	asks bool
	// whole holds what its slot-free templates say as it stands: every
	// expansion of a line small enough to expand, and the sampled ones of
	// the others. forms holds the same with function words left out
	// (Language.form): "quiet" for "be quiet please", "speak up" for
	// "speak up a bit"; bare with the one-word wrappers it begins and
	// ends with left out ("be quiet").
	whole, forms, bare map[string]bool
	// own holds the function words one of its templates says alone, as
	// the whole request ("thanks"): for it they ask, and tell it from
	// another intent, though they are no evidence of what it is about.
	own map[string]bool
	// together holds the pairs of opposites (Language.Opposites) one of
	// its templates says in one sentence.
	together pairSet
}

// pairSet holds pairs of words, in either order.
type pairSet map[[2]string]bool

func (p pairSet) has(a, b string) bool { return p[[2]string{a, b}] || p[[2]string{b, a}] }

// add adds the pairs of opposites words says.
func (p pairSet) add(lang *Language, words []string) {
	for _, w := range words {
		for _, o := range lang.opposites[w] {
			if slices.Contains(words, o) {
				p[[2]string{w, o}] = true
			}
		}
	}
}

// function reports whether w is a function word for the intent when
// asking whether the utterance makes a request and whether it tells the
// intent from a rival: one of the language's, unless the intent says it
// alone as a request.
func (m *Model) function(info *intentInfo, w string) bool {
	return m.lang.isFunction(w) && !info.own[w]
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
	// Unsure is true when it abstained only for want of probability or
	// lead: the winner is an intent the words give evidence for, a
	// half-understanding worth a question rather than junk.
	Unsure bool
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
	words := m.lang.uncontrast(m.lang.read(strings.Fields(intent.Normalize(utterance))))
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
	d.Reason, d.Unsure = m.verdict(words, p, top, second)
	d.Claim = d.Reason == ""
	return d
}

// verdict says why the model abstains from the winner top, "" when it
// claims it: the winner must be an intent, have evidence in the words, and
// clear the least probability and margin over the runner-up. unsure is
// true when only the last failed.
func (m *Model) verdict(words []string, p []float32, top, second int) (reason string, unsure bool) {
	if top == 0 {
		return "it sounds like none of the intents", false
	}
	if ok, why := m.evidence(top, rival(p, top), words); !ok {
		return why, false
	}
	margin := float64(p[top] - p[second])
	switch {
	case float64(p[top]) < m.minProb:
		return fmt.Sprintf("%s at %.2f is below the %.2f needed", m.labels[top], p[top], m.minProb), true
	case margin < m.minMargin:
		return fmt.Sprintf("%s leads %s by only %.2f (%.2f needed)", m.labels[top], m.labels[second], margin, m.minMargin), true
	}
	return "", false
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
	// The cheap checks first: calibration decides on every held-out sample.
	if top == 0 || float64(p[top]) < m.minProb || float64(p[top]-p[second]) < m.minMargin {
		return top, false
	}
	ok, _ := m.evidence(top, rival(p, top), words)
	return top, ok
}

// rival is the likeliest intent other than top still in the running, 0
// when there is none.
func rival(p []float32, top int) int {
	r := 0
	for c := 1; c < len(p); c++ {
		if c != top && p[c] > 0 && (r == 0 || p[c] > p[r]) {
			r = c
		}
	}
	return r
}

// evidence checks that the utterance rests on words the intent knows: at
// least one of its content words (or a slot value) must be one the
// intent's templates or entities say, no content word may be one that
// only everyday sentences say ("turn off the oven": the background knows
// "oven", the mute intent does not), and unknown words may not outnumber
// known ones. The word a determiner introduces names what the request is
// about, so it must be one the intent knows ("turn down the offer" is not
// about the volume). Slot values count as known, but one slot's value
// alone is no request: a word the intent's templates say (a function word
// too), or the values of two of its slots, must be said too ("blue" is a
// value of "do you like {thing}", not a question about it), unless the
// utterance is one of its samples as it stands. A sample aside, the
// utterance must also make a request, not only name what one would be
// about (request), and say something that tells the intent from r, its
// likeliest rival, if any (separates): a model trained on requests and
// everyday speech has never seen a fragment, and its probability on one
// says nothing.
func (m *Model) evidence(c, r int, words []string) (bool, string) {
	info := m.infos[c]
	inSlot := make([]bool, len(words))
	spans := m.slotSpans(info, words)
	for _, sp := range spans {
		for k := sp[0]; k < sp[1]; k++ {
			inSlot[k] = true
		}
	}
	var knownWords, unknown, foreign []string
	own := false // a template word outside the slots, function words too
	for i, w := range words {
		own = own || !inSlot[i] && info.literal[w]
		if i > 0 && m.lang.determiners[words[i-1]] && !inSlot[i] && !info.words[w] && !m.lang.isFunction(w) {
			return false, fmt.Sprintf("%q names something %s never talks about", words[i-1]+" "+w, m.labels[c])
		}
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
		if info.samples[strings.Join(words, " ")] || info.whole[strings.Join(words, " ")] {
			return true, ""
		}
		return false, fmt.Sprintf("only function words, and not as %s says them", m.labels[c])
	case len(knownWords) == 0:
		return false, fmt.Sprintf("no word of it is one %s knows (%s)", m.labels[c], strings.Join(unknown, ", "))
	case len(unknown) > len(knownWords):
		return false, fmt.Sprintf("%d words %s does not know (%s), more than the %d it knows",
			len(unknown), m.labels[c], strings.Join(unknown, ", "), len(knownWords))
	case !own && len(spans) < 2 && !info.samples[strings.Join(words, " ")]:
		return false, fmt.Sprintf("only a slot value (%s), no word of %s's own", strings.Join(knownWords, ", "), m.labels[c])
	case info.said[strings.Join(words, " ")], info.whole[strings.Join(words, " ")]:
		// As its templates say it ("weather?" where a template says
		// "[the] weather"): the skill's own word for it.
	case m.negates(info, words):
		return false, fmt.Sprintf("negated: %s never says what follows a negation here", m.labels[c])
	case m.opposed(info, words, inSlot) != "":
		return false, fmt.Sprintf("names both %s, opposite actions %s never says together", m.opposed(info, words, inSlot), m.labels[c])
	case !info.asks && m.asks(words):
		return false, fmt.Sprintf("a question, and %s is asked for, never asked about", m.labels[c])
	case len(spans) == 0 && m.lone(info, words):
		return false, fmt.Sprintf("%q alone is no request; %s never says it alone", strings.Join(m.lang.unwrap(words), " "), m.labels[c])
	case !m.request(info, words, inSlot):
		return false, fmt.Sprintf("no request, only what it would be about (%s)", strings.Join(knownWords, ", "))
	case r > 0 && !m.separates(c, r, words, inSlot):
		return false, fmt.Sprintf("nothing said tells %s from %s", m.labels[c], m.labels[r])
	}
	return true, ""
}

// negates reports whether the utterance says a negation the intent's
// templates do not: "dont unmute" asks for the opposite of unmuting, and
// "dont be quiet" is how unmuting is asked. Any negation before the word
// a template negates counts ("do not be quiet").
func (m *Model) negates(info *intentInfo, words []string) bool {
	for i, w := range words {
		if m.lang.negations[w] && (i+1 == len(words) || !info.negated[words[i+1]]) {
			return true
		}
	}
	return false
}

// opposed returns two opposite words the utterance says outside the
// slots ("off and on") that no template of the intent says together, ""
// for none: a request for both actions is a request for neither, and
// which one the model favours is chance ("turn it off and on again").
func (m *Model) opposed(info *intentInfo, words []string, inSlot []bool) string {
	for i, w := range words {
		if inSlot[i] {
			continue
		}
		for j, o := range words {
			if j > i && !inSlot[j] && slices.Contains(m.lang.opposites[w], o) && !info.together.has(w, o) {
				return w + " and " + o
			}
		}
	}
	return ""
}

// asks reports whether the utterance opens with a question, one-word
// wrappers aside ("is the mute on", "how do i turn the mute off"): a
// question about a state or a way is no request of an intent that is
// never asked anything. A polite opening that wraps any request ("can
// you turn on mute") is no such question.
func (m *Model) asks(words []string) bool {
	u := m.lang.unwrap(words)
	switch {
	case len(u) == 0:
		return false
	case m.lang.questions[u[0]]:
		return true
	case len(u) > 1:
		k := u[0] + " " + u[1]
		return m.lang.questions[k] && !m.lang.polite[k]
	}
	return false
}

// lone reports whether the utterance is one word with nothing but
// one-word wrappers around it ("please", "jibo", "now"), where the
// intent's templates never say that word alone, function words aside:
// "back please", "again please" and "stop please" only complete a
// request the intent always says with more ("bring the sound back", "you
// can talk again", "stop being quiet"), while "louder please" and "quiet
// please" are its requests as they stand.
func (m *Model) lone(info *intentInfo, words []string) bool {
	u := m.lang.unwrap(words)
	return len(u) == 1 && !m.lang.isFunction(u[0]) && !info.forms[u[0]]
}

// request reports whether the utterance asks or tells the intent
// something rather than naming what it would be about: some word outside
// the slots asks (a question word, or the pair that opens a yes-or-no
// question: "are you"), or is a word of the intent that is no topic of
// it, neither a word its templates mostly put after a determiner nor one
// a determiner introduces in the utterance; or a slot value is said with
// a word of the intent's own. "Cancel my timer", "what time is it" and
// "timer for ten minutes" are requests; "my timer", "about the time" and
// "your favorite color" are not.
func (m *Model) request(info *intentInfo, words []string, inSlot []bool) bool {
	for i, w := range words {
		switch {
		case inSlot[i]:
			return true // evidence has made sure a word of the intent's own is said too
		case m.lang.questions[w], i+1 < len(words) && !inSlot[i+1] && m.lang.questions[w+" "+words[i+1]]:
			return true
		case m.function(info, w) || !info.words[w] || info.topic[w]:
		case i > 0 && m.lang.determiners[words[i-1]]:
		case m.lang.particles[w] && !m.completes(words, inSlot, i):
		default:
			return true
		}
	}
	return false
}

// completes reports whether the particle at words[i] has something to
// complete: a word outside the slots that is neither a function word nor
// a particle ("turn it back on", "volume up", "pipe down a bit"). A
// particle alone names a direction, not a request: "back on please" says
// nothing of what to bring back.
func (m *Model) completes(words []string, inSlot []bool, i int) bool {
	for j, w := range words {
		if j != i && !inSlot[j] && !m.lang.isFunction(w) && !m.lang.particles[w] {
			return true
		}
	}
	return false
}

// separates reports whether what was said tells intent c from its rival
// r: a word, or two words side by side, that c's templates say and r's do
// not (a pair with a function word only where it asks, "how are things",
// "is my timer done", or where its other word is a particle and the
// function word no mere wrapper, "down a bit" against "count down from";
// "timer please" and "down please" are as polite for one as for
// another), or r
// cannot be meant, each of its templates binding a slot the utterance
// has no value for ("close the garage door" sets no position). Without
// one, what picked c over r is no word of the request: "about my timer"
// asks after the timer as much as it cancels it.
func (m *Model) separates(c, r int, words []string, inSlot []bool) bool {
	ci, ri := m.infos[c], m.infos[r]
	// Only the rival's typed and listed values count: an open slot sits
	// anywhere, and "louder" is no thing one is asked to like.
	rSpans := m.spans(ri, words, false)
	if len(ri.lineBound) > 0 && !slices.ContainsFunc(ri.lineBound, func(bound []string) bool {
		return !slices.ContainsFunc(bound, func(s string) bool { _, ok := rSpans[s]; return !ok })
	}) {
		return true
	}
	// Said as c's templates say it and as r's never do, one-word wrappers
	// aside: "be quiet please" is how muting is asked, and unmuting says
	// "be quiet" only with more ("dont be quiet").
	if !slices.Contains(inSlot, true) {
		if b := strings.Join(m.lang.unwrap(words), " "); ci.bare[b] && !ri.bare[b] {
			return true
		}
	}
	rSlot := make([]bool, len(words))
	for _, sp := range rSpans {
		for k := sp[0]; k < sp[1]; k++ {
			rSlot[k] = true
		}
	}
	for i, w := range words {
		if m.function(ci, w) && !m.lang.questions[w] {
			continue
		}
		if (inSlot[i] || ci.words[w]) && !rSlot[i] && !ri.words[w] {
			return true
		}
	}
	for i := 1; i < len(words); i++ {
		a, b := words[i-1], words[i]
		k := a + " " + b
		content := !m.lang.isFunction(a) && !m.lang.isFunction(b)
		asks := m.lang.questions[a] || m.lang.questions[b] || m.lang.questions[k]
		particle := m.lang.particles[a] && !m.lang.wrapWords[b] || m.lang.particles[b] && !m.lang.wrapWords[a]
		if inSlot[i-1] || inSlot[i] || !content && !asks && !particle {
			continue
		}
		if ci.pairs[k] && !ri.pairs[k] {
			return true
		}
	}
	return false
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
	sortx.Func(ps, func(a, b pull) int {
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
