package mim

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
)

// actionJSON is the SLIM as the robot receives it, inside a JCP action.
func actionJSON(t *testing.T, slim *jcp.SLIM) string {
	t.Helper()
	b, err := jcp.NewAction(slim).MarshalJSON()
	require.NoError(t, err)
	return string(b)
}

func promptIDs(t *testing.T, s *Slimmer, m *MIM, cfg Config, d PromptData, n int) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for range n {
		sel, err := s.Slim(m, cfg, d)
		require.NoError(t, err)
		seen[sel.Prompt.ID]++
	}
	return seen
}

// TestSlimSelectsByCategory: only prompts of the category and
// sub-category asked for are candidates; for Errors the index must match
// too, elsewhere the index is ignored (§5.2).
func TestSlimSelectsByCategory(t *testing.T) {
	m := loadMIM(t, "TimerHowLong")
	d := NewPromptData(testRuntime(), testNow, nil)
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"Entry-Core/Q", Config{Category: EntryCore, SubCategory: Q}, []string{"TimerHowLong_QN_01", "TimerHowLong_QN_02"}},
		{"Entry-Core ignores index", Config{Category: EntryCore, SubCategory: Q, Index: 7}, []string{"TimerHowLong_QN_01", "TimerHowLong_QN_02"}},
		{"Errors/NM index 1", Config{Category: Errors, SubCategory: NM, Index: 1}, []string{"TimerHowLong_NM_1_01"}},
		{"Errors/NM index 2", Config{Category: Errors, SubCategory: NM, Index: 2}, []string{"TimerHowLong_NM_2_01"}},
		{"Errors/NI index 1", Config{Category: Errors, SubCategory: NI, Index: 1}, []string{"TimerHowLong_NI_1_01"}},
		{"Errors/NI index 2", Config{Category: Errors, SubCategory: NI, Index: 2}, []string{"TimerHowLong_NI_2_01"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testSlimmer(1)
			seen := promptIDs(t, s, m, tt.cfg, d, 50)
			var got []string
			for id := range seen {
				got = append(got, id)
			}
			assert.ElementsMatch(t, tt.want, got)
		})
	}
}

// TestSlimConditions: a prompt whose condition is false, or fails, is
// dropped, and the Selection says why (§5.2).
func TestSlimConditions(t *testing.T) {
	m := loadMIM(t, "Greeting")
	s, _ := testSlimmer(1)

	// Bob is speaking, on Jibo's birthday: only the birthday prompt.
	d := NewPromptData(testRuntime(), testNow, nil)
	sel, err := s.Slim(m, Entry(m), d)
	require.NoError(t, err)
	assert.Equal(t, "Greeting_AN_01", sel.Prompt.ID)
	assert.Equal(t, "Hello! Guess what, today is my birthday. I am 7 years old.", sel.ESML)
	assert.Equal(t, []Dropped{
		{1, "Greeting_AN_02", "condition is false"},
		{2, "Greeting_AN_03", "condition is false"},
		{3, "Greeting_AN_04", "condition is false"},
	}, sel.Dropped)

	// Not the birthday, nobody known, in the morning: AN_03 or AN_04.
	d.JiboBirthdate = d.JiboBirthdate.AddDate(0, 1, 0)
	d.Speaker = nil
	seen := promptIDs(t, s, m, Entry(m), d, 40)
	assert.Equal(t, []string{"Greeting_AN_03", "Greeting_AN_04"}, keys(seen))

	// A condition that throws drops its prompt.
	bad := parseMIM(t, `{"mim_type":"announcement","prompts":[
		{"prompt_category":"Entry-Core","prompt_sub_category":"AN","condition":"referent.gender == 'male'","prompt":"He is here.","prompt_id":"A"},
		{"prompt_category":"Entry-Core","prompt_sub_category":"AN","condition":"","prompt":"Someone is here.","prompt_id":"B"}]}`)
	sel, err = s.Slim(bad, Entry(bad), PromptData{})
	require.NoError(t, err)
	assert.Equal(t, "B", sel.Prompt.ID)
	require.Len(t, sel.Dropped, 1)
	assert.Equal(t, "A", sel.Dropped[0].PromptID)
	assert.Contains(t, sel.Dropped[0].Reason, "condition failed: cannot read property \"gender\" of null")
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestSlimWeights: prompts are picked at random in proportion to their
// weights, and a seeded source makes the picks repeatable (§5.2).
func TestSlimWeights(t *testing.T) {
	m := parseMIM(t, `{"mim_type":"announcement","prompts":[
		{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"one","prompt_id":"w1","weight":1},
		{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"three","prompt_id":"w3","weight":3},
		{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"default","prompt_id":"wd"},
		{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"half","prompt_id":"wh","weight":0.5}]}`)
	s, _ := testSlimmer(42)
	const n = 11000
	seen := promptIDs(t, s, m, Entry(m), PromptData{}, n)
	// Weights 1, 3, 1 (default), 0.5 of 5.5.
	assert.InDelta(t, 2000, seen["w1"], 150)
	assert.InDelta(t, 6000, seen["w3"], 200)
	assert.InDelta(t, 2000, seen["wd"], 150)
	assert.InDelta(t, 1000, seen["wh"], 100)

	a, _ := testSlimmer(7)
	b, _ := testSlimmer(7)
	for range 20 {
		x, err := a.Slim(m, Entry(m), PromptData{})
		require.NoError(t, err)
		y, err := b.Slim(m, Entry(m), PromptData{})
		require.NoError(t, err)
		assert.Equal(t, x.Prompt.ID, y.Prompt.ID, "the same seed picks the same prompts")
	}
}

// TestSlimTemplates: ${…} is resolved against prompt data as text,
// escaped for ESML; a template that fails or yields nothing speakable
// makes its prompt ineligible and is logged, never spoken half-resolved.
func TestSlimTemplates(t *testing.T) {
	d := NewPromptData(testRuntime(), testNow, map[string]any{
		"weather": map[string]any{"summary": "snow & wind", "high": -2, "low": -7.5},
		"pause":   ESML("<break size='0.5'/>"),
		"list":    []any{"a", 2},
		"obj":     map[string]any{"a": 1},
	})
	tests := []struct {
		prompt string
		want   string // "" = ineligible
		reason string
	}{
		{"Today in ${location.city}: ${skill.weather.summary}, high ${skill.weather.high}, low ${skill.weather.low}.",
			"Today in Boston: snow &amp; wind, high -2, low -7.5.", ""},
		{"Stay warm, ${speaker || 'friend'}.", "Stay warm, Bawb.", ""},
		{"Wait ${skill.pause} now.", "Wait <break size='0.5'/> now.", ""},
		{"It is ${dt.hour}:${dt.minute}.", "It is 9:30.", ""},
		{"Items ${skill.list}.", "Items a,2.", ""},
		{"Quote ${'<b>'}.", "Quote &lt;b&gt;.", ""},
		{"Hi ${referent}.", "", "template ${referent} at column 4: value is null or undefined"},
		{"Hi ${skill.obj}.", "", "template ${skill.obj} at column 4: value of type map[string]interface {} cannot be spoken"},
		{"Hi ${skill.nothing.deeper}.", "", "template ${skill.nothing.deeper} at column 4: cannot read property \"deeper\" of undefined"},
		{"Hi ${skill.obj ? '<anim' : ''}.", "Hi &lt;anim.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			p, _ := json.Marshal(tt.prompt)
			m := parseMIM(t, `{"mim_type":"announcement","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":`+string(p)+`,"prompt_id":"P"}]}`)
			s, log := testSlimmer(1)
			sel, err := s.Slim(m, Entry(m), d)
			if tt.want != "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, sel.ESML)
				assert.Equal(t, tt.want, sel.SLIM.Play.ESML)
				return
			}
			assert.ErrorIs(t, err, ErrNoPrompt)
			require.Len(t, sel.Dropped, 1)
			assert.Contains(t, sel.Dropped[0].Reason, tt.reason)
			assert.Contains(t, log.String(), "MIM prompt not eligible")
			assert.Contains(t, log.String(), "prompt=P")
		})
	}
}

// TestSlimAutoRuleConfig: a prompt's auto_rule_override wins; null or
// absent falls back to the MIM's es_auto_tagging; with neither the PLAY
// has no autoRuleConfig (§5.2, §3.1).
func TestSlimAutoRuleConfig(t *testing.T) {
	tests := []struct {
		name     string
		tagging  string // es_auto_tagging member, "" for none
		override string // auto_rule_override member, "" for none
		want     string // "" = absent
	}{
		{"override object", `true`, `{"hotWords":true,"beat":false}`, `{"hotWords":true,"beat":false}`},
		{"override false", `true`, `false`, `false`},
		{"override null", `true`, `null`, `true`},
		{"override absent", `false`, ``, `false`},
		{"neither", ``, ``, ``},
		{"override only", ``, `true`, `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, prompt := "", ""
			if tt.tagging != "" {
				top = `"es_auto_tagging":` + tt.tagging + `,`
			}
			if tt.override != "" {
				prompt = `,"auto_rule_override":` + tt.override
			}
			m := parseMIM(t, `{`+top+`"mim_type":"announcement","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"Hi."`+prompt+`}]}`)
			s, _ := testSlimmer(1)
			sel, err := s.Slim(m, Entry(m), PromptData{})
			require.NoError(t, err)
			if tt.want == "" {
				assert.Nil(t, sel.SLIM.Play.AutoRuleConfig)
			} else {
				assert.JSONEq(t, tt.want, string(sel.SLIM.Play.AutoRuleConfig))
			}
		})
	}
}

// TestSlimShape: the SLIM of a question has PLAY with esml,
// autoRuleConfig and meta {prompt_id, prompt_sub_category, mim_id,
// mim_type}, and LISTEN with the MIM's rule (§5.2).
func TestSlimShape(t *testing.T) {
	m := loadMIM(t, "TimerHowLong")
	s, _ := testSlimmer(3)
	d := NewPromptData(testRuntime(), testNow, nil)
	d.Speaker = nil // only QN_01 is eligible
	sel, err := s.Slim(m, Entry(m), d)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"JCP","config":{"version":"2.0","jcp":{
		"id":"id2","type":"SLIM","config":{
			"play":{"id":"id1","type":"PLAY","esml":"For how long?","autoRuleConfig":true,
				"meta":{"prompt_id":"TimerHowLong_QN_01","prompt_sub_category":"Q","mim_id":"TimerHowLong","mim_type":"question"}},
			"listen":{"id":"id3","type":"LISTEN","contexts":["timer/duration"]}}}}}`, actionJSON(t, sel.SLIM))
	assert.Equal(t, DialogState{}, sel.State)
}

// TestSlimListen: only questions and optional responses listen.
func TestSlimListen(t *testing.T) {
	for name, want := range map[string][]string{
		"TimerHowLong": {"timer/duration"},
		"PlayAgain":    {"games/play_again"},
		"Greeting":     nil,
		"WeatherToday": nil,
	} {
		t.Run(name, func(t *testing.T) {
			m := loadMIM(t, name)
			s, _ := testSlimmer(1)
			d := NewPromptData(testRuntime(), testNow, map[string]any{"rounds": 3, "weather": map[string]any{"summary": "sunny", "high": 20, "low": 10}})
			sel, err := s.Slim(m, Entry(m), d)
			require.NoError(t, err)
			if want == nil {
				assert.Nil(t, sel.SLIM.Listen)
				return
			}
			require.NotNil(t, sel.SLIM.Listen)
			assert.Equal(t, want, sel.SLIM.Listen.Contexts)
		})
	}
}

// TestSlimDisplay: the gui is shown once the no-match or no-input count
// reaches its threshold, as a PEGASUS_VIEW DISPLAY of a SKILL view
// (§5.2).
func TestSlimDisplay(t *testing.T) {
	m := loadMIM(t, "TimerHowLong")
	d := PromptData{}
	tests := []struct {
		name  string
		cfg   Config
		shown bool
	}{
		{"entry", Entry(m), false},
		{"first no-match", NoMatchConfig(DialogState{NoMatch: 1}), false},
		{"second no-match", NoMatchConfig(DialogState{NoMatch: 2}), true},
		{"second no-input", NoInputConfig(DialogState{NoInput: 2}), true},
		{"one of each", NoInputConfig(DialogState{NoMatch: 1, NoInput: 1}), false},
		{"entry after misses", Config{Category: EntryCore, SubCategory: Q, State: DialogState{NoMatch: 3}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testSlimmer(1)
			sel, err := s.Slim(m, tt.cfg, d)
			require.NoError(t, err)
			require.NotNil(t, sel.SLIM)
			if !tt.shown {
				assert.Nil(t, sel.SLIM.Display)
				return
			}
			require.NotNil(t, sel.SLIM.Display)
			b, err := sel.SLIM.Display.MarshalJSON()
			require.NoError(t, err)
			assert.JSONEq(t, `{"id":"id4","type":"DISPLAY","name":"PEGASUS_VIEW",
				"view":{"type":"SKILL","name":"MIM_VIEW","context":`+string(m.GUI)+`},
				"layer":0,"visible":true,"keepDisplay":false,
				"onCancel":[{"type":"HIDE_DISPLAY","name":"HIDE_MIM_VIEW"}]}`, string(b))
		})
	}

	// No gui, no display, whatever the counts.
	g := loadMIM(t, "Greeting")
	s, _ := testSlimmer(1)
	sel, err := s.Slim(g, Config{Category: EntryCore, SubCategory: AN, State: DialogState{NoMatch: 9, NoInput: 9}}, NewPromptData(testRuntime(), testNow, nil))
	require.NoError(t, err)
	assert.Nil(t, sel.SLIM.Display)
}

// TestSlimLadderEnd: with no eligible Errors/NM or Errors/NI prompt the
// Slimmer returns no SLIM and sets noMatchMax or noInputMax (§5.2);
// elsewhere no eligible prompt is an error.
func TestSlimLadderEnd(t *testing.T) {
	m := loadMIM(t, "TimerHowLong")
	s, _ := testSlimmer(1)

	sel, err := s.Slim(m, NoMatchConfig(DialogState{NoMatch: 3, NoInput: 1}), PromptData{})
	require.NoError(t, err)
	assert.Nil(t, sel.SLIM)
	assert.Nil(t, sel.Prompt)
	assert.Equal(t, DialogState{NoMatch: 3, NoInput: 1, NoMatchMax: true}, sel.State)

	sel, err = s.Slim(m, NoInputConfig(DialogState{NoInput: 3}), PromptData{})
	require.NoError(t, err)
	assert.Nil(t, sel.SLIM)
	assert.Equal(t, DialogState{NoInput: 3, NoInputMax: true}, sel.State)

	_, err = s.Slim(m, Config{Category: EntryCore, SubCategory: HoldReturn}, PromptData{})
	assert.ErrorIs(t, err, ErrNoPrompt)
	assert.EqualError(t, err, `MIM "TimerHowLong", Entry-Core/HoldReturn: no eligible prompt`)
}

func TestDialogStateJSON(t *testing.T) {
	b, err := json.Marshal(DialogState{NoMatch: 2, NoInput: 1, NoMatchMax: true})
	require.NoError(t, err)
	assert.JSONEq(t, `{"noMatch":2,"noInput":1,"noMatchMax":true,"noInputMax":false}`, string(b))
}

// TestSequence: several announcements become one SEQUENCE of SLIMs; a
// question in a sequence is refused (§5.2).
func TestSequence(t *testing.T) {
	d := NewPromptData(testRuntime(), testNow, map[string]any{"weather": map[string]any{"summary": "sunny", "high": 20, "low": 10}})
	s, _ := testSlimmer(1)
	seq, sels, err := s.Sequence([]*MIM{loadMIM(t, "Greeting"), loadMIM(t, "WeatherToday")}, d)
	require.NoError(t, err)
	require.Len(t, seq.Children, 2)
	require.Len(t, sels, 2)
	assert.Equal(t, "Greeting_AN_01", sels[0].Prompt.ID)
	assert.Equal(t, "WeatherToday_AN_01", sels[1].Prompt.ID, "December 24th is in the holiday range")
	require.NoError(t, jcp.NewAction(seq).Validate())

	_, _, err = s.Sequence([]*MIM{loadMIM(t, "Greeting"), loadMIM(t, "TimerHowLong")}, d)
	assert.ErrorIs(t, err, ErrNotAnnouncement)
	assert.EqualError(t, err, `MIM "TimerHowLong" is a question: only announcements can be sequenced`)

	_, _, err = s.Sequence(nil, d)
	assert.Error(t, err)
}

func TestEntry(t *testing.T) {
	assert.Equal(t, Config{Category: EntryCore, SubCategory: Q}, Entry(loadMIM(t, "TimerHowLong")))
	assert.Equal(t, Config{Category: EntryCore, SubCategory: Q}, Entry(loadMIM(t, "PlayAgain")))
	assert.Equal(t, Config{Category: EntryCore, SubCategory: AN}, Entry(loadMIM(t, "Greeting")))
	opt := parseMIM(t, `{"mim_type":"optional-response","rule_name":"r","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"Hm."}]}`)
	assert.Equal(t, Config{Category: EntryCore, SubCategory: AN}, Entry(opt))
}

func TestSlimmerDefaults(t *testing.T) {
	var s Slimmer // the zero value works
	m := loadMIM(t, "TimerHowLong")
	sel, err := s.Slim(m, Entry(m), PromptData{})
	require.NoError(t, err)
	assert.Len(t, sel.SLIM.ID, 32, "jcp.NewID ids")
	_ = rand.Float64
}
