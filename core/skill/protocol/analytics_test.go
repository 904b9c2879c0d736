package protocol

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jibo.md §2.4: the wire event names are "Skill Entry" and "Skill Offer".
func TestAnalyticsFromExample(t *testing.T) {
	r, err := DecodeResponse(readExample(t, "skill_action"))
	require.NoError(t, err)
	events := r.Action.Analytics["@be/weather"]
	require.Len(t, events, 2)

	entry, err := events[0].SkillEntry()
	require.NoError(t, err)
	assert.Equal(t, SkillEntryProperties{InitialIntent: "n/a", Domain: "", WasHeyJiboLaunch: true, UserInitiated: true, LastSkill: "n/a"}, entry)

	offer, err := events[1].SkillOffer()
	require.NoError(t, err)
	assert.Equal(t, SkillOfferProperties{UserResponse: "yes", Modality: ModalitySpeech}, offer)
	assert.Equal(t, map[string]json.RawMessage{"sampled": json.RawMessage(`true`)}, events[1].Extra)

	_, err = events[0].SkillOffer()
	require.EqualError(t, err, `decode "Skill Offer" properties: event is "Skill Entry"`)
	_, err = events[1].SkillEntry()
	require.EqualError(t, err, `decode "Skill Entry" properties: event is "Skill Offer"`)
}

// The robot rewrites last_skill and initial_intent before forwarding; the
// rewrite keeps every other property, known or not.
func TestSkillEntryRewrite(t *testing.T) {
	ev := AnalyticsEvent{Event: EventSkillEntry, Properties: json.RawMessage(
		`{"initial_intent":"n/a","domain":"weather","was_hey_jibo_launch":true,"user_initiated":false,"last_skill":"","experiment":"b"}`)}
	p, err := ev.SkillEntry()
	require.NoError(t, err)
	p.LastSkill, p.InitialIntent = "clock", "askForecast"
	ev, err = p.Event()
	require.NoError(t, err)
	assert.Equal(t, EventSkillEntry, ev.Event)
	assert.JSONEq(t, `{"initial_intent":"askForecast","domain":"weather","was_hey_jibo_launch":true,"user_initiated":false,"last_skill":"clock","experiment":"b"}`, string(ev.Properties))
}

func TestAnalyticsBuild(t *testing.T) {
	entry, err := SkillEntryProperties{InitialIntent: "n/a", WasHeyJiboLaunch: true, UserInitiated: true, LastSkill: "n/a"}.Event()
	require.NoError(t, err)
	offer, err := SkillOfferProperties{UserResponse: "no", Modality: ModalityTouch}.Event()
	require.NoError(t, err)
	resp := NewSkillAction(nil, Skill("trivia"), nil, true)
	resp.Action.Analytics = Analytics{"trivia": {entry, offer}, "empty": nil}
	require.NoError(t, resp.Validate())

	var env Envelope
	require.NoError(t, json.Unmarshal(mustJSON(t, resp), &env))
	assert.JSONEq(t, `{"skill":{"id":"trivia"},"action":null,"final":true,"fireAndForget":false,"analytics":{
		"empty":[],
		"trivia":[
			{"event":"Skill Entry","properties":{"initial_intent":"n/a","domain":"","was_hey_jibo_launch":true,"user_initiated":true,"last_skill":"n/a"}},
			{"event":"Skill Offer","properties":{"user_response":"no","modality":"touch"}}]}}`, string(env.Data))
}

func TestAnalyticsPropertyErrors(t *testing.T) {
	tests := []struct {
		name  string
		event AnalyticsEvent
		want  string
	}{
		{name: "entry flag not boolean", event: AnalyticsEvent{Event: EventSkillEntry, Properties: json.RawMessage(`{"user_initiated":"yes"}`)}, want: "properties.user_initiated: want boolean"},
		{name: "entry properties absent", event: AnalyticsEvent{Event: EventSkillEntry}, want: "properties: want object"},
		{name: "offer modality not string", event: AnalyticsEvent{Event: EventSkillOffer, Properties: json.RawMessage(`{"modality":1}`)}, want: "properties.modality: want string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.event.Event == EventSkillEntry {
				_, err = tt.event.SkillEntry()
			} else {
				_, err = tt.event.SkillOffer()
			}
			require.EqualError(t, err, tt.want)
		})
	}
}

func TestAnalyticsPropertiesInvalidJSON(t *testing.T) {
	_, err := AnalyticsEvent{Event: EventSkillOffer, Properties: json.RawMessage(`{"modality":`)}.SkillOffer()
	require.EqualError(t, err, "properties: unexpected end of JSON input")
}
