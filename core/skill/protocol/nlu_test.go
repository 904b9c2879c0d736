package protocol

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jibo.md §1.6: intent or entities ⇒ match; else no/empty ASR text ⇒
// noInput; else noMatch. entities:null counts as empty.
func TestClassifyListen(t *testing.T) {
	intent := "yes"
	empty := ""
	tests := []struct {
		name string
		nlu  *NLUResult
		asr  *ASRResult
		want ListenState
	}{
		{name: "intent", nlu: &NLUResult{Intent: &intent}, asr: &ASRResult{Text: "yes"}, want: ListenMatch},
		{name: "intent without asr", nlu: &NLUResult{Intent: &intent}, want: ListenMatch},
		{name: "entities only", nlu: &NLUResult{Entities: map[string]any{"color": "green"}}, asr: &ASRResult{Text: "green"}, want: ListenMatch},
		{name: "entities without text", nlu: &NLUResult{Entities: map[string]any{"n": 1}}, asr: &ASRResult{}, want: ListenMatch},
		{name: "empty intent is no intent", nlu: &NLUResult{Intent: &empty, Entities: map[string]any{}}, asr: &ASRResult{Text: "hmm"}, want: ListenNoMatch},
		{name: "null intent and entities with text", nlu: &NLUResult{}, asr: &ASRResult{Text: "blah"}, want: ListenNoMatch},
		{name: "no nlu with text", asr: &ASRResult{Text: "blah"}, want: ListenNoMatch},
		{name: "empty text", nlu: &NLUResult{}, asr: &ASRResult{Text: "", Annotation: AnnotationSOSTimeout}, want: ListenNoInput},
		{name: "no asr", nlu: &NLUResult{}, want: ListenNoInput},
		{name: "nothing at all", want: ListenNoInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ClassifyListen(tt.nlu, tt.asr))
		})
	}
}

// Classification works on what arrives on the wire, nulls included.
func TestClassifyDecoded(t *testing.T) {
	r, err := DecodeRequest(readExample(t, "listen_update"))
	require.NoError(t, err)
	assert.Equal(t, ListenNoMatch, ClassifyListen(r.Data.Result.NLU, r.Data.Result.ASR), "intent null, entities {} and text heard")

	r, err = DecodeRequest(readExample(t, "listen_launch"))
	require.NoError(t, err)
	assert.Equal(t, ListenMatch, ClassifyListen(r.Data.Result.NLU, r.Data.Result.ASR))
}

func TestNLUFromSlots(t *testing.T) {
	tests := []struct {
		name   string
		intent string
		slots  map[string]string
		rules  []string
		want   string
	}{
		{name: "intent with slots", intent: "setTimer", slots: map[string]string{"minutes": "five", "label": "tea"}, rules: []string{"launch"},
			want: `{"intent":"setTimer","entities":{"label":"tea","minutes":"five"},"rules":["launch"]}`},
		{name: "no slots", intent: "stop", want: `{"intent":"stop","entities":{},"rules":[]}`},
		{name: "no intent", slots: map[string]string{"color": "red"}, rules: []string{"a", "b"},
			want: `{"intent":null,"entities":{"color":"red"},"rules":["a","b"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NLUFromSlots(tt.intent, tt.slots, tt.rules)
			assert.Equal(t, tt.want, string(mustJSON(t, n)))
			assert.Equal(t, tt.intent, n.IntentName())
		})
	}

	slots := map[string]string{"a": "1"}
	rules := []string{"r"}
	n := NLUFromSlots("x", slots, rules)
	slots["a"], rules[0] = "changed", "changed"
	assert.Equal(t, map[string]any{"a": "1"}, n.Entities, "slots are copied")
	assert.Equal(t, []string{"r"}, n.Rules, "rules are copied")
}

// Entity numbers keep their exact text through a decode/encode cycle.
func TestEntityNumbersExact(t *testing.T) {
	in := `{"intent":"count","entities":{"big":9007199254740993,"f":2.50,"e":1e3},"rules":[]}`
	var n NLUResult
	require.NoError(t, json.Unmarshal([]byte(in), &n))
	assert.Equal(t, json.Number("9007199254740993"), n.Entities["big"])
	assert.Equal(t, `{"intent":"count","entities":{"big":9007199254740993,"e":1e3,"f":2.50},"rules":[]}`, string(mustJSON(t, n)))
}
