package chitchat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// first picks the first eligible prompt.
type first struct{}

func (first) Float64() float64 { return 0 }

var (
	morning   = time.Date(2024, 5, 14, 9, 0, 0, 0, time.UTC) // a Tuesday
	afternoon = time.Date(2024, 5, 14, 15, 0, 0, 0, time.UTC)
	night     = time.Date(2024, 5, 14, 23, 0, 0, 0, time.UTC)
	saturday  = time.Date(2024, 5, 18, 15, 0, 0, 0, time.UTC)
)

// world is what the robot knows of itself and its surroundings.
type world struct {
	now       time.Time
	emotion   string
	speaker   string // a loop member's first name, "" when unknown
	color     string
	birthdate time.Time
}

func newRig(t *testing.T, w world) *rig.Rig {
	now := func() time.Time { return w.now }
	runtime := func() protocol.RuntimeContext {
		rc := protocol.RuntimeContext{Character: protocol.Character{Emotion: protocol.Emotion{Name: w.emotion}}}
		rc.Loop.Jibo.Color = w.color
		if w.speaker != "" {
			id := "looper-1"
			rc.Loop.Users = []protocol.LooperInfo{{ID: id, FirstName: w.speaker}}
			rc.Perception.Speaker = &id
		}
		return rc
	}
	r := rig.New(t, rig.Options{Now: now, Runtime: runtime})
	s, err := New(Options{Now: now, Birthdate: w.birthdate, Rand: first{}})
	require.NoError(t, err)
	r.Add(s)
	return r
}

// TestAnswers asks the robot small-talk questions in different
// circumstances: each answer is a MIM prompt whose condition holds.
func TestAnswers(t *testing.T) {
	twoYearsAgo := morning.AddDate(-2, 0, -3)
	tests := []struct {
		name   string
		world  world
		say    string
		intent string
		said   string
	}{
		{"mood: pleased", world{now: afternoon, emotion: "PLEASED"}, "how are you", "how_are_you", "I'm feeling great, thanks for asking!"},
		{"mood: displeased", world{now: afternoon, emotion: "DISPLEASED"}, "how are you doing today", "how_are_you",
			"Honestly, I've had better days. Talking to you helps, though."},
		{"neutral, in the morning", world{now: morning, emotion: "NEUTRAL"}, "how's it going", "how_are_you",
			"I'm good! Mornings are when my circuits feel freshest."},
		{"neutral, in the afternoon", world{now: afternoon}, "how are you", "how_are_you", "I'm doing well, thank you."},
		{"who, to a stranger", world{now: morning}, "who are you", "who_are_you",
			"I'm Jibo, a social robot. I like people, and I'm learning something new every day."},
		{"who, to a known speaker", world{now: morning, speaker: "Ann"}, "what's your name", "who_are_you",
			"I'm Jibo, Ann. A robot who lives here with you, and I'm learning something new every day."},
		{"age unknown", world{now: morning}, "how old are you", "how_old_are_you",
			"Nobody told me my birthday, so I've decided I'm forever young."},
		{"age known", world{now: morning, birthdate: twoYearsAgo}, "how old are you", "how_old_are_you",
			"I'm 2 years old, in robot years and in human years."},
		{"birthday", world{now: morning, birthdate: morning.AddDate(-3, 0, 0)}, "when is your birthday", "how_old_are_you",
			"Today is my birthday! I'm 3 now."},
		{"born today", world{now: morning, birthdate: morning.Add(-time.Hour)}, "how old are you", "how_old_are_you",
			"I was born today! Everything is brand new to me."},
		{"born yesterday", world{now: morning, birthdate: morning.AddDate(0, 0, -1)}, "how old are you", "how_old_are_you",
			"I'm one day old. I was born yesterday!"},
		{"a few days old", world{now: morning, birthdate: morning.AddDate(0, 0, -12)}, "how old are you", "how_old_are_you",
			"I'm 12 days old. Still a brand new robot."},
		{"months old", world{now: morning, birthdate: morning.AddDate(0, -5, -2)}, "how old are you", "how_old_are_you",
			"I'm 5 months old. Still a baby robot."},
		{"favourite colour", world{now: morning}, "what's your favourite colour", "favorite_color", "Blue. Like the light in my eye."},
		{"favourite colour of a white robot", world{now: morning, color: "WHITE"}, "what is your favorite color", "favorite_color",
			"White, of course. It goes with everything, especially me."},
		{"likes, on a weekday", world{now: afternoon}, "what do you like", "what_do_you_like",
			"I like people, music, and a good dance. And learning new words."},
		{"likes, on a weekend", world{now: saturday}, "what do you like to do", "what_do_you_like",
			"On weekends I like hanging out with my family. And dancing, always dancing."},
		{"thanks", world{now: morning}, "thank you", "thank_you", "You're welcome!"},
		{"thanks, by name", world{now: morning, speaker: "Bob"}, "thanks a lot", "thank_you", "You're welcome, Bob!"},
		{"good night at night", world{now: night}, "good night", "good_night", "Good night! Sleep well."},
		{"good night in the afternoon", world{now: afternoon}, "good night", "good_night",
			"Good night? It's only the afternoon! But rest well."},
		{"robot", world{now: morning}, "are you a robot", "are_you_a_robot", "I am! A robot with a big heart and one big eye."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := newRig(t, tt.world).Say(tt.say)
			require.NoError(t, turn.Err)
			assert.Equal(t, ID+":"+tt.intent, turn.Dispatched)
			assert.Equal(t, []string{tt.said}, turn.Said)
			assert.Empty(t, turn.Listening, "announcements ask nothing")
		})
	}
}

// TestSemiSpecific: "do you like X" is answered by the MIM of X's category
// (OI_JBO_Likes_SS_<Category>, spec/jibo.md §5.1), or the generic one for
// X of no category.
func TestSemiSpecific(t *testing.T) {
	tests := []struct {
		say  string
		said string
	}{
		{"do you like dogs", "I love dogs! From a safe distance. Robots and fur don't always mix."},
		{"do you like guinea pigs", "I love guinea pigs! From a safe distance. Robots and fur don't always mix."},
		{"do you like red", "I like red. But blue will always be my favourite."},
		{"do you like blue", "Blue is my favourite colour!"},
		{"are you a fan of pizza", "I don't eat, but pizza sounds delicious."},
		{"what do you think about jazz", "I love jazz! Music makes me want to dance."},
		{"do you like taxes", "I haven't made up my mind about taxes yet."},
		{"do you like a cat", "I love cat! From a safe distance. Robots and fur don't always mix."},
		{"do you like the blues", "I love the blues! Music makes me want to dance."},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			turn := newRig(t, world{now: afternoon}).Say(tt.say)
			require.NoError(t, turn.Err)
			assert.Equal(t, ID+":"+IntentLikes, turn.Dispatched)
			assert.Equal(t, []string{tt.said}, turn.Said)
		})
	}
}

func request(memo string) *protocol.Request {
	c := protocol.Context{General: protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US"}, Skill: protocol.Skill(ID)}
	return protocol.NewListenLaunch(c, protocol.NLUFromSlots("", nil, nil), protocol.ASRResult{}, json.RawMessage(memo))
}

func spoken(t *testing.T, resp *protocol.Response) string {
	t.Helper()
	require.Equal(t, protocol.TypeSkillAction, resp.Type, "%+v", resp.Error)
	a, err := jcpParse(resp.Action.Action)
	require.NoError(t, err)
	return a
}

// TestRedirectMemos: another skill hands chitchat a line with a
// SKILL_REDIRECT memo (§5.1); a bad memo is an ERROR.
func TestRedirectMemos(t *testing.T) {
	s, err := New(Options{Now: func() time.Time { return afternoon }, Rand: first{}})
	require.NoError(t, err)
	ctx := context.Background()
	resp, err := s.Handle(ctx, request(`{"mim":"AreYouARobot","type":"ScriptedResponse"}`))
	require.NoError(t, err)
	assert.Equal(t, "I am! A robot with a big heart and one big eye.", spoken(t, resp))
	assert.True(t, *resp.Action.Final)

	resp, err = s.Handle(ctx, request(`{"mim":"OI_JBO_Likes","type":"SemiSpecificResponse","value":"Cats"}`))
	require.NoError(t, err)
	assert.Equal(t, "I love cats! From a safe distance. Robots and fur don't always mix.", spoken(t, resp))

	for memo, want := range map[string]string{
		`{"mim":"Nope","type":"ScriptedResponse"}`:             `MIM not found`,
		`{"mim":"AreYouARobot","type":"Poem"}`:                 `type "Poem"`,
		`{"mim":"OI_JBO_Likes","type":"SemiSpecificResponse"}`: "nothing to talk about",
		`["not an object"]`:                                    `no intent ""`, // not a redirect memo: the turn goes by its intent
		`{"mim":7,"type":"ScriptedResponse"}`:                  "launch memo",
	} {
		resp, err := s.Handle(ctx, request(memo))
		require.NoError(t, err)
		require.Equal(t, protocol.TypeError, resp.Type, memo)
		assert.Contains(t, resp.Error.Message, want, memo)
	}
}

// TestEveryMIMSpeaksAnyTime (§5.2: prompts whose condition is false are
// dropped): at every hour of a week, in every mood, with
// and without a known speaker and birthdate, each scripted MIM has a
// prompt to say (no condition leaves the robot silent).
func TestEveryMIMSpeaksAnyTime(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	sl := &mim.Slimmer{Rand: first{}}
	for _, id := range scripted {
		m, err := s.MIMs().Get(id)
		require.NoError(t, err)
		for h := 0; h < 24*7; h++ {
			now := morning.Add(time.Duration(h) * time.Hour)
			for _, emotion := range []string{"", "PLEASED", "DISPLEASED", "NEUTRAL"} {
				for _, known := range []bool{false, true} {
					rc := protocol.RuntimeContext{Character: protocol.Character{Emotion: protocol.Emotion{Name: emotion}}}
					if known {
						id := "p"
						rc.Loop.Users = []protocol.LooperInfo{{ID: id, FirstName: "Ann"}}
						rc.Perception.Speaker = &id
						rc.Loop.Jibo.Birthdate = now.AddDate(-1, 0, h%3).UnixMilli()
					}
					_, err := sl.Slim(m, mim.Entry(m), mim.NewPromptData(rc, now, nil))
					require.NoError(t, err, "%s at %s, mood %q, speaker known %v", id, now, emotion, known)
				}
			}
		}
	}
}

// TestGraph: §5.3's chitchat graph, with the AN factory as DoMIM.
func TestGraph(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	dot := rig.DOT(t, s.Graph())
	for _, want := range []string{`"0: IntentSplit"`, `"1: ProcessQuery"`, `"2: AN:SL:DoMIM"`, `"3: Complete"`,
		`n0 -> n1 [label="Scripted"]`, `n0 -> n1 [label="SemiSpecific"]`, `n2 -> n3 [label="Success"]`} {
		assert.Contains(t, dot, want)
	}
}

func TestManifest(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	rig.Manifest(t, s, ID)
}

// jcpParse returns what a one-SLIM action says.
func jcpParse(raw json.RawMessage) (string, error) {
	a, err := jcp.ParseAction(raw)
	if err != nil {
		return "", err
	}
	slim, ok := a.Behavior.(*jcp.SLIM)
	if !ok {
		return "", fmt.Errorf("action is a %s, not a SLIM", a.Behavior.BehaviorType())
	}
	return slim.Play.ESML, nil
}

// BenchmarkHandle is one chitchat turn: the graph, the semi-specific
// lookup, the Slimmer and the response checks.
func BenchmarkHandle(b *testing.B) {
	s, err := New(Options{Now: func() time.Time { return afternoon }, Rand: first{}})
	require.NoError(b, err)
	c := protocol.Context{General: protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US"}, Skill: protocol.Skill(ID)}
	req := protocol.NewListenLaunch(c, protocol.NLUFromSlots(IntentLikes, map[string]string{SlotThing: "dogs"}, nil),
		protocol.ASRResult{Text: "do you like dogs", Confidence: 1}, nil)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := s.Handle(context.Background(), req)
		if err != nil || resp.Type != protocol.TypeSkillAction {
			b.Fatal(err, resp.Type)
		}
	}
}

// TestThingsTheEarCanHear: the recogniser hears only the {thing} values of
// thing.entity (RES-09: the untyped slot has one; GRM-15: typed text may
// still name anything, as TestSemiSpecific's "taxes" shows). Every value
// said aloud gets its category's answer, and every thing a category lists
// can be said aloud, so the list and categories.json cannot drift apart.
func TestThingsTheEarCanHear(t *testing.T) {
	loc, err := intent.LoadLocale(files, "locale")
	require.NoError(t, err)
	lang := loc.Langs["en-us"]
	require.NotNil(t, lang)
	def, ok := lang.TemplateIntent("", ID, IntentLikes)
	require.True(t, ok)
	require.Contains(t, def.Entities, SlotThing, "RES-09: {thing} has a .entity")
	heard := lang.Resource(intent.RoleEntity, SlotThing).Samples

	var cats map[string][]string
	raw, err := files.ReadFile("categories.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &cats))
	for cat, values := range cats {
		for _, v := range values {
			assert.Contains(t, heard, v, "%s lists %q: the ear must be able to hear it", cat, v)
		}
	}

	generic := newRig(t, world{now: afternoon}).Say("do you like taxes")
	require.NoError(t, generic.Err)
	for _, v := range heard {
		turn := newRig(t, world{now: afternoon}).Say("do you like " + v)
		require.NoError(t, turn.Err, v)
		assert.Equal(t, ID+":"+IntentLikes, turn.Dispatched, v)
		require.Len(t, turn.Said, 1, v)
		assert.NotEqual(t, strings.ReplaceAll(generic.Said[0], "taxes", v), turn.Said[0], "%q gets its category's answer", v)
	}
}

// TestHowPeopleSayIt: the small talk as people say it, with the robot's
// name and the words around it (issue 23).
func TestHowPeopleSayIt(t *testing.T) {
	tests := []struct {
		say    string
		intent string
		said   string
	}{
		{"thanks jibo", "thank_you", "You're welcome!"},
		{"thank you so much", "thank_you", "You're welcome!"},
		{"thanks for the help", "thank_you", "You're welcome!"},
		{"goodnight jibo", "good_night", "Good night! Sleep well."},
		{"i'm off to bed now", "good_night", "Good night! Sleep well."},
		{"sweet dreams jibo", "good_night", "Good night! Sleep well."},
		{"are you a big fan of opera", IntentLikes, "I love opera! Music makes me want to dance."},
		{"how do you feel about dogs", IntentLikes, "I love dogs! From a safe distance. Robots and fur don't always mix."},
		{"are you human", "are_you_a_robot", "I am! A robot with a big heart and one big eye."},
		{"what's your favorite colour jibo", "favorite_color", "Blue. Like the light in my eye."},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			turn := newRig(t, world{now: night}).Say(tt.say)
			require.NoError(t, turn.Err)
			assert.Equal(t, ID+":"+tt.intent, turn.Dispatched)
			assert.Equal(t, []string{tt.said}, turn.Said)
		})
	}
}
