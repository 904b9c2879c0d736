package factory_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

const (
	timerQ   = "For how long?"
	timerNM1 = "Sorry, how many minutes or seconds?"
	timerNM2 = "I still didn't catch that. Say something like <break size='0.2'/> five minutes."
	timerNI1 = "How long should the timer be?"
	timerNI2 = "You can tell me a number of minutes, or pick one on my screen."
)

// timerQN is the QN factory's graph for TimerHowLong inside a parent
// that says which exit it took. Node ids: QN:SL 0, NM:SL 1, NI:SL 2, then
// the parent's "exit Success" 3, "exit NoMatch" 4, "exit NoInput" 5.
func timerQN(t *testing.T) *graph.Graph {
	g, err := factory.QN("timer", opts(factory.FromSet(loadSet(t), "TimerHowLong")))
	require.NoError(t, err)
	assert.Equal(t, "QN MIM: timer", g.Name())
	assert.Equal(t, []string{factory.Success, factory.NoMatch, factory.NoInput}, g.Exits())
	var names []string
	for _, n := range g.Nodes() {
		names = append(names, n.Name())
	}
	assert.Equal(t, []string{"QN:SL:timer", "NM:SL:timer", "NI:SL:timer"}, names)
	return withExits(t, g)
}

// TestQNAnswered: an answer with an intent leaves by Success, with the
// answer as the next node's result (§5.3 multi-turn exit rule).
func TestQNAnswered(t *testing.T) {
	g := timerQN(t)
	c := newConvo(t, g, "")
	s := c.launch(nil)
	assert.Equal(t, []string{timerQ}, s.ESML)
	assert.Equal(t, []string{"timer/duration"}, s.Listen, "a question listens with the MIM's rule")
	assert.False(t, s.Final)
	assert.Equal(t, []string{"[0,null]"}, trace(s.Session))
	assert.Equal(t, mim.DialogState{}, dialogState(t, s.Session), "QN resets session.data._mim")

	s = c.answer("set_duration", "five minutes", map[string]string{"duration": "five minutes"})
	assert.Equal(t, []string{"exit Success"}, s.ESML)
	assert.Equal(t, []string{"[0,Success]", "[3,null]"}, trace(s.Session))
}

// TestQNNoMatchLadder: garbage climbs the Errors/NM ladder by index, the
// gui appears from the second miss (no_matches_for_gui 2), and when the
// ladder runs out the graph leaves by NoMatch with noMatchMax set.
func TestQNNoMatchLadder(t *testing.T) {
	c := newConvo(t, timerQN(t), "")
	c.launch(nil)

	s := c.answer("", "banana", nil)
	assert.Equal(t, []string{timerNM1}, s.ESML)
	assert.Equal(t, []string{"timer/duration"}, s.Listen)
	assert.False(t, s.Display)
	assert.Equal(t, mim.DialogState{NoMatch: 1}, dialogState(t, s.Session))
	assert.Equal(t, []string{"[0,NoMatch]", "[1,null]"}, trace(s.Session))

	s = c.answer("", "blue elephants", nil)
	assert.Equal(t, []string{timerNM2}, s.ESML)
	assert.True(t, s.Display, "the menu shows from the second no-match")
	assert.Equal(t, mim.DialogState{NoMatch: 2}, dialogState(t, s.Session))

	s = c.answer("", "purple", nil)
	assert.Equal(t, []string{"exit NoMatch"}, s.ESML)
	assert.True(t, s.Final)
	assert.Equal(t, mim.DialogState{NoMatch: 3, NoMatchMax: true}, dialogState(t, s.Session))
	assert.Equal(t, []string{"[0,NoMatch]", "[1,NoMatch]", "[1,NoMatch]", "[1,FinalNoMatch]", "[4,null]"}, trace(s.Session))
}

// TestQNNoInputLadder: silence climbs the Errors/NI ladder and leaves by
// NoInput.
func TestQNNoInputLadder(t *testing.T) {
	c := newConvo(t, timerQN(t), "")
	c.launch(nil)
	s := c.answer("", "", nil)
	assert.Equal(t, []string{timerNI1}, s.ESML)
	assert.False(t, s.Display)
	s = c.answer("", "", nil)
	assert.Equal(t, []string{timerNI2}, s.ESML)
	assert.True(t, s.Display, "no_inputs_for_gui 2")
	s = c.answer("", "", nil)
	assert.Equal(t, []string{"exit NoInput"}, s.ESML)
	assert.Equal(t, mim.DialogState{NoInput: 3, NoInputMax: true}, dialogState(t, s.Session))
	assert.Equal(t, []string{"[0,NoInput]", "[2,NoInput]", "[2,NoInput]", "[2,FinalNoInput]", "[5,null]"}, trace(s.Session))
}

// TestExhaustedLadderResult: when a ladder runs out, the node after the
// graph's NoMatch (NoInput) exit gets {noMatch: true} ({noInput: true}) as
// its result, not the last ASR/NLU answer (§5.3, as Pegasus).
func TestExhaustedLadderResult(t *testing.T) {
	tests := []struct {
		name, text string
		want       factory.Exhausted
		wantJSON   string
	}{
		{"no-match", "purple", factory.Exhausted{NoMatch: true}, `{"noMatch":true}`},
		{"no-input", "", factory.Exhausted{NoInput: true}, `{"noInput":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, build := range []func(string, factory.Options) (*graph.Graph, error){factory.QN, factory.MIM} {
				sub, err := build("timer", opts(factory.FromSet(loadSet(t), "TimerHowLong")))
				require.NoError(t, err)
				var got []any
				after := graph.JCP("after", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
					got = append(got, d.Result)
					return jcp.NewAction(jcp.Say("after")), nil
				}, nil, graph.TransitionDone).Final()
				g := graph.New("parent", "Done")
				require.NoError(t, g.AddSubGraph(sub, graph.To(factory.Success, after), graph.To(factory.NoMatch, after), graph.To(factory.NoInput, after)))
				require.NoError(t, g.AddNode(after, graph.ToExit(graph.TransitionDone, "Done")))
				require.NoError(t, g.Finalize())

				c := newConvo(t, g, "")
				c.launch(nil)
				c.answer("", tt.text, nil)
				c.answer("", tt.text, nil)
				s := c.answer("", tt.text, nil)
				assert.Equal(t, []string{"after"}, s.ESML, sub.Name())
				require.Len(t, got, 1, sub.Name())
				assert.Equal(t, tt.want, got[0], sub.Name())
				js, err := json.Marshal(got[0])
				require.NoError(t, err)
				assert.JSONEq(t, tt.wantJSON, string(js))
			}
		})
	}
}

// TestQNLaddersLoop: the NM and NI nodes lead to each other, each ladder
// keeping its own count, and an answer from either leaves by Success.
func TestQNLaddersLoop(t *testing.T) {
	c := newConvo(t, timerQN(t), "")
	c.launch(nil)
	assert.Equal(t, []string{timerNM1}, c.answer("", "what", nil).ESML)
	assert.Equal(t, []string{timerNI1}, c.answer("", "", nil).ESML)
	s := c.answer("", "hmm", nil)
	assert.Equal(t, []string{timerNM2}, s.ESML)
	assert.Equal(t, mim.DialogState{NoMatch: 2, NoInput: 1}, dialogState(t, s.Session))
	s = c.answer("set_duration", "ten minutes", nil)
	assert.Equal(t, []string{"exit Success"}, s.ESML)
	assert.Equal(t, []string{"[0,NoMatch]", "[1,NoInput]", "[2,NoMatch]", "[1,Success]", "[3,null]"}, trace(s.Session))
}

// TestQNRestartsState: asking again resets the ladders.
func TestQNRestartsState(t *testing.T) {
	set := loadSet(t)
	qn, err := factory.QN("timer", opts(factory.FromSet(set, "TimerHowLong")))
	require.NoError(t, err)
	// On NoMatch, ask again from the start.
	g := graph.New("again", "Done")
	again := graph.NoOp("again", "Ask")
	done := say("done")
	require.NoError(t, g.AddSubGraph(qn, graph.To(factory.Success, done), graph.To(factory.NoMatch, again), graph.To(factory.NoInput, done)))
	require.NoError(t, g.AddNode(again, graph.To("Ask", qn.Initial())))
	require.NoError(t, g.AddNode(done, graph.ToExit(graph.TransitionDone, "Done")))
	c := newConvo(t, g, "")
	c.launch(nil)
	c.answer("", "a", nil)
	c.answer("", "b", nil)
	s := c.answer("", "c", nil)
	assert.Equal(t, []string{timerQ}, s.ESML, "the ladder ran out and the question is asked afresh")
	assert.Equal(t, mim.DialogState{}, dialogState(t, s.Session))
}

// TestAN: one announcement; final as Options.Final says; an update
// continues by Success.
func TestAN(t *testing.T) {
	hello := parseMIM(t, "Hello", `{"mim_type":"announcement","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"Hi ${speaker || 'there'}.","prompt_id":"Hello_AN_01"}]}`)
	for _, final := range []bool{true, false} {
		o := opts(factory.MIMs(hello))
		o.Final = factory.Final(final)
		g, err := factory.AN("hello", o)
		require.NoError(t, err)
		assert.Equal(t, "AN MIM: hello", g.Name())
		assert.Equal(t, "AN:SL:hello", g.Nodes()[0].Name())
		c := newConvo(t, withExits(t, g), "u-bob")
		s := c.launch(nil)
		assert.Equal(t, []string{"Hi Bawb."}, s.ESML)
		assert.Nil(t, s.Listen)
		assert.Equal(t, final, s.Final)
		s = c.answer("", "", nil)
		assert.Equal(t, []string{"exit Success"}, s.ESML)
		assert.Equal(t, []string{"[0,Success]", "[1,null]"}, trace(s.Session))
	}
}

// TestMAN: several announcements play as one SEQUENCE, in order, after
// the dialogue state is reset.
func TestMAN(t *testing.T) {
	a := parseMIM(t, "A", `{"mim_type":"announcement","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"First."}]}`)
	b := parseMIM(t, "B", `{"mim_type":"announcement","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"Then ${loop.owner}."}]}`)
	o := opts(factory.MIMs(a, b))
	o.Final = factory.Final(true)
	g, err := factory.MAN("two", o)
	require.NoError(t, err)
	assert.Equal(t, "MAN:SL:two", g.Nodes()[0].Name())
	c := newConvo(t, g, "")
	s := c.launch(nil)
	assert.Equal(t, []string{"First.", "Then Ann."}, s.ESML)
	assert.IsType(t, &jcp.SequenceBehavior{}, s.Behavior)
	assert.True(t, s.Final)
	assert.Equal(t, mim.DialogState{}, dialogState(t, s.Session))
}

// TestMIMFactory: the router plays the turn's MIM as a question or an
// announcement by its mim_type.
func TestMIMFactory(t *testing.T) {
	set := loadSet(t)
	// The launch memo names the MIM; the later turns play the same one.
	o := opts(factory.FromSetBy(set, func(_ context.Context, d *graph.Data) ([]string, error) {
		var memo struct{ MIM string }
		if err := json.Unmarshal(d.Request.Data.Result.Memo, &memo); err != nil {
			return nil, err
		}
		return []string{memo.MIM}, nil
	}))
	o.SkillData = func(context.Context, *graph.Data) (map[string]any, error) {
		return map[string]any{"weather": map[string]any{"summary": "sunny", "high": 24, "low": 12}}, nil
	}
	g, err := factory.MIM("chat", o)
	require.NoError(t, err)
	var names []string
	for _, n := range g.Nodes() {
		names = append(names, n.Name())
	}
	assert.Equal(t, []string{"Router:chat", "QN:SL:chat", "NM:SL:chat", "NI:SL:chat", "AN:SL:chat"}, names)
	g = withExits(t, g)

	c := newConvo(t, g, "")
	s := c.launch(json.RawMessage(`{"mim":"WeatherToday"}`))
	assert.Equal(t, []string{"Today in Boston: sunny, high 24, low 12."}, s.ESML)
	assert.Nil(t, s.Listen)
	assert.Equal(t, []string{"[0,Announcement]", "[4,null]"}, trace(s.Session))

	c = newConvo(t, g, "")
	s = c.launch(json.RawMessage(`{"mim":"PlayAgain"}`))
	assert.Equal(t, []string{"Want to play again?"}, s.ESML, "skill.rounds > 1 throws without rounds: that prompt is dropped")
	assert.Equal(t, []string{"games/play_again"}, s.Listen)
	var chosen []string
	sessionData(t, s.Session, "_mimIDs:chat", &chosen)
	assert.Equal(t, []string{"PlayAgain"}, chosen)
	s = c.answer("", "", nil)
	assert.Equal(t, []string{"exit NoInput"}, s.ESML, "PlayAgain has no NI prompts: silence ends it at once")
	assert.Equal(t, []string{"[0,Question]", "[1,NoInput]", "[3,FinalNoInput]", "[7,null]"}, trace(s.Session))
}

// TestFactoryErrors: what cannot work is refused when the graph is built.
func TestFactoryErrors(t *testing.T) {
	set := loadSet(t)
	tests := []struct {
		name  string
		build func() (*graph.Graph, error)
		want  string
	}{
		{"no MIMs", func() (*graph.Graph, error) { return factory.AN("x", factory.Options{}) }, "AN factory x: no MIMs: set Options.MIMs"},
		{"AN of a question", func() (*graph.Graph, error) { return factory.AN("x", opts(factory.FromSet(set, "TimerHowLong"))) },
			`AN factory x: MIM "TimerHowLong" is a question; want [announcement]`},
		{"AN of two", func() (*graph.Graph, error) {
			return factory.AN("x", opts(factory.FromSet(set, "Greeting", "WeatherToday")))
		}, "AN factory x: want exactly one MIM, got 2"},
		{"QN of an announcement", func() (*graph.Graph, error) { return factory.QN("x", opts(factory.FromSet(set, "Greeting"))) },
			`QN factory x: MIM "Greeting" is a announcement; want [question optional-response]`},
		{"MAN of a question", func() (*graph.Graph, error) {
			return factory.MAN("x", opts(factory.FromSet(set, "Greeting", "TimerHowLong")))
		}, `MAN factory x: MIM "TimerHowLong" is a question: only announcements can be sequenced`},
		{"unknown id", func() (*graph.Graph, error) { return factory.MIM("x", opts(factory.FromSet(set, "Nope"))) },
			`MIM factory x: MIM "Nope": MIM not found`},
		{"missing file", func() (*graph.Graph, error) { return factory.MIM("x", opts(factory.Path(mims, "mims/Nope.mim"))) },
			"MIM factory x: reading MIM: open mims/Nope.mim: no such file or directory"},
		{"empty name", func() (*graph.Graph, error) { return factory.QN("", opts(factory.FromSet(set, "TimerHowLong"))) },
			"QN factory : empty name"},
		{"bad opt-in type", func() (*graph.Graph, error) { return factory.OptIn("x", factory.OptInOptions{Type: "MAYBE"}) },
			`OptIn factory x: opt-in type "MAYBE" is not NO_ID or VERIFY_ID`},
		{"opt-in proposal of two", func() (*graph.Graph, error) {
			return factory.OptIn("x", factory.OptInOptions{Options: opts(factory.FromSet(set, "Greeting", "TimerHowLong"))})
		}, "OptIn factory x: want exactly one MIM, got 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := tt.build()
			require.Error(t, err)
			assert.Nil(t, g)
			if tt.want != "" {
				assert.EqualError(t, err, tt.want)
			}
		})
	}
}

// TestTurnErrors: a MIM chosen at run time that does not fit is an ERROR
// response naming the problem, not a crash.
func TestTurnErrors(t *testing.T) {
	set := loadSet(t)
	g, err := factory.QN("x", opts(factory.MIMFunc(func(context.Context, *graph.Data) ([]*mim.MIM, error) {
		m, err := set.Get("Greeting")
		return []*mim.MIM{m}, err
	})))
	require.NoError(t, err)
	s, err := graph.NewSkill(skillID, g, graph.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	resp, err := s.Handle(context.Background(), protocol.NewListenLaunch(robot(""), protocol.NLUFromSlots("start", nil, nil), protocol.ASRResult{}, nil))
	require.NoError(t, err)
	require.NotNil(t, resp.Error)
	assert.Contains(t, resp.Error.Message, `MIM "Greeting" is a announcement; want [question optional-response]`)
}

// TestViewData: a shown gui carries the view data beside the gui.
func TestViewData(t *testing.T) {
	o := opts(factory.FromSet(loadSet(t), "TimerHowLong"))
	o.ViewData = func(context.Context, *graph.Data) (any, error) { return map[string]any{"highlight": "5 min"}, nil }
	g, err := factory.QN("timer", o)
	require.NoError(t, err)
	c := newConvo(t, g, "")
	c.launch(nil)
	c.answer("", "x", nil)
	s := c.answer("", "y", nil)
	require.True(t, s.Display)
	slim := s.Behavior.(*jcp.SLIM)
	var view struct {
		Type    string
		Name    string
		Context map[string]any
		Data    map[string]any
	}
	require.NoError(t, json.Unmarshal(slim.Display.View, &view))
	assert.Equal(t, "SKILL", view.Type)
	assert.Equal(t, "MIM_VIEW", view.Name)
	assert.Equal(t, "Menu", view.Context["type"])
	assert.Equal(t, map[string]any{"highlight": "5 min"}, view.Data)
}

func TestAnswer(t *testing.T) {
	tests := []struct {
		intent, text, want string
	}{
		{"yes", "yes", factory.Success},
		{"yes", "", factory.Success},
		{"", "what", factory.NoMatch},
		{"", "", factory.NoInput},
	}
	for _, tt := range tests {
		req := protocol.NewListenUpdate(robot(""), protocol.NLUFromSlots(tt.intent, nil, nil), protocol.ASRResult{Text: tt.text})
		d, err := graph.NewData(req, skillID, nil)
		require.NoError(t, err)
		res := factory.Answer(d)
		assert.Equal(t, tt.want, res.Transition, "%q %q", tt.intent, tt.text)
		r, ok := res.Result.(protocol.Result)
		require.True(t, ok)
		assert.Equal(t, tt.intent, r.NLU.IntentName())
		assert.Equal(t, tt.text, r.ASR.Text)
	}
	_ = errors.New
}
