package intent

import (
	"slices"
	"strings"
)

// Limits of the topics worked out at registration.
const (
	// MaxTopicWords bounds the words of one topic phrase: a longer run
	// after a determiner is no name of a thing one would say alone.
	MaxTopicWords = 3
	// maxTopicRuns bounds the open runs carried through one template.
	maxTopicRuns = 256
	// maxTopics bounds the topic phrases kept of one definition.
	maxTopics = 512
)

// topicsOf returns the topics of a definition's templates: the phrases
// they say after a determiner of the language, from the determiner up to
// the next word that is no content word (a function, optional or filler
// word, another determiner), a slot or the end. "Cancel my timer" gives
// "my timer", "what is your favorite color" "your favorite color", "the
// [current] time" "the time" and "the current time" but nothing of
// "current" alone. Nil without determiners.
func topicsOf(templates []*ctemplate, lex *Lexicon) []string {
	if lex == nil || len(lex.determiners) == 0 {
		return nil
	}
	tf := &topicFlow{lex: lex, seen: map[string]bool{}}
	for _, t := range templates {
		tf.close(tf.flow(t.root, nil))
	}
	return tf.topics
}

// topicFlow follows a template's words from left to right, carrying the
// runs of content words begun after a determiner that are still open.
type topicFlow struct {
	lex    *Lexicon
	seen   map[string]bool
	topics []string
}

// flow returns the runs open after g given those open before it, each
// its determiner and the words after it.
func (tf *topicFlow) flow(g *gnode, in []string) []string {
	switch g.kind {
	case gWord:
		return tf.step(in, g.word)
	case gSlot:
		tf.close(in)
		return nil
	case gTrie:
		var out []string
		for _, p := range g.phrases {
			s := in
			for w := range strings.SplitSeq(p, " ") {
				s = tf.step(s, w)
			}
			out = append(out, s...)
		}
		if g.null {
			out = append(out, in...)
		}
		return set(out)
	case gAlt:
		var out []string
		for _, k := range g.kids {
			out = append(out, tf.flow(k, in)...)
		}
		if g.null {
			out = append(out, in...)
		}
		return set(out)
	case gSeq:
		s := in
		for _, k := range g.kids {
			s = tf.flow(k, s)
		}
		return s
	}
	return nil
}

// step takes word w after the open runs in.
func (tf *topicFlow) step(in []string, w string) []string {
	switch {
	case tf.lex.determiners[w]:
		tf.close(in)
		return []string{w}
	case tf.lex.optional[w] || tf.lex.function[w] || tf.lex.fillerWord(w):
		tf.close(in)
		return nil
	}
	var out []string
	for _, r := range in {
		if strings.Count(r, " ") < MaxTopicWords {
			out = append(out, r+" "+w)
		}
	}
	return out
}

// close ends the open runs: each but a bare determiner is a topic.
func (tf *topicFlow) close(runs []string) {
	for _, r := range runs {
		if strings.Contains(r, " ") && !tf.seen[r] && len(tf.topics) < maxTopics {
			tf.seen[r] = true
			tf.topics = append(tf.topics, r)
		}
	}
}

// set sorts the runs and drops repeats, keeping at most maxTopicRuns.
func set(runs []string) []string {
	slices.Sort(runs)
	runs = slices.Compact(runs)
	return runs[:min(len(runs), maxTopicRuns)]
}

// fillerWord reports whether w is a filler phrase of one word ("please",
// "um").
func (l *Lexicon) fillerWord(w string) bool {
	for _, p := range l.fillers[w] {
		if len(p) == 1 {
			return true
		}
	}
	return false
}

// fragment splits an utterance into what may surround a topic (filler
// phrases, topic phrases, optional words, determiners) and the one run of
// other words it names, with the determiner said right before it, if any.
// ok is false when there is no such run, more than one, or a function
// word outside those: "about my timer" names "timer" after "my"; "i like
// my timer" and "the timer and the volume" name nothing.
func (l *Lexicon) fragment(words []string) (det string, run []string, ok bool) {
	start, end := -1, -1
	for i := 0; i < len(words); {
		if n := max(phraseAt(l.fillers, words, i), phraseAt(l.topics, words, i)); n > 0 {
			i += n
			continue
		}
		w := words[i]
		switch {
		case l.optional[w] || l.determiners[w]:
		case l.function[w]:
			return "", nil, false
		case end >= 0 && end != i:
			return "", nil, false // a second run
		default:
			if start < 0 {
				start = i
			}
			end = i + 1
		}
		i++
	}
	if start < 0 || end-start > MaxTopicWords {
		return "", nil, false
	}
	if start > 0 && l.determiners[words[start-1]] {
		det = words[start-1]
	}
	return det, words[start:end], true
}

// phraseAt returns the length of the longest phrase of phrases that
// starts at words[i], 0 for none.
func phraseAt(phrases map[string][][]string, words []string, i int) int {
	n := 0
	for _, p := range phrases[words[i]] {
		if len(p) > n && i+len(p) <= len(words) && slices.Equal(words[i:i+len(p)], p) {
			n = len(p)
		}
	}
	return n
}

// Topic reports the skill an utterance only names the topic of: the
// utterance is a fragment (the language's topic phrases, fillers and
// determiners around one run of words, "about my timer", "what about the
// volume", "timer?") and that run is a topic (topicsOf) of enabled
// intents keep keeps of exactly one skill, after the determiner said if
// one was ("my name" is no topic of "what is your name"). It returns that
// skill, the determiner said before the run ("" for none) and the run as
// said. A run that is a topic of two skills names
// neither: the robot would not know which to ask about.
func (e *TemplateEngine) Topic(utterance, lang, sessionID string, keep func(skillID, intentName string) bool) (skillID, det, topic string, ok bool) {
	tag, err := NormalizeLang(lang)
	if err != nil {
		return "", "", "", false
	}
	lex := lexiconFor(e.opts.Lexicons, tag)
	if lex == nil || len(lex.determiners) == 0 {
		return "", "", "", false
	}
	words := strings.Fields(Normalize(utterance))
	if len(words) > MaxMatchWords {
		return "", "", "", false
	}
	det, run, ok := lex.fragment(words)
	if !ok {
		return "", "", "", false
	}
	topic = strings.Join(run, " ")
	is := func(t string) bool {
		d, r, _ := strings.Cut(t, " ")
		return r == topic && (det == "" || d == det)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, s := range e.pools(tag, sessionOrDefault(sessionID)) {
		for k, c := range s.intents {
			if !c.enabled || !slices.ContainsFunc(c.topics, is) || keep != nil && !keep(k.skill, k.intent) {
				continue
			}
			if skillID != "" && skillID != k.skill {
				return "", "", "", false
			}
			skillID = k.skill
		}
	}
	return skillID, det, topic, skillID != ""
}
