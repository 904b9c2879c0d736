package mim

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testdata = os.DirFS("testdata")

// TestParseRoundTrip: every shipped-shape file parses, and its canonical
// JSON holds exactly the members and values of the file (§5.1: unknown
// members such as editor_version kept), and canonical JSON is stable.
func TestParseRoundTrip(t *testing.T) {
	for _, name := range []string{
		"mims/Greeting.mim", "mims/TimerHowLong.mim", "mims/PlayAgain.mim",
		"mims/WeatherToday.mim", "mims/chitchat/Likes_SS_Color.mim", "mims/chitchat/Likes_SS_Animal.mim",
	} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile("testdata/" + name)
			require.NoError(t, err)
			m, err := Parse(src, name)
			require.NoError(t, err)

			out, err := m.MarshalJSON()
			require.NoError(t, err)
			var want, got any
			require.NoError(t, json.Unmarshal(src, &want))
			require.NoError(t, json.Unmarshal(out, &got))
			assert.Equal(t, want, got, "canonical JSON must hold every member of the file")

			again, err := Parse(out, name)
			require.NoError(t, err)
			out2, err := again.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, string(out), string(out2), "canonical JSON is a fixed point")
			assert.NotContains(t, string(out), `\u003c`, "markup is written as is")
		})
	}
}

func TestParseFields(t *testing.T) {
	src, err := os.ReadFile("testdata/mims/TimerHowLong.mim")
	require.NoError(t, err)
	m, err := Parse(src, "mims/TimerHowLong.mim")
	require.NoError(t, err)

	assert.Equal(t, "TimerHowLong", m.Name)
	assert.Equal(t, "TimerHowLong", m.MimID())
	assert.Equal(t, Question, m.Type)
	assert.Equal(t, "openjibo/timer", m.SkillID)
	assert.Equal(t, "timer/duration", m.RuleName)
	assert.Equal(t, 8.0, m.Timeout)
	assert.True(t, m.BargeIn)
	require.NotNil(t, m.ESAutoTagging)
	assert.True(t, *m.ESAutoTagging)
	assert.True(t, m.HasGUI())
	assert.Equal(t, 2, *m.NoMatchesForGUI)
	assert.Equal(t, 2, *m.NoInputsForGUI)
	assert.Equal(t, 1, *m.NumTriesForGUI)
	assert.Equal(t, 3, *m.MaxTries)
	assert.False(t, *m.ParseYesNo)
	assert.Equal(t, "ignore", m.ThanksHandling)
	assert.JSONEq(t, `["minutes","seconds","hours"]`, string(m.HintPhrases))
	assert.JSONEq(t, `"five minutes,ten seconds,an hour"`, string(m.SampleUtterances))
	assert.JSONEq(t, `3`, string(m.Extra["editor_version"]))

	require.Len(t, m.Prompts, 6)
	p := m.Prompts[1]
	assert.Equal(t, EntryCore, p.Category)
	assert.Equal(t, Q, p.SubCategory)
	assert.Equal(t, 1, p.Index)
	assert.Equal(t, "speaker !== null", p.Condition)
	assert.Equal(t, "TimerHowLong_QN_02", p.ID)
	assert.Equal(t, MediaTTS, p.Media)
	assert.JSONEq(t, `false`, string(p.AutoRuleOverride))
	assert.Equal(t, 1.0, p.EffectiveWeight())
	assert.Equal(t, 2.0, m.Prompts[0].EffectiveWeight())
}

func TestParseDefaults(t *testing.T) {
	m, err := Parse([]byte(`{"mim_type":"announcement","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"Hi."}]}`), "dir/Hi.mim")
	require.NoError(t, err)
	assert.Equal(t, "Hi", m.MimID(), "mim_id defaults to the file's base name")
	assert.Equal(t, 1.0, m.Prompts[0].EffectiveWeight(), "weight defaults to 1")
	assert.Nil(t, m.ESAutoTagging)
	assert.False(t, m.HasGUI())

	out, err := m.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"mim_type":"announcement","rule_name":"","notes":"","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"Hi."}]}`, string(out),
		"nothing is invented but the members every MIM has")
}

func TestParseKeepsNulls(t *testing.T) {
	src := `{"mim_type":"announcement","rule_name":"","notes":"","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","prompt":"Hi.","auto_rule_override":null,"extra":{"k":1}}],"gui":null,"max_tries":null,"skill_id":null}`
	m, err := Parse([]byte(src), "Hi.mim")
	require.NoError(t, err)
	assert.Nil(t, m.MaxTries)
	assert.Equal(t, "", m.SkillID)
	out, err := m.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, src, string(out))
}

// mimWith returns a valid question MIM as JSON with one member of the
// top level or of the first prompt replaced (a nil value deletes it).
func mimWith(top map[string]any, prompt map[string]any) []byte {
	p := map[string]any{
		"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "index": 1,
		"condition": "", "prompt": "Ready?", "media": "TTS", "prompt_id": "T_QN_01", "weight": 1,
	}
	for k, v := range prompt {
		if v == nil {
			delete(p, k)
		} else {
			p[k] = v
		}
	}
	m := map[string]any{
		"mim_type": "question", "rule_name": "test/yes_no", "timeout": 6, "barge_in": true,
		"es_auto_tagging": true, "notes": "", "prompts": []any{p}, "gui": nil,
	}
	for k, v := range top {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("a", MaxPromptBytes+1)
	tests := []struct {
		name   string
		data   []byte
		want   string // the whole error message
		prompt int
		field  string
		column int
		is     error
	}{
		{"not JSON", []byte(`{"mim_type":`), `T.mim: member "mim_type": not JSON: unexpected EOF`, -1, "", 0, ErrInvalid},
		{"not an object", []byte(`[1]`), "T.mim: want a JSON object, got an array", -1, "", 0, ErrInvalid},
		{"duplicate member", []byte(`{"mim_type":"question","mim_type":"announcement"}`), `T.mim: mim_type: member given twice ("mim_type")`, -1, "mim_type", 0, ErrInvalid},
		// Anywhere, verbatim members included (issue 22 item 9).
		{"duplicate in gui", []byte(`{"mim_type":"announcement","gui":{"type":"Menu","type":"Javascript"},"prompts":[]}`), `T.mim: gui.type: member given twice ("type")`, -1, "gui.type", 0, ErrInvalid},
		{"duplicate in a prompt", []byte(`{"mim_type":"announcement","prompts":[{"prompt":"Hi.","prompt":"Bye."}]}`), `T.mim: prompts[0].prompt: member given twice ("prompt")`, -1, "prompts[0].prompt", 0, ErrInvalid},
		// Spoken text refuses control characters (issue 22 item 10).
		{"prompt with BEL", mimWith(nil, map[string]any{"prompt": "Ready?\a"}), "T.mim: prompts[0].prompt: ESML: offset 6: control character U+0007 (BEL)", 0, "prompt", 0, ErrInvalid},
		{"prompt with a bidi override", mimWith(nil, map[string]any{"prompt": "\u202eReady?"}), "T.mim: prompts[0].prompt: ESML: offset 0: control character U+202E (RLO)", 0, "prompt", 0, ErrInvalid},
		{"half a surrogate pair", []byte(`{"mim_type":"announcement","prompts":[{"prompt":"Hi \ud83e"}]}`), "", -1, "prompts[0].prompt", 0, ErrInvalid},
		{"trailing data", []byte(`{} {}`), "T.mim: data after the JSON object", -1, "", 0, ErrInvalid},
		{"invalid UTF-8", []byte("{\"notes\":\"\xff\"}"), "T.mim: not valid UTF-8", -1, "", 0, ErrInvalid},
		{"too big", append([]byte(`{"notes":"`), make([]byte, MaxFileBytes)...), "T.mim: file is 262154 bytes, limit 262144", -1, "", 0, ErrLimit},
		{"mim_type missing", mimWith(map[string]any{"mim_type": nil}, nil), "T.mim: mim_type: missing", -1, "mim_type", 0, ErrInvalid},
		{"mim_type unknown", mimWith(map[string]any{"mim_type": "statement"}, nil), `T.mim: mim_type: "statement" is not one of announcement, question, optional-response`, -1, "mim_type", 0, ErrInvalid},
		{"mim_type not a string", mimWith(map[string]any{"mim_type": 3}, nil), "T.mim: mim_type: want a string", -1, "mim_type", 0, ErrInvalid},
		{"question without rule", mimWith(map[string]any{"rule_name": ""}, nil), "T.mim: rule_name: a question needs the NLU rule to listen with", -1, "rule_name", 0, ErrInvalid},
		{"optional-response without rule", mimWith(map[string]any{"mim_type": "optional-response", "rule_name": nil}, nil), "T.mim: rule_name: a optional-response needs the NLU rule to listen with", -1, "rule_name", 0, ErrInvalid},
		{"timeout negative", mimWith(map[string]any{"timeout": -1}, nil), "T.mim: timeout: -1 is outside 0..3600 seconds", -1, "timeout", 0, ErrInvalid},
		{"barge_in not bool", mimWith(map[string]any{"barge_in": "yes"}, nil), "T.mim: barge_in: want true or false", -1, "barge_in", 0, ErrInvalid},
		{"gui threshold fractional", mimWith(map[string]any{"no_matches_for_gui": 1.5}, nil), "T.mim: no_matches_for_gui: 1.5 is not a whole number", -1, "no_matches_for_gui", 0, ErrInvalid},
		{"gui not an object", mimWith(map[string]any{"gui": "Menu"}, nil), "T.mim: gui: want a JSON object, got a string", -1, "gui", 0, ErrInvalid},
		{"gui type unknown", mimWith(map[string]any{"gui": map[string]any{"type": "Popup"}}, nil), `T.mim: gui.type: "Popup" is not one of Menu, Javascript, File`, -1, "gui.type", 0, ErrInvalid},
		{"gui menu without data", mimWith(map[string]any{"gui": map[string]any{"type": "Menu"}}, nil), "T.mim: gui.data: a Menu needs data {title, buttons}", -1, "gui.data", 0, ErrInvalid},
		{"gui button without label", mimWith(map[string]any{"gui": map[string]any{"type": "Menu", "data": map[string]any{"buttons": []any{map[string]any{"label": "a"}, map[string]any{"color": "red"}}}}}, nil), "T.mim: gui.data.buttons[1].label: missing", -1, "gui.data.buttons[1].label", 0, ErrInvalid},
		{"prompts missing", mimWith(map[string]any{"prompts": nil}, nil), "T.mim: prompts: missing", -1, "prompts", 0, ErrInvalid},
		{"prompts empty", mimWith(map[string]any{"prompts": []any{}}, nil), "T.mim: prompts: must not be empty", -1, "prompts", 0, ErrInvalid},
		{"prompt not an object", mimWith(map[string]any{"prompts": []any{"hi"}}, nil), "T.mim: prompts[0]: want a JSON object, got a string", 0, "", 0, ErrInvalid},
		{"category unknown", mimWith(nil, map[string]any{"prompt_category": "Entry"}), `T.mim: prompts[0].prompt_category: "Entry" is not one of Entry-Core, Errors, Response`, 0, "prompt_category", 0, ErrInvalid},
		{"category missing", mimWith(nil, map[string]any{"prompt_category": nil}), "T.mim: prompts[0].prompt_category: missing", 0, "prompt_category", 0, ErrInvalid},
		{"sub-category unknown", mimWith(nil, map[string]any{"prompt_sub_category": "QN"}), `T.mim: prompts[0].prompt_sub_category: "QN" is not one of AN, Q, NM, NI, HoldReturn, Verbose, Truncated, Thanks`, 0, "prompt_sub_category", 0, ErrInvalid},
		{"index negative", mimWith(nil, map[string]any{"index": -1}), "T.mim: prompts[0].index: -1 is negative", 0, "index", 0, ErrInvalid},
		{"weight zero", mimWith(nil, map[string]any{"weight": 0}), "T.mim: prompts[0].weight: 0 is not above 0", 0, "weight", 0, ErrInvalid},
		{"weight negative", mimWith(nil, map[string]any{"weight": -2}), "T.mim: prompts[0].weight: -2 is not above 0", 0, "weight", 0, ErrInvalid},
		{"media unknown", mimWith(nil, map[string]any{"media": "Audio"}), `T.mim: prompts[0].media: "Audio" is not TTS, the only medium`, 0, "media", 0, ErrInvalid},
		{"prompt empty", mimWith(nil, map[string]any{"prompt": " "}), "T.mim: prompts[0].prompt: missing", 0, "prompt", 0, ErrInvalid},
		{"prompt too long", mimWith(nil, map[string]any{"prompt": long}), "T.mim: prompts[0].prompt: is 8193 bytes, limit 8192", 0, "prompt", 0, ErrLimit},
		{"auto rule unknown class", mimWith(nil, map[string]any{"auto_rule_override": map[string]any{"gesture": true}}), "T.mim: prompts[0].auto_rule_override.gesture: unknown rule class (want hotWords, punctuation, voice or beat)", 0, "auto_rule_override.gesture", 0, ErrInvalid},
		{"condition syntax", mimWith(nil, map[string]any{"condition": "loop.count >"}), "T.mim: prompts[0].condition: column 13: unexpected end of expression", 0, "condition", 13, ErrInvalid},
		{"condition unknown name", mimWith(nil, map[string]any{"condition": "jbo.emotion == 'SAD'"}), "T.mim: prompts[0].condition: column 1: unknown name jbo", 0, "condition", 1, ErrInvalid},
		{"condition bad date", mimWith(nil, map[string]any{"condition": "dt.now.isInRange('11/1', '2/30')"}), `T.mim: prompts[0].condition: column 26: date "2/30": day 30 is outside 1..29`, 0, "condition", 26, ErrInvalid},
		{"condition unterminated string", mimWith(nil, map[string]any{"condition": `speaker == "Ann`}), "T.mim: prompts[0].condition: column 12: unterminated string literal", 0, "condition", 12, ErrInvalid},
		{"condition now() disabled", mimWith(nil, map[string]any{"condition": "now().Hour() > 12"}), "T.mim: prompts[0].condition: column 1: unknown name now", 0, "condition", 1, ErrInvalid},
		{"template syntax", mimWith(nil, map[string]any{"prompt": "Hi ${speaker +}!"}), "T.mim: prompts[0].prompt: column 15: unexpected end of expression", 0, "prompt", 15, ErrInvalid},
		{"template unclosed", mimWith(nil, map[string]any{"prompt": "Hi ${speaker!"}), "T.mim: prompts[0].prompt: column 4: template ${ is never closed", 0, "prompt", 4, ErrInvalid},
		{"template empty", mimWith(nil, map[string]any{"prompt": "Hi ${ }!"}), "T.mim: prompts[0].prompt: column 4: empty template ${}", 0, "prompt", 4, ErrInvalid},
		{"bad markup", mimWith(nil, map[string]any{"prompt": "Hi <break size='1'>${speaker}"}), "", 0, "prompt", 0, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.data, "T.mim")
			require.Error(t, err)
			assert.Nil(t, m, "nothing half-parsed is returned")
			assert.ErrorIs(t, err, tt.is)
			if tt.want != "" {
				assert.Equal(t, tt.want, err.Error())
			}
			var e *Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, "T.mim", e.File)
			assert.Equal(t, tt.prompt, e.Prompt)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.column, e.Column)
		})
	}
}

func TestValidateGoBuilt(t *testing.T) {
	m := &MIM{Name: "Built", Type: Announcement, Prompts: []Prompt{{Category: EntryCore, SubCategory: AN, Text: "Hello ${speaker || 'you'}."}}}
	var s Slimmer
	_, err := s.Slim(m, Entry(m), PromptData{})
	require.ErrorContains(t, err, `MIM "Built" was not validated`)
	require.NoError(t, m.Validate())
	sel, err := s.Slim(m, Entry(m), PromptData{})
	require.NoError(t, err)
	assert.Equal(t, "Hello you.", sel.ESML)

	bad := &MIM{Name: "Bad", Type: Question, Prompts: m.Prompts}
	assert.EqualError(t, bad.Validate(), "Bad: rule_name: a question needs the NLU rule to listen with")
}

func TestLoadDir(t *testing.T) {
	set, err := LoadDir(testdata, "mims")
	require.NoError(t, err)
	assert.Equal(t, []string{"Greeting", "Likes_SS_Animal", "Likes_SS_Color", "PlayAgain", "TimerHowLong", "WeatherToday"}, set.IDs())
	assert.Equal(t, 6, set.Len())
	m, err := set.Get("TimerHowLong")
	require.NoError(t, err)
	assert.Equal(t, Question, m.Type)
	_, err = set.Get("Nope")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.EqualError(t, err, `MIM "Nope": MIM not found`)
}

func TestLoadDirErrors(t *testing.T) {
	good := string(mimWith(nil, nil))
	t.Run("duplicate id", func(t *testing.T) {
		fsys := fstest.MapFS{
			"m/A.mim":     {Data: []byte(good)},
			"m/sub/A.mim": {Data: []byte(good)},
		}
		_, err := LoadDir(fsys, "m")
		assert.ErrorIs(t, err, ErrDuplicate)
		assert.EqualError(t, err, `MIM id "A" of m/A is also the id of m/A: duplicate MIM id`)
	})
	t.Run("mim_id clash", func(t *testing.T) {
		fsys := fstest.MapFS{
			"m/A.mim": {Data: []byte(good)},
			"m/B.mim": {Data: mimWith(map[string]any{"mim_id": "A"}, nil)},
		}
		_, err := LoadDir(fsys, "m")
		assert.ErrorIs(t, err, ErrDuplicate)
	})
	t.Run("every bad file is named", func(t *testing.T) {
		fsys := fstest.MapFS{
			"m/A.mim":     {Data: []byte(good)},
			"m/B.mim":     {Data: []byte(`{`)},
			"m/C.mim":     {Data: mimWith(nil, map[string]any{"weight": 0})},
			"m/notes.txt": {Data: []byte(`not a MIM`)},
		}
		set, err := LoadDir(fsys, "m")
		assert.Nil(t, set, "nothing is half-loaded")
		assert.EqualError(t, err, "m/B.mim: not JSON: unexpected EOF\nm/C.mim: prompts[0].weight: 0 is not above 0")
	})
	t.Run("too many errors", func(t *testing.T) {
		fsys := fstest.MapFS{}
		for i := range MaxLoadErrors + 3 {
			fsys["m/"+strings.Repeat("x", i+1)+".mim"] = &fstest.MapFile{Data: []byte(`[]`)}
		}
		_, err := LoadDir(fsys, "m")
		assert.ErrorContains(t, err, "and 3 more files with errors")
	})
	t.Run("missing dir", func(t *testing.T) {
		_, err := LoadDir(fstest.MapFS{}, "m")
		assert.ErrorContains(t, err, "listing MIMs in m")
	})
	t.Run("file over the limit", func(t *testing.T) {
		fsys := fstest.MapFS{"big.mim": {Data: make([]byte, MaxFileBytes+10)}}
		_, err := Load(fsys, "big.mim")
		assert.ErrorIs(t, err, ErrLimit)
		assert.EqualError(t, err, "big.mim: file is over 262144 bytes")
	})
}

func TestNewSet(t *testing.T) {
	a, err := Parse(mimWith(nil, nil), "A.mim")
	require.NoError(t, err)
	b, err := Parse(mimWith(nil, nil), "B.mim")
	require.NoError(t, err)
	set, err := NewSet(a, b)
	require.NoError(t, err)
	assert.Equal(t, []string{"A", "B"}, set.IDs())
	_, err = NewSet(a, a)
	assert.ErrorIs(t, err, ErrDuplicate)
}
