package paraphrase

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
)

// homeIntents are a small robot's skills: lights, weather, a timer and a
// music player, written as a skill author would.
func homeIntents() []Intent {
	return []Intent{
		{SkillID: "lights", Name: "on", Templates: []string{
			"(turn|switch) on [the] <light>", "(turn|switch) [the] <light> on", "<light> on [please]"},
			Vocab: map[string][]string{"light": {"(light|lights|lamp)"}}},
		{SkillID: "lights", Name: "off", Templates: []string{
			"(turn|switch) off [the] <light>", "(turn|switch) [the] <light> off", "<light> off [please]"},
			Vocab: map[string][]string{"light": {"(light|lights|lamp)"}}},
		{SkillID: "weather", Name: "today", Templates: []string{
			"(what is|whats) the weather [like] [today]", "(is it|will it be) (sunny|rainy|cold|warm) [today]",
			"(tell me|give me) the (weather|forecast)", "[the] (weather|forecast) [please]"}},
		{SkillID: "timer", Name: "set", Templates: []string{
			"set a timer for {duration:duration}", "(start|set) a {duration:duration} timer", "timer for {duration:duration}"},
			RequiredSlots: []string{"duration"}},
		{SkillID: "music", Name: "play", Templates: []string{
			"play [some] {genre} [music]", "put on [some] {genre} [music]", "i want to hear [some] {genre}"},
			Entities: map[string][]string{"genre": {"jazz", "rock", "(classical|opera)", "hip hop"}}},
	}
}

func trainHome(t testing.TB) *Model {
	t.Helper()
	m, err := Train(homeIntents(), Options{})
	require.NoError(t, err)
	return m
}

// The structure read from a template expands to exactly the sample set the
// grammar's own Expand gives (OVOS-INTENT-1 §3.2): the sampler draws from
// the same language the engines match.
func TestTemplateStructureMatchesExpand(t *testing.T) {
	vocab := map[string][]string{"color": {"(red|green)", "light blue"}, "nested": {"<color> one"}}
	for _, src := range []string{
		"turn (on|off) [the] light[s]",
		"what (is|s) [the] time [right now|now]",
		"set a timer for {duration:duration}",
		"[please] paint it <color>",
		"a <nested> [{{count}}] times",
		"(a|(b|c) [d]) e",
		"{x} then [maybe] {y}",
	} {
		t.Run(src, func(t *testing.T) {
			want, _, err := intent.Expand(src, vocab, intent.ExpandOptions{})
			require.NoError(t, err)
			seq, err := parseTemplate(src)
			require.NoError(t, err)
			g := &grammar{vocab: map[string][][]elem{}}
			for name, ts := range vocab {
				for _, v := range ts {
					vs, err := parseTemplate(v)
					require.NoError(t, err)
					g.vocab[name] = append(g.vocab[name], vs)
				}
			}
			var got []string
			for _, r := range g.enumerate(seq, 0) {
				got = append(got, strings.TrimSpace(tokens(r).key()))
			}
			slices.Sort(got)
			got = slices.Compact(got)
			assert.Equal(t, want, got)
			assert.Equal(t, len(want), g.count(seq, 1000, 0), "count agrees before deduplication here")
		})
	}
}

func TestParseTemplateRefusesWhatTheGrammarRefuses(t *testing.T) {
	for _, src := range []string{"turn (on|off", "{bad name}", "a ] b", "<>", ""} {
		_, err := parseTemplate(src)
		if _, perr := intent.Parse(src); perr != nil {
			assert.Error(t, err, "%q", src)
		}
	}
}

// A template with 10^20 expansions is sampled, never expanded: the same
// seed gives the same skeletons, within the budget.
func TestSkeletonsSampleHugeTemplates(t *testing.T) {
	huge := strings.Repeat("(a|b|c|d|e|f|g|h|i|j) ", 20) + "{x}"
	g, err := newGrammar(Intent{SkillID: "s", Name: "n", Templates: []string{huge, "small (one|two)"}})
	require.NoError(t, err)
	assert.Equal(t, 1001, g.count(g.lines[0], 1000, 0), "the count saturates")
	a := g.skeletons(rand.New(rand.NewPCG(1, 2)), 100)
	b := g.skeletons(rand.New(rand.NewPCG(1, 2)), 100)
	assert.Equal(t, a, b)
	assert.LessOrEqual(t, len(a), 110)
	keys := map[string]bool{}
	for _, sk := range a {
		keys[sk.key()] = true
	}
	assert.True(t, keys["small one "] && keys["small two "], "a small line is expanded whole")
}

func TestTrainRefusesBadInput(t *testing.T) {
	ok := Intent{SkillID: "s", Name: "a", Templates: []string{"hello there"}}
	tests := []struct {
		name    string
		intents []Intent
		opts    Options
		want    string
	}{
		{"none", nil, Options{}, "no intents"},
		{"bad template", []Intent{ok, {SkillID: "s", Name: "b", Templates: []string{"turn (on|off"}}}, Options{}, "intent s:b"},
		{"twice", []Intent{ok, ok}, Options{}, "given twice"},
		{"no skill", []Intent{{Name: "a", Templates: []string{"x"}}}, Options{}, "skill and intent name are required"},
		{"no templates", []Intent{{SkillID: "s", Name: "a"}}, Options{}, "no templates"},
		{"bad entity", []Intent{{SkillID: "s", Name: "a", Templates: []string{"play {g}"}, Entities: map[string][]string{"g": {"(a|"}}}}, Options{}, "entity of {g}"},
		{"too many samples", []Intent{ok}, Options{SamplesPerIntent: MaxSamplesPerIntent + 1}, "samples per intent"},
		{"too many templates", []Intent{{SkillID: "s", Name: "a", Templates: make([]string, MaxTemplatesPerIntent+1)}}, Options{}, "templates, limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Train(tt.intents, tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	a, b := trainHome(t), trainHome(t)
	for _, u := range []string{"could you switch the lamp off", "is it going to rain", "the cat sat on the mat"} {
		assert.Equal(t, a.Classify(u), b.Classify(u), u)
	}
	other, err := Train(homeIntents(), Options{Seed: 7})
	require.NoError(t, err)
	assert.NotEqual(t, a.Stats().Samples, 0)
	assert.Equal(t, a.Labels(), other.Labels())
}

func TestClassify(t *testing.T) {
	m := trainHome(t)
	tests := []struct {
		say   string
		claim string // "skill:intent", "" to abstain
	}{
		{"turn on the light", "lights:on"},
		{"could you please switch the lights off", "lights:off"},
		{"lamp off jibo", "lights:off"},
		{"hey jibo what's the weather like", "weather:today"},
		{"do you know what the weather is today", "weather:today"},
		{"weather?", "weather:today"},
		{"set a timer for ten minutes please", "timer:set"},
		{"play some jazz", "music:play"},
		{"i'd like to hear some rock music", "music:play"},
		// Everyday sentences: words of the intents in other senses.
		{"the weather in london was awful last year", ""},
		{"my brother plays the guitar", ""},
		{"she turned off the highway at the exit", ""},
		{"the cat sat on the mat", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			d := m.Classify(tt.say)
			if tt.claim == "" {
				assert.False(t, d.Claim, "claimed %s (%.2f)", d.Label, d.Probability)
				assert.NotEmpty(t, d.Reason)
				return
			}
			require.True(t, d.Claim, "abstained: %s; ranked %v", d.Reason, d.Ranked)
			assert.Equal(t, tt.claim, d.Label.String())
			assert.Empty(t, d.Reason)
			minP, _ := m.Thresholds()
			assert.GreaterOrEqual(t, d.Probability, minP)
			assert.NotEmpty(t, d.Why, "a claim says which features carried it")
			assert.LessOrEqual(t, len(d.Ranked), 5)
		})
	}
}

func TestClassifyExplainsAbstaining(t *testing.T) {
	m := trainHome(t)
	d := m.Classify(strings.Repeat("word ", MaxUtteranceWords+1))
	assert.False(t, d.Claim)
	assert.Contains(t, d.Reason, "words")
	d = m.Classify("turn off the oven")
	assert.False(t, d.Claim, "oven is a word of everyday speech no light intent says: %v", d.Ranked)
}

func TestSlots(t *testing.T) {
	m := trainHome(t)
	tests := []struct {
		label Label
		say   string
		want  map[string]string
	}{
		{Label{"timer", "set"}, "set a timer for an hour and a half please", map[string]string{"duration": "an hour and a half"}},
		{Label{"timer", "set"}, "could you time 90 seconds", map[string]string{"duration": "90 seconds"}},
		{Label{"timer", "set"}, "set a timer", map[string]string{}},
		{Label{"music", "play"}, "put on some hip hop for me", map[string]string{"genre": "hip hop"}},
		{Label{"music", "play"}, "play some polka music", map[string]string{"genre": "polka"}},
		{Label{"nope", "nope"}, "play some jazz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			assert.Equal(t, tt.want, m.Slots(tt.label, tt.say))
		})
	}
}

func TestSlotBlacklistAndTypes(t *testing.T) {
	m, err := Train([]Intent{
		{SkillID: "vol", Name: "set", Templates: []string{"volume [to] {level}", "set the volume to {level}"},
			Entities:      map[string][]string{"level": {"(one|two|three)"}},
			SlotBlacklist: map[string][]string{"level": {"off", "back on"}}},
		{SkillID: "vol", Name: "wait", Templates: []string{"wait {number:n} (minutes|seconds)"}},
	}, Options{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"level": "two"}, m.Slots(Label{"vol", "set"}, "set the volume to two"))
	assert.Equal(t, map[string]string{"level": "7"}, m.Slots(Label{"vol", "set"}, "volume 7"), "a list is a hint")
	assert.Equal(t, map[string]string{}, m.Slots(Label{"vol", "set"}, "volume off"), "never a blacklisted value")
	assert.Equal(t, map[string]string{"n": "twenty five"}, m.Slots(Label{"vol", "wait"}, "wait twenty five minutes"))
	assert.Equal(t, map[string]string{}, m.Slots(Label{"vol", "wait"}, "wait a few minutes"), "a typed slot takes only its type")
}

func TestTypedReaders(t *testing.T) {
	durations := map[string]bool{
		"five minutes": true, "90 seconds": true, "an hour and a half": true, "half an hour": true,
		"a quarter of an hour": true, "one and a half minutes": true, "1 minute 30 seconds": true,
		"an hour and 15 minutes": true, "a couple of minutes": true, "twenty five minutes": true,
		"three quarters of an hour": true, "five": false, "minutes": false, "a few minutes": false, "": false,
	}
	for text, want := range durations {
		assert.Equal(t, want, isDuration(text), "%q", text)
	}
	numbers := map[string]bool{"7": true, "seven": true, "forty two": true, "a hundred": false, "one hundred": true,
		"4.5": true, "many": false, "forty forty": false}
	for text, want := range numbers {
		assert.Equal(t, want, isNumber(text), "%q", text)
	}
	for _, d := range englishDurations() {
		assert.True(t, isDuration(d), "generated duration %q reads back", d)
	}
}

func TestEnglishData(t *testing.T) {
	d, err := EnglishData()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(d.Background), 500)
	assert.NotEmpty(t, d.Prefixes)
	assert.NotEmpty(t, d.Suffixes)
	assert.NotEmpty(t, d.Indirect)
	assert.Contains(t, d.Function, "please")
	for _, w := range []string{"on", "off", "up", "down", "not", "no", "back"} {
		assert.NotContains(t, d.Function, w, "%q carries a request", w)
	}
	_, err = NewLanguage(LanguageData{})
	assert.ErrorContains(t, err, "no background")
	_, err = NewLanguage(LanguageData{Background: make([]string, MaxBackground+1)})
	assert.ErrorContains(t, err, "limit")
	bg := []string{"the cat sat on the mat"}
	_, err = NewLanguage(LanguageData{Background: bg, Function: []string{"what"}, Questions: []string{"what time"}})
	assert.ErrorContains(t, err, `"time" is not a function word`)
	_, err = NewLanguage(LanguageData{Background: bg, Function: []string{"is", "it", "now"}, Questions: []string{"is it now"}})
	assert.ErrorContains(t, err, "not one word or two")
	assert.Contains(t, d.Particles, "down")
	_, err = NewLanguage(LanguageData{Background: bg, Function: []string{"in"}, Particles: []string{"in"}})
	assert.ErrorContains(t, err, `particle "in" is a function word`)
	_, err = NewLanguage(LanguageData{Background: bg, Particles: []string{"down up"}})
	assert.ErrorContains(t, err, "not one word")
	assert.Contains(t, d.Negations, "dont")
	_, err = NewLanguage(LanguageData{Background: bg, Negations: []string{"do not"}})
	assert.ErrorContains(t, err, `negation "do not" is not one word`)
	assert.Equal(t, "dont", d.Readings["do not"])
	assert.Contains(t, d.Opposites, [2]string{"on", "off"})
	_, err = NewLanguage(LanguageData{Background: bg, Readings: map[string]string{"do not": "do not"}})
	assert.ErrorContains(t, err, "not two words read as one")
	_, err = NewLanguage(LanguageData{Background: bg, Readings: map[string]string{"not": "nt"}})
	assert.ErrorContains(t, err, "not two words read as one")
	_, err = NewLanguage(LanguageData{Background: bg, Readings: map[string]string{"do not": "dont", "Do  not": "donot"}})
	assert.ErrorContains(t, err, `reading "do not" is listed twice`)
	_, err = parseReadings([]string{"do not = dont", "Do  not = donot"})
	assert.ErrorContains(t, err, `"do not" is listed twice`)
	_, err = parseReadings([]string{"do not dont"})
	assert.ErrorContains(t, err, "is not \"two words = one\"")
	_, err = NewLanguage(LanguageData{Background: bg, Opposites: [][2]string{{"on", "on"}}})
	assert.ErrorContains(t, err, "not two different words")
	_, err = NewLanguage(LanguageData{Background: bg, Opposites: [][2]string{{"switch on", "off"}}})
	assert.ErrorContains(t, err, "not two different words")
}

// TestReadings: two words a reading lists are read as its one word,
// wherever they stand; other words are left as said.
func TestReadings(t *testing.T) {
	l, err := English()
	require.NoError(t, err)
	tests := []struct{ in, want string }{
		{"do not be quiet", "dont be quiet"},
		{"please do not do not", "please dont dont"},
		{"what do you not like", "what do you not like"},
		{"do", "do"},
		{"not", "not"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, strings.Join(l.read(strings.Fields(tt.in)), " "), tt.in)
	}
}

// TestUncontrast: a negated opposite word, or one after a word saying
// what something is now, is left out when the utterance also says its
// opposite plainly; two opposites said plainly are both kept, and so is
// an opposite whose counterpart is negated too.
func TestUncontrast(t *testing.T) {
	l, err := English()
	require.NoError(t, err)
	tests := []struct{ in, want string }{
		{"turn the volume up not down", "turn the volume up"},
		{"turn it down not up", "turn it down"},
		{"unmute dont mute", "unmute"},
		{"dont turn it down turn it up", "turn it up"},
		{"turn the sound on it is off", "turn the sound on it"},
		{"turn the sound on its off", "turn the sound on"},
		{"the sound is off turn it on", "the sound turn it on"},
		{"turn it off and on again", "turn it off and on again"},
		{"not up not down", "not up not down"},
		{"the volume is up not down", "the volume is up not down"},
		{"dont mute", "dont mute"},
		{"dont set a timer turn it up", "dont set a timer turn it up"},
		{"turn its volume up", "turn its volume up"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, strings.Join(l.uncontrast(strings.Fields(tt.in)), " "), tt.in)
	}
}

// evidenceCase is an utterance said for intent c against its rival r, and
// why the rules find no evidence in it ("" for evidence enough).
type evidenceCase struct {
	c, r   int
	say    string
	reason string
}

// checkEvidence checks the rules' verdict on each case.
func checkEvidence(t *testing.T, m *Model, cases []evidenceCase) {
	t.Helper()
	for _, tt := range cases {
		ok, why := m.evidence(tt.c, tt.r, strings.Fields(tt.say))
		if tt.reason == "" {
			assert.True(t, ok, "%s: %s", tt.say, why)
			continue
		}
		assert.False(t, ok, tt.say)
		assert.Contains(t, why, tt.reason, tt.say)
	}
}

// A fragment, or a sentence that only names what a request would be
// about, is no request, however sure the model is of the intent it
// sounds like: the tier claims it only when the words ask or tell
// something of the intent, and something said tells the intent from its
// likeliest rival.
func TestTopicAloneIsNoRequest(t *testing.T) {
	m := trainHome(t)
	tests := []struct {
		say    string
		claim  string
		reason string
	}{
		{"switch the lamp on please", "lights:on", ""},
		{"lamp off", "lights:off", ""}, // as a template says it
		{"weather?", "weather:today", ""},
		{"what is the weather like now", "weather:today", ""},
		{"the lamp please", "", ""},
		{"oh my lights", "", ""},
		{"what part of the weather", "", `"what part"`},
		{"about the lamp", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			d := m.Classify(tt.say)
			if tt.claim != "" {
				require.True(t, d.Claim, d.Reason)
				assert.Equal(t, tt.claim, d.Label.String())
				return
			}
			assert.False(t, d.Claim, "claimed %s (%.2f)", d.Label, d.Probability)
			assert.Contains(t, d.Reason, tt.reason)
		})
	}
	// The rules themselves, whatever the model makes of the words.
	on, off := slices.Index(m.labels, Label{"lights", "on"}), slices.Index(m.labels, Label{"lights", "off"})
	weather := slices.Index(m.labels, Label{"weather", "today"})
	rules := []evidenceCase{
		{on, off, "turn the lamp on", ""},
		{on, off, "the lamp", "no request"},
		{on, off, "my lights please", "no request"},
		{on, off, "turn the lamp", "nothing said tells lights:on from lights:off"},
		{on, 0, "turn the lamp", ""},
		{weather, on, "what about the forecast", ""}, // a question asks
		{weather, on, "about the forecast", "no request"},
		{weather, on, "is it sunny", ""},
		{on, off, "is the lamp on", "a question"},
		{on, off, "jibo who turned the lamp on", "a question"},
		{on, off, "can you turn the lamp on", ""}, // politeness, no question
	}
	checkEvidence(t, m, rules)
}

// Fragments that only complete a request, and requests said as the
// templates say them, decided by the rules alone, whatever the model
// makes of the words: a lone word, or particles alone, is no request
// unless the intent says it so ("back please" against "louder please");
// a function word the intent says alone is its own ("thanks a lot"); and
// an utterance said as the intent's templates say it, and as the rival's
// never do, tells them apart ("be quiet please" against "dont be
// quiet").
func TestLoneWordsAndOwnWords(t *testing.T) {
	m, err := Train([]Intent{
		{SkillID: "volume", Name: "mute", Templates: []string{"(be|keep) (quiet|silent) [please|now]", "mute [please]", "hush"}},
		{SkillID: "volume", Name: "unmute", Templates: []string{"(dont be|stop being) (quiet|silent)",
			"(turn|put) the sound back on [please]", "bring the sound back", "you can talk again", "unmute [please]"}},
		{SkillID: "volume", Name: "up", Templates: []string{"louder [please]", "turn it up [please]"}},
		{SkillID: "chat", Name: "thanks", Templates: []string{"(thanks|thank you) [a lot|so much] [jibo]",
			"thanks for (the help|your help|everything)"}},
	}, Options{})
	require.NoError(t, err)
	idx := func(skill, name string) int { return slices.Index(m.labels, Label{skill, name}) }
	mute, unmute, up, thanks := idx("volume", "mute"), idx("volume", "unmute"), idx("volume", "up"), idx("chat", "thanks")
	tests := []evidenceCase{
		{unmute, mute, "back please", `"back" alone is no request`},
		{unmute, mute, "back", `"back" alone is no request`},
		{unmute, mute, "again please", `"again" alone is no request`},
		{unmute, mute, "back on please", "no request"},
		{unmute, mute, "turn the sound back on", ""},
		{unmute, mute, "please turn it back on", ""},
		{up, mute, "louder please", ""},
		{up, mute, "up please", `"up" alone is no request`},
		{mute, unmute, "be quiet please", ""},
		{mute, unmute, "be silent jibo", ""},
		{unmute, mute, "be quiet please", "nothing said tells"},
		{unmute, mute, "dont be quiet", ""},
		{thanks, mute, "thanks a lot", ""},
		{thanks, mute, "oh thanks a lot", ""},
		{thanks, mute, "thanks", ""},
		{thanks, mute, "thanks for nothing", "no word of it"},
	}
	checkEvidence(t, m, tests)
}

func TestIndirect(t *testing.T) {
	l, err := English()
	require.NoError(t, err)
	tests := map[string]string{
		"what time is it":      "what time it is",
		"whats the date":       "what the date is",
		"how old are you":      "how old you are",
		"where do you live":    "where you live do",
		"turn on the light":    "",
		"what":                 "",
		"who are you":          "who you are",
		"hows the weather now": "how the weather now is",
	}
	for in, want := range tests {
		got, ok := indirect(l, strings.Fields(in))
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, strings.Join(got, " "), in)
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fakeAligner stands in for the template engine's aligner.
type fakeAligner struct {
	mu    sync.Mutex
	calls []string
	slots map[string]string
}

func (f *fakeAligner) Align(_ context.Context, sessionID, skillID, intentName, lang, utterance string) (map[string]string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, sessionID+" "+lang+" "+skillID+":"+intentName+" "+utterance)
	return f.slots, f.slots != nil
}

// ask asks the tier about one utterance, as the intent stack does.
func ask(t testing.TB, tier *Tier, u, lang string, keep func(skillID, intentName string) bool) []intent.Candidate {
	t.Helper()
	cs, err := tier.Candidates(context.Background(), intent.Request{Utterance: u, Lang: lang, SessionID: "default", Limit: 1, Keep: keep})
	require.NoError(t, err)
	return cs
}

func TestTierCandidates(t *testing.T) {
	tier := NewTier(TierOptions{Logger: quiet})
	assert.Equal(t, DefaultTierID, tier.Name())
	assert.Equal(t, DefaultTierID, tier.Stage())
	assert.Empty(t, ask(t, tier, "turn the lamp on", "en-US", nil), "no intents, no candidates")

	require.NoError(t, tier.Update("en-US", homeIntents()))
	assert.Empty(t, ask(t, tier, "turn the lamp on", "en-US", nil), "nothing is trained on the utterance path")
	require.NoError(t, tier.Build(context.Background()))
	assert.Positive(t, tier.Stats("en-us").Samples)

	cs := ask(t, tier, "could you switch the lamp on", "en-US", nil)
	require.Len(t, cs, 1)
	assert.Equal(t, "lights:on", cs[0].SkillID+":"+cs[0].IntentName)
	assert.Empty(t, cs[0].Refused)
	assert.GreaterOrEqual(t, cs[0].Confidence, 0.7, "a claim clears the calibrated threshold")
	assert.Contains(t, cs[0].Why, "paraphrase")

	cs = ask(t, tier, "set a timer please", "en-US", nil)
	require.Len(t, cs, 1)
	assert.Equal(t, "timer:set", cs[0].SkillID+":"+cs[0].IntentName)
	assert.Equal(t, []string{"duration"}, cs[0].Missing, "a required slot not said: refused, for the robot to ask")
	assert.NotEmpty(t, cs[0].Refused)

	cs = ask(t, tier, "could you set a timer for five minutes", "en-US", nil)
	require.Len(t, cs, 1)
	assert.Empty(t, cs[0].Refused)
	assert.Equal(t, map[string]string{"duration": "five minutes"}, cs[0].Slots)

	assert.Empty(t, ask(t, tier, "the cat sat on the mat", "en-US", nil), "junk is not even a guess")
	assert.Empty(t, ask(t, tier, "turn the lamp on", "de-DE", nil), "a language it was not given")
	assert.Empty(t, ask(t, tier, "turn the lamp on", "not a tag!", nil))
}

func TestTierAlignerAndUpdates(t *testing.T) {
	al := &fakeAligner{slots: map[string]string{"duration": "ten minutes"}}
	tier := NewTier(TierOptions{Aligner: al, Logger: quiet})
	require.NoError(t, tier.Update("en-us", homeIntents()))
	require.NoError(t, tier.Build(context.Background()))
	cs := ask(t, tier, "please set a timer for 10 minutes", "en-us", nil)
	require.Len(t, cs, 1)
	assert.Equal(t, map[string]string{"duration": "ten minutes"}, cs[0].Slots, "the aligner's slots")
	assert.Equal(t, []string{"default en-us timer:set please set a timer for 10 minutes"}, al.calls)

	// Removing the lights retrains: the tier no longer offers them.
	var rest []Intent
	for _, in := range homeIntents() {
		if in.SkillID != "lights" {
			rest = append(rest, in)
		}
	}
	require.NoError(t, tier.Update("en-us", rest))
	require.NoError(t, tier.Build(context.Background()))
	for _, c := range ask(t, tier, "could you switch the lamp on", "en-us", nil) {
		assert.NotEqual(t, "lights", c.SkillID)
	}
	require.NoError(t, tier.Update("en-us", nil))
	assert.Empty(t, ask(t, tier, "could you set a timer for five minutes", "en-us", nil))

	err := tier.Update("en-us", []Intent{{SkillID: "s", Name: "x", Templates: []string{"(a|"}}})
	assert.ErrorContains(t, err, "intent s:x")
	err = tier.Update("??", homeIntents())
	assert.Error(t, err)
}

func registerHome(t testing.TB, e *intent.TemplateEngine) {
	t.Helper()
	for _, in := range homeIntents() {
		_, err := e.Register(intent.TemplateIntent{SkillID: in.SkillID, IntentName: in.Name, Lang: "en-us",
			Samples: in.Templates, Vocab: in.Vocab, Entities: in.Entities, RequiredSlots: in.RequiredSlots})
		require.NoError(t, err)
	}
}

// The tier learns from the template engine, aligns slots with it, and
// never offers an intent the engine has since disabled or removed, even
// before it learns again.
func TestTierLearnsFromEngine(t *testing.T) {
	e := intent.NewTemplateEngine(intent.EngineOptions{})
	registerHome(t, e)
	tier := NewTier(TierOptions{Logger: quiet})
	require.NoError(t, tier.Learn(context.Background(), e))
	d, err := tier.Explain("what's the forecast for today", "en-us")
	require.NoError(t, err)
	assert.True(t, d.Claim, d.Reason)
	assert.Equal(t, "weather:today", d.Label.String())

	cs := ask(t, tier, "could you please put on some hip hop", "en-us", nil)
	require.Len(t, cs, 1)
	assert.Equal(t, "music:play", cs[0].SkillID+":"+cs[0].IntentName)
	assert.Equal(t, map[string]string{"genre": "hip hop"}, cs[0].Slots, "aligned with the template's structure")

	e.SetEnabled("", "weather", "today", "", false)
	for _, c := range ask(t, tier, "what's the forecast for today", "en-us", nil) {
		assert.NotEqual(t, "weather", c.SkillID, "disabled since it learnt")
	}
	e.RemoveSkill("", "music")
	for _, c := range ask(t, tier, "could you please put on some hip hop", "en-us", nil) {
		assert.NotEqual(t, "music", c.SkillID, "removed since it learnt")
	}
}

// Asking while intents change is safe, and once the change is learnt the
// tier never offers an intent that is no longer there.
func TestTierConcurrentUpdates(t *testing.T) {
	tier := NewTier(TierOptions{Train: Options{SamplesPerIntent: 40, Epochs: 2}, Logger: quiet})
	all := homeIntents()
	require.NoError(t, tier.Update("en-us", all))
	require.NoError(t, tier.Build(context.Background()))
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 3 {
				_, err := tier.Candidates(context.Background(), intent.Request{Utterance: fmt.Sprintf("play some jazz %d", i+j), Lang: "en-us", Limit: 1})
				assert.NoError(t, err)
			}
		}()
	}
	for k := range 3 {
		require.NoError(t, tier.Update("en-us", all[:len(all)-k]))
		require.NoError(t, tier.Build(context.Background()))
	}
	wg.Wait()
	for _, c := range ask(t, tier, "could you please put on some hip hop", "en-us", nil) {
		assert.NotEqual(t, "music", c.SkillID)
	}
}

func FuzzClassify(f *testing.F) {
	m, err := Train(homeIntents(), Options{SamplesPerIntent: 40, Epochs: 2})
	require.NoError(f, err)
	for _, s := range []string{"turn on the light", "", "🙂 émoji ünïcode", strings.Repeat("a ", 100), "set a timer for an hour and a half and a half"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := m.Classify(s)
		if d.Claim {
			assert.NotEqual(t, Label{}, d.Label)
			assert.Empty(t, d.Reason)
		} else {
			assert.NotEmpty(t, d.Reason)
		}
		for _, l := range m.Labels() {
			_ = m.Slots(l, s)
		}
	})
}

func BenchmarkTrain(b *testing.B) {
	in := homeIntents()
	lang, err := English()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_, err := Train(in, Options{Language: lang})
		require.NoError(b, err)
	}
}

func BenchmarkClassify(b *testing.B) {
	m := trainHome(b)
	b.ReportAllocs()
	for b.Loop() {
		m.Classify("could you please switch the lamp off in the kitchen")
	}
}

// An intent the round may not dispatch (a context it requires is not
// live, CTX-11) is out of the running: its probability counts for "none",
// not for the others.
func TestTierKeep(t *testing.T) {
	intents := append(homeIntents(), Intent{SkillID: "timer", Name: "change",
		Templates: []string{"(make it|change it to|actually) {duration:duration} [instead]"}})
	tier := NewTier(TierOptions{Logger: quiet})
	require.NoError(t, tier.Update("en-us", intents))
	require.NoError(t, tier.Build(context.Background()))
	gated := func(skillID, intentName string) bool { return skillID+":"+intentName != "timer:change" }

	for _, c := range ask(t, tier, "actually make it five minutes", "en-us", gated) {
		assert.NotEqual(t, "change", c.IntentName, "gated out")
		assert.NotEmpty(t, c.Refused, "and its probability is nobody else's claim")
	}
	cs := ask(t, tier, "actually make it five minutes", "en-us", nil)
	require.Len(t, cs, 1)
	assert.Equal(t, "timer:change", cs[0].SkillID+":"+cs[0].IntentName)
	assert.Empty(t, cs[0].Refused)
	assert.Equal(t, map[string]string{"duration": "five minutes"}, cs[0].Slots)
}

// Evidence the model's probability cannot override: words that tell about
// someone else, utterances of function words only that the intent does
// not say as they are, and one slot's value said alone (an answer to
// someone else's question, not a request).
func TestEvidenceRules(t *testing.T) {
	m, err := Train(append(homeIntents(), Intent{SkillID: "help", Name: "what", Templates: []string{
		"what (can|else can) you do [for me]", "what are you able to do", "how can you help [me]"}}), Options{})
	require.NoError(t, err)
	tests := []struct {
		say    string
		claim  string
		reason string
	}{
		{"what can you do for me", "help:what", ""},
		{"it is what it is", "", ""},
		{"he switched the lamp on", "", "tells about"},
		{"she wants to hear some jazz", "", "tells about"},
		{"could you switch the lamp on", "lights:on", ""},
		{"i want to hear jazz", "music:play", ""},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			d := m.Classify(tt.say)
			if tt.claim != "" {
				require.True(t, d.Claim, d.Reason)
				assert.Equal(t, tt.claim, d.Label.String())
				return
			}
			assert.False(t, d.Claim, "claimed %s", d.Label)
			assert.Contains(t, d.Reason, tt.reason)
		})
	}
	music := slices.Index(m.labels, Label{"music", "play"})
	for _, u := range []string{"jazz", "hip hop"} {
		ok, why := m.evidence(music, 0, strings.Fields(u))
		assert.False(t, ok, u)
		assert.Contains(t, why, "only a slot value", u)
	}
	ok, why := m.evidence(music, 0, strings.Fields("some jazz music"))
	assert.True(t, ok, why)
}

func TestTrainIgnoresRegistrationOrder(t *testing.T) {
	in := homeIntents()
	a, err := Train(in, Options{})
	require.NoError(t, err)
	slices.Reverse(in)
	b, err := Train(in, Options{})
	require.NoError(t, err)
	assert.Equal(t, a.Labels(), b.Labels())
	for _, u := range []string{"could you switch the lamp off", "is it going to rain", "play some rock"} {
		assert.Equal(t, a.Classify(u), b.Classify(u), u)
	}
}

// isDuration reports whether text is exactly one length of time.
func isDuration(text string) bool {
	ws := strings.Fields(text)
	return len(ws) > 0 && readDuration(ws, 0) == len(ws)
}

// isNumber reports whether text is exactly one number.
func isNumber(text string) bool {
	ws := strings.Fields(text)
	if len(ws) == 0 || ws[0] == "a" || ws[0] == "an" {
		return false
	}
	return readNumber(ws, 0) == len(ws)
}

// A training stopped by its context keeps no half-made model and leaves
// the language to be trained by the next Build: the robot stops at once
// even while it learns.
func TestBuildStopsWithItsContext(t *testing.T) {
	tier := NewTier(TierOptions{Logger: quiet})
	require.NoError(t, tier.Update("en-US", homeIntents()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, tier.Build(ctx), context.Canceled)
	assert.Zero(t, tier.Stats("en-us").Samples, "no model from a stopped training")
	_, err := TrainContext(ctx, homeIntents(), Options{})
	require.ErrorIs(t, err, context.Canceled)

	require.NoError(t, tier.Build(context.Background()))
	assert.Positive(t, tier.Stats("en-us").Samples, "the next Build trains")
}

// Intents that a template always binds a slot of are asked about, not
// acted on, when a paraphrase leaves that slot unsaid: the skill never
// hears the intent without it.
func TestSlotEveryTemplateBindsIsRequired(t *testing.T) {
	ins := []Intent{
		{SkillID: "weather", Name: "forecast", Templates: []string{"what is the weather (in|at) {place}", "weather for {place} [please]",
			"(will it|is it going to) rain in {place}"}},
		{SkillID: "clock", Name: "time", Templates: []string{"what time is it", "(tell me|whats) the time"}},
	}
	m, err := Train(ins, Options{})
	require.NoError(t, err)
	c := slices.Index(m.labels, Label{"weather", "forecast"})
	require.Positive(t, c)
	assert.Equal(t, []string{"place"}, m.infos[c].required)
	c = slices.Index(m.labels, Label{"clock", "time"})
	assert.Empty(t, m.infos[c].required)

	opt := Intent{SkillID: "weather", Name: "forecast", Templates: []string{"what is the weather [in {place}]", "weather for {place}"}}
	m, err = Train([]Intent{opt, ins[1]}, Options{})
	require.NoError(t, err)
	assert.Empty(t, m.infos[slices.Index(m.labels, Label{"weather", "forecast"})].required, "a slot some template leaves out is not required")
}

// A Memo trains each language's intents once and hands the same model to
// every tier that learns them; other intents get a model of their own.
func TestMemoTrainsOnce(t *testing.T) {
	memo := NewMemo()
	ctx := context.Background()
	a, err := memo.Train(ctx, "en-us", homeIntents(), Options{})
	require.NoError(t, err)
	b, err := memo.Train(ctx, "en-us", homeIntents(), Options{})
	require.NoError(t, err)
	assert.Same(t, a, b, "the same intents: the model remembered")
	c, err := memo.Train(ctx, "en-us", homeIntents()[:2], Options{})
	require.NoError(t, err)
	assert.NotSame(t, a, c)
	plain, err := Train(homeIntents(), Options{})
	require.NoError(t, err)
	assert.Equal(t, plain.Classify("could you switch the lamp on").Ranked, a.Classify("could you switch the lamp on").Ranked,
		"a remembered model is the one training makes")

	stopped, cancel := context.WithCancel(ctx)
	cancel()
	_, err = memo.Train(stopped, "en-us", homeIntents()[:1], Options{})
	require.ErrorIs(t, err, context.Canceled)
	d, err := memo.Train(ctx, "en-us", homeIntents()[:1], Options{})
	require.NoError(t, err, "a stopped training is not remembered")
	assert.NotNil(t, d)

	tier := NewTier(TierOptions{Logger: quiet, Trainer: memo.Train})
	require.NoError(t, tier.Update("en-US", homeIntents()))
	require.NoError(t, tier.Build(ctx))
	assert.Same(t, a, tier.current("en-us"), "a tier trains through its Trainer")
}
