package fallback

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// noMatchLines are the no-match dialog's lines.
var noMatchLines = []string{
	"Sorry, I didn't catch that.", "Hmm, I'm not sure what you mean.", "I didn't understand that one.",
	"Sorry, I don't know how to help with that yet.", "I'm not sure I follow.", "Hmm, that one's beyond me for now.",
	"Sorry, I'm not sure what you're asking.", "I didn't quite get that.",
}

const hintRe = `(You can ask me what I can do\.|Try asking me what I can do\.|If you're stuck, ask me what I can do\.)`

// echo is a skill that says what it was launched with.
type echo struct{ *kit.Skill }

func newEcho(t *testing.T) *echo {
	t.Helper()
	e := &echo{}
	var err error
	e.Skill, err = kit.New(&registry.Manifest{ID: "test/weather", Version: "1.0.0", Name: "Weather",
		Description: "Tells the weather.", Permissions: []registry.Permission{registry.PermSpeech}, SafetyLevel: registry.SafetyLow},
		fstest.MapFS{"locale/en-us/forecast.intent": {Data: []byte("what is the weather (in|at) {place}\n")}},
		kit.Options{Logger: slog.New(slog.DiscardHandler)},
		func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			nlu := req.Data.Result.NLU
			place, _ := nlu.Entities["place"].(string)
			return kit.Say(req, protocol.Skill("test.weather"), "Forecast for "+place+", as asked: "+req.Data.Result.ASR.Text)
		})
	require.NoError(t, err)
	return e
}

// guesser guesses what it is told to.
type guesser struct{ g *Guess }

func (f guesser) Guess(context.Context, string, string) (Guess, bool) {
	if f.g == nil {
		return Guess{}, false
	}
	return *f.g, true
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newRig(t *testing.T, opts Options) (*rig.Rig, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	r := rig.New(t, rig.Options{Fallback: ID})
	w := newEcho(t)
	opts.Now, opts.Rand, opts.Logger = c.now, func(int) int { return 0 }, slog.New(slog.DiscardHandler)
	opts.Skills = r.Host.Skills
	s, err := New(opts)
	require.NoError(t, err)
	r.Add(s, w)
	return r, c
}

// Never silent (FALLBACK-1): what nothing understood gets an earcon and a
// line in the robot's own voice, never the same line twice in a row, with
// the next step offered on the first miss in a while and on every other
// miss of a run, not every time.
func TestNoMatchIsNeverSilent(t *testing.T) {
	r, c := newRig(t, Options{})
	var lines []string
	var hinted []bool
	for i := range 6 {
		turn := r.Say("flibbertigibbet")
		require.NoError(t, turn.Err)
		assert.Equal(t, "jibo.fallback:fallback", turn.Dispatched)
		require.Len(t, turn.Said, 1)
		said := turn.Said[0]
		var line string
		for _, l := range noMatchLines {
			if strings.HasPrefix(said, l) {
				line = l
			}
		}
		require.NotEmpty(t, line, "turn %d said %q", i, said)
		rest := strings.TrimSpace(strings.TrimPrefix(said, line))
		if rest != "" {
			assert.Regexp(t, "^"+hintRe+"$", rest)
		}
		lines = append(lines, line)
		hinted = append(hinted, rest != "")
		c.t = c.t.Add(20 * time.Second)
	}
	for i := 1; i < len(lines); i++ {
		assert.NotEqual(t, lines[i-1], lines[i], "never the same line twice in a row")
	}
	assert.Equal(t, []bool{true, false, true, false, true, false}, hinted)
	assert.Equal(t, slices.Repeat([]string{"sfx:" + Earcon}, 6), r.Sounds.Played())

	c.t = c.t.Add(5 * time.Minute) // a new run, but the hint was given lately
	assert.NotRegexp(t, hintRe, r.Say("blah").Said[0])
	c.t = c.t.Add(HintAgain + time.Minute)
	assert.Regexp(t, hintRe+"$", r.Say("blah").Said[0], "the first miss in a while offers it again")
}

// With the cloud out of reach, the robot says so.
func TestOfflineSaysSo(t *testing.T) {
	r, _ := newRig(t, Options{Offline: func() bool { return true }})
	said := r.Say("what is the capital of peru").Said
	require.Len(t, said, 1)
	assert.Regexp(t, `^(I can't reach the cloud right now|My cloud connection is down)`, said[0])
}

// Half understood, the robot asks (a guess too unsure to act on): yes
// launches the guess with what was said, no lets it go.
func TestUnsureGuessIsAsked(t *testing.T) {
	g := &Guess{SkillID: "test.weather", IntentName: "forecast", Slots: map[string]string{"place": "paris"}}
	r, _ := newRig(t, Options{Guesser: guesser{g}})

	turn := r.Say("mumble mumble")
	assert.Equal(t, []string{"Were you asking about the weather?"}, turn.Said)
	assert.Equal(t, ID, turn.Listening)
	turn = r.Say("yes please")
	require.NoError(t, turn.Err)
	assert.Equal(t, []string{"Forecast for paris, as asked: mumble mumble"}, turn.Said)

	r.Say("mumble mumble")
	assert.Equal(t, []string{"OK, never mind."}, r.Say("no").Said)
	r.Say("mumble mumble")
	assert.Equal(t, []string{"Sorry, I still didn't get that."}, r.Say("purple").Said)
	assert.Empty(t, r.Sounds.Played(), "questions come without the earcon")
}

// A request missing a required part gets asked for it; the answer
// completes the request.
func TestMissingSlotIsAsked(t *testing.T) {
	g := &Guess{SkillID: "test.weather", IntentName: "forecast", Missing: []string{"place"}}
	r, _ := newRig(t, Options{Guesser: guesser{g}})
	turn := r.Say("what is the weather")
	assert.Equal(t, []string{"What place did you have in mind?"}, turn.Said)
	turn = r.Say("Lisbon")
	require.NoError(t, turn.Err)
	assert.Equal(t, []string{"Forecast for Lisbon, as asked: what is the weather"}, turn.Said)
}

// understander guesses what it is told to and understands the answers it
// knows, noting the skill asked about.
type understander struct {
	guesser
	answers map[string]Guess
	skills  *[]string
}

func (u understander) Understand(_ context.Context, utterance, _ string, skillID string) (Guess, bool) {
	*u.skills = append(*u.skills, skillID)
	g, ok := u.answers[utterance]
	return g, ok
}

// A fragment that only names a skill's topic is asked about by the topic;
// yes says what the skill can do and asks which, launching nothing; the
// answer is the request, understood that skill's intents first; an answer
// other than yes to the first question is the request too; no lets it go.
func TestTopicIsAsked(t *testing.T) {
	var asked []string
	u := understander{guesser: guesser{&Guess{SkillID: "test.weather", Topic: "weather"}},
		answers: map[string]Guess{
			"in paris":     {SkillID: "test.weather", IntentName: "forecast", Slots: map[string]string{"place": "paris"}},
			"the forecast": {SkillID: "test.weather", IntentName: "forecast", Missing: []string{"place"}},
		}, skills: &asked}
	r, _ := newRig(t, Options{Guesser: u})

	turn := r.Say("about the weather")
	assert.Equal(t, []string{"Were you asking about the weather?"}, turn.Said)
	assert.Equal(t, ID, turn.Listening)
	turn = r.Say("yes")
	require.NoError(t, turn.Err)
	assert.Equal(t, []string{"I can tell the weather. What would you like?"}, turn.Said)
	assert.Equal(t, ID, turn.Listening, "nothing launched yet")
	turn = r.Say("in paris")
	require.NoError(t, turn.Err)
	assert.Equal(t, []string{"Forecast for paris, as asked: in paris"}, turn.Said)
	assert.Equal(t, []string{"test.weather"}, asked)

	r.Say("about the weather")
	turn = r.Say("the forecast")
	assert.Equal(t, []string{"What place did you have in mind?"}, turn.Said, "a part not said is asked for")
	assert.Equal(t, []string{"Forecast for Lisbon, as asked: the forecast"}, r.Say("Lisbon").Said)

	r.Say("about the weather")
	r.Say("yes")
	assert.Equal(t, []string{"Sorry, I still didn't get that."}, r.Say("purple").Said)
	r.Say("about the weather")
	assert.Equal(t, []string{"OK, never mind."}, r.Say("no").Said)
	assert.Empty(t, r.Sounds.Played(), "questions come without the earcon")

	// Without an Understander, the answer to the choices is let go.
	r2, _ := newRig(t, Options{Guesser: guesser{&Guess{SkillID: "test.weather", Topic: "weather"}}})
	r2.Say("about the weather")
	r2.Say("yes")
	assert.Equal(t, []string{"Sorry, I still didn't get that."}, r2.Say("in paris").Said)
}

// A guess of a skill it cannot name, or of itself, is no question.
func TestUnnamedGuessIsNoQuestion(t *testing.T) {
	for _, g := range []*Guess{{SkillID: "test.nobody", IntentName: "x"}, {SkillID: ID, IntentName: "fallback"}, {SkillID: "test.nobody", Topic: "x"}} {
		r, _ := newRig(t, Options{Guesser: guesser{g}})
		turn := r.Say("mumble")
		require.Len(t, turn.Said, 1)
		assert.Empty(t, turn.Listening)
		assert.Contains(t, noMatchLines, strings.SplitAfter(turn.Said[0], ".")[0])
	}
}

// The responder registers the skill as the last fallback and answers
// every ping it can handle (FALLBACK-1 §3, §6), so the pipeline's fallback
// stage dispatches to it.
func TestResponderRegistersAndAnswers(t *testing.T) {
	b := bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})
	defer b.Close(context.Background())
	f, err := pipeline.NewFallbacks(pipeline.FallbackConfig{Bus: b, Window: 5 * time.Second})
	require.NoError(t, err)
	sub, err := b.SubscribeAll(f.Topics(), f.Receive)
	require.NoError(t, err)
	defer sub.Close()
	resp, err := Respond(context.Background(), b, ID, Priority, nil)
	require.NoError(t, err)
	defer resp.Close()

	lo := 100
	stage, err := f.Stage("fallback-unknown", &lo, nil)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(stage.Intents(session.DefaultID)) == 1 }, 10*time.Second, time.Millisecond)
	m, err := stage.Match(context.Background(), []string{"flibbertigibbet"}, "en-US", session.Empty())
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Equal(t, ID+":"+IntentFallback, m.SkillID+":"+m.IntentName)
}

// An answer that opens with yes or no and goes on is the request that
// follows ("yes, in paris"), to either of a topic's questions.
func TestYesAndARequest(t *testing.T) {
	tests := []struct {
		first string // the answer to "Were you asking about the weather?"; "" answers yes
		then  string
		want  string
	}{
		{"yes in paris", "", "Forecast for paris, as asked: in paris"},
		{"Yeah, in paris.", "", "Forecast for paris, as asked: in paris."},
		{"no, in paris", "", "Forecast for paris, as asked: in paris"},
		{"okay the forecast", "Lisbon", "Forecast for Lisbon, as asked: the forecast"},
		{"", "sure in paris", "Forecast for paris, as asked: in paris"},
		{"", "nope in paris", "Forecast for paris, as asked: in paris"},
		{"yes purple", "", "Sorry, I still didn't get that."},
		{"no", "", "OK, never mind."},
	}
	for _, tt := range tests {
		var asked []string
		u := understander{guesser: guesser{&Guess{SkillID: "test.weather", Topic: "weather"}},
			answers: map[string]Guess{
				"in paris":     {SkillID: "test.weather", IntentName: "forecast", Slots: map[string]string{"place": "paris"}},
				"in paris.":    {SkillID: "test.weather", IntentName: "forecast", Slots: map[string]string{"place": "paris"}},
				"the forecast": {SkillID: "test.weather", IntentName: "forecast", Missing: []string{"place"}},
			}, skills: &asked}
		r, _ := newRig(t, Options{Guesser: u})
		r.Say("about the weather")
		turn := r.Say(cmp.Or(tt.first, "yes"))
		if tt.then != "" {
			turn = r.Say(tt.then)
		}
		require.NoError(t, turn.Err)
		assert.Equal(t, []string{tt.want}, turn.Said, "%q, %q", tt.first, tt.then)
	}
}

// The topic is asked about with the determiner said, from the robot's
// side: "your name" is "my name", "my timer" "your timer"; "the" when
// none was said.
func TestTopicKeepsWhoseItIs(t *testing.T) {
	for _, tt := range []struct{ det, topic, want string }{
		{"your", "name", "Were you asking about my name?"},
		{"my", "timer", "Were you asking about your timer?"},
		{"that", "timer", "Were you asking about that timer?"},
		{"", "weather", "Were you asking about the weather?"},
	} {
		r, _ := newRig(t, Options{Guesser: guesser{&Guess{SkillID: "test.weather", Topic: tt.topic, Determiner: tt.det}}})
		assert.Equal(t, []string{tt.want}, r.Say("about it").Said, "%q %q", tt.det, tt.topic)
	}
}

// keyed guesses and understands by the utterance.
type keyed struct{ guesses, answers map[string]Guess }

func (k keyed) Guess(_ context.Context, utterance, _ string) (Guess, bool) {
	g, ok := k.guesses[utterance]
	return g, ok
}

func (k keyed) Understand(_ context.Context, utterance, _, _ string) (Guess, bool) {
	g, ok := k.answers[utterance]
	return g, ok
}

// After yes, an answer that says "it" or "one" for the topic is the
// request about the topic; one about something else is asked about; the
// topic just asked about is not asked again.
func TestTopicAnswerByPronounOrOtherTopic(t *testing.T) {
	k := keyed{
		guesses: map[string]Guess{
			"about the weather": {SkillID: "test.weather", Topic: "weather"},
			"the weather":       {SkillID: "test.weather", Topic: "weather"},
			"the forecast":      {SkillID: "test.weather", IntentName: "forecast"},
			"lisbon":            {SkillID: "test.weather", IntentName: "forecast", Missing: []string{"place"}},
		},
		answers: map[string]Guess{
			"check the weather in paris": {SkillID: "test.weather", IntentName: "forecast", Slots: map[string]string{"place": "paris"}},
			"a weather for paris":        {SkillID: "test.weather", IntentName: "forecast", Slots: map[string]string{"place": "paris"}},
		},
	}
	for _, tt := range []struct{ answer, want string }{
		{"check it in paris", "Forecast for paris, as asked: check the weather in paris"},
		{"one for paris", "Forecast for paris, as asked: a weather for paris"},
		{"lisbon", "What place did you have in mind?"},
		{"the forecast", "Were you asking about the weather?"},
		{"the weather", "Sorry, I still didn't get that."},
		{"purple", "Sorry, I still didn't get that."},
	} {
		r, _ := newRig(t, Options{Guesser: k})
		r.Say("about the weather")
		r.Say("yes")
		turn := r.Say(tt.answer)
		require.NoError(t, turn.Err)
		assert.Equal(t, []string{tt.want}, turn.Said, tt.answer)
	}
}
