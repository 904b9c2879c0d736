package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The example manifest decodes, validates and re-encodes with every member,
// including ones the typings do not have (description) and the settings
// view kept verbatim; JSON→CBOR→JSON keeps it too.
func TestManifestRoundTrip(t *testing.T) {
	in := readShared(t, "manifest/timer.json")
	m, err := DecodeManifest(in)
	require.NoError(t, err)
	out, err := EncodeJSON(m)
	require.NoError(t, err)
	require.Equal(t, canon(t, in), canon(t, out))

	assert.Equal(t, "openjibo/timer", m.ID)
	require.Len(t, m.Intents, 4)
	assert.Equal(t, json.Number("5"), m.Intents[1].Entities[0].Value)
	assert.Equal(t, true, m.Intents[3].Entities[0].Value)
	require.Len(t, m.Proactives, 1)
	assert.Equal(t, "lastTimerLaunch", m.Proactives[0].IHRules[0].QueryID)
	require.NotNil(t, m.Proactives[0].IHRules[1].Query)
	assert.Equal(t, "Count", m.Proactives[0].IHRules[1].Query.Type)
	assert.Contains(t, m.IHQueries, "lastTimerLaunch")

	c, err := EncodeCBOR(m)
	require.NoError(t, err)
	back, err := DecodeCBOR(c)
	require.NoError(t, err)
	m2, err := DecodeManifest(back)
	require.NoError(t, err)
	assert.Equal(t, canon(t, out), canon(t, mustJSON(t, m2)))
}

func TestDecodeManifestErrors(t *testing.T) {
	in := readShared(t, "manifest/timer.json")
	long := `"` + strings.Repeat("x", MaxStringLen+1) + `"`
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "not an object", in: []byte(`[]`), want: "want object"},
		{name: "id missing", in: edit(t, in, "id", remove), want: "id: required"},
		{name: "id not string", in: edit(t, in, "id", `7`), want: "id: want string"},
		{name: "id too long", in: edit(t, in, "id", long), want: "id: 16385 bytes, limit 16384"},
		{name: "intents missing", in: edit(t, in, "intents", remove), want: "intents: required"},
		{name: "intents not array", in: edit(t, in, "intents", `{}`), want: "intents: want array"},
		{name: "intent without name", in: edit(t, in, "intents[2].name", `""`), want: "intents[2].name: required"},
		{name: "same intent, same conditions", in: edit(t, in, "intents[1].entities", remove),
			want: `intents[1]: repeats intents[0] (intent "setTimer" with the same entity conditions)`},
		{name: "entity value object", in: edit(t, in, "intents[1].entities[0].value", `{"n":5}`), want: "intents[1].entities[0].value: want string, number or boolean"},
		{name: "entity value missing", in: edit(t, in, "intents[1].entities[0].value", remove), want: "intents[1].entities[0].value: required"},
		{name: "entity match rule unknown", in: edit(t, in, "intents[2].entities[0].matchRule", `"LIKE"`), want: `intents[2].entities[0].matchRule: "LIKE" is not one of "EXACT", "NOT"`},
		{name: "entity match rule missing", in: edit(t, in, "intents[2].entities[0].matchRule", remove), want: "intents[2].entities[0].matchRule: required"},
		{name: "onRobot not boolean", in: edit(t, in, "onRobot", `"yes"`), want: "onRobot: want boolean"},
		{name: "settings not object", in: edit(t, in, "settings", `[]`), want: "settings: want object or null"},
		{name: "topics missing", in: edit(t, in, "proactives[0].topics", remove), want: "proactives[0].topics: required"},
		{name: "context rules missing", in: edit(t, in, "proactives[0].contextRules", remove), want: "proactives[0].contextRules: required"},
		{name: "context rule without field", in: edit(t, in, "proactives[0].contextRules[1].field", `""`), want: "proactives[0].contextRules[1].field: required"},
		{name: "context rule without value", in: edit(t, in, "proactives[0].contextRules[1].value", remove), want: "proactives[0].contextRules[1].value: required"},
		{name: "context match rule unknown", in: edit(t, in, "proactives[0].contextRules[0].matchRule", `"ABOUT"`),
			want: `proactives[0].contextRules[0].matchRule: "ABOUT" is not one of "EXACT", "NOT", "CONTAINS_ALL", "CONTAINS_ANY", "NOT_CONTAIN", "GREATER_THAN", "LESS_THAN", "CONTAINED_IN"`},
		{name: "IH rule query undefined", in: edit(t, in, "proactives[0].IHRules[0].query", `"nope"`), want: `proactives[0].IHRules[0].query: no query "nope" in IHQueries`},
		{name: "IH rule query number", in: edit(t, in, "proactives[0].IHRules[0].query", `3`), want: "proactives[0].IHRules[0].query: want a query name (string) or definition (object)"},
		{name: "IH rule query missing", in: edit(t, in, "proactives[0].IHRules[0].query", remove), want: "proactives[0].IHRules[0].query: required"},
		{name: "IH rule transform unknown", in: edit(t, in, "proactives[0].IHRules[0].transform", `"Age"`), want: `proactives[0].IHRules[0].transform: "Age" is not one of "TimeSince"`},
		{name: "IH rule match rule not for history", in: edit(t, in, "proactives[0].IHRules[0].matchRule", `"CONTAINS_ANY"`),
			want: `proactives[0].IHRules[0].matchRule: "CONTAINS_ANY" is not one of "EXACT", "NOT", "GREATER_THAN", "LESS_THAN"`},
		{name: "IH rule period unit unknown", in: edit(t, in, "proactives[0].IHRules[0].value", `[2, "fortnights"]`),
			want: `proactives[0].IHRules[0].value[1]: "fortnights" is not one of "msec", "sec", "min", "minute", "minutes", "hour", "hours", "day", "days"`},
		{name: "IH rule period too long", in: edit(t, in, "proactives[0].IHRules[0].value", `[2, "hours", 1]`), want: "proactives[0].IHRules[0].value: want a time period [n, unit]"},
		{name: "IH rule period count not number", in: edit(t, in, "proactives[0].IHRules[0].value", `["2", "hours"]`), want: "proactives[0].IHRules[0].value[0]: want number"},
		{name: "IH rule value object", in: edit(t, in, "proactives[0].IHRules[1].value", `{}`), want: "proactives[0].IHRules[1].value: want a time period [n, unit], a number, a string or null"},
		{name: "inline query type unknown", in: edit(t, in, "proactives[0].IHRules[1].query.type", `"Sum"`), want: `proactives[0].IHRules[1].query.type: "Sum" is not one of "LastEvent", "Count"`},
		{name: "query rules not array", in: edit(t, in, "IHQueries.lastTimerLaunch.queryRules", `{}`), want: "IHQueries.lastTimerLaunch.queryRules: want array"},
		{name: "query rules missing", in: edit(t, in, "IHQueries.lastTimerLaunch.queryRules", remove), want: "IHQueries.lastTimerLaunch.queryRules: required"},
		{name: "query offset unknown", in: edit(t, in, "IHQueries.lastTimerLaunch.startTimeOffset", `"SinceBirth"`), want: `IHQueries.lastTimerLaunch.startTimeOffset: "SinceBirth" is not one of "SinceWaking"`},
		{name: "query personIDs unknown", in: edit(t, in, "IHQueries.lastTimerLaunch.personIDs", `"Everyone"`), want: `IHQueries.lastTimerLaunch.personIDs: "Everyone" is not one of "PresentPeople"`},
		{name: "settings rule without key", in: edit(t, in, "proactives[0].settingsRules[0].key", remove), want: "proactives[0].settingsRules[0].key: required"},
		{name: "settings match rule unknown", in: edit(t, in, "proactives[0].settingsRules[0].matchRule", `"GREATER_THAN"`), want: `proactives[0].settingsRules[0].matchRule: "GREATER_THAN" is not one of "EXACT", "NOT"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeManifest(tt.in)
			require.EqualError(t, err, "decode skill manifest: "+tt.want)
			assert.Nil(t, m, "nothing half-decoded is returned")
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
		})
	}
}

func TestManifestLimits(t *testing.T) {
	tests := []struct {
		name string
		m    ManifestSkillConfig
		want string
	}{
		{name: "too many intents", m: ManifestSkillConfig{ID: "s", Intents: manyIntents(MaxManifestIntents + 1)}, want: "intents: 1025 intents, limit 1024"},
		{name: "too many entity conditions", m: ManifestSkillConfig{ID: "s", Intents: []ManifestIntent{{Name: "a", Entities: make([]EntityConfig, MaxIntentEntities+1)}}},
			want: "intents[0].entities: 65 conditions, limit 64"},
		{name: "too many proactives", m: ManifestSkillConfig{ID: "s", Intents: []ManifestIntent{}, Proactives: make([]ProactiveRegistration, MaxProactives+1)},
			want: "proactives: 257 registrations, limit 256"},
		{name: "too many topics", m: ManifestSkillConfig{ID: "s", Intents: []ManifestIntent{}, Proactives: []ProactiveRegistration{{Topics: make([]string, MaxProactiveRules+1), ContextRules: []ContextRule{}}}},
			want: "proactives[0].topics: 65 entries, limit 64"},
		{name: "too many context rules", m: ManifestSkillConfig{ID: "s", Intents: []ManifestIntent{}, Proactives: []ProactiveRegistration{{Topics: []string{}, ContextRules: make([]ContextRule, MaxProactiveRules+1)}}},
			want: "proactives[0].contextRules: 65 rules, limit 64"},
		{name: "too many queries", m: ManifestSkillConfig{ID: "s", Intents: []ManifestIntent{}, IHQueries: manyQueries(MaxIHQueries + 1)},
			want: "IHQueries: 257 queries, limit 256"},
		{name: "entity value of a Go type JSON has no scalar for", m: ManifestSkillConfig{ID: "s", Intents: []ManifestIntent{{Name: "a",
			Entities: []EntityConfig{{Name: "e", Value: []string{"x"}, MatchRule: EntityMatchExact}}}}},
			want: "intents[0].entities[0].value: want string, number or boolean, got []string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.EqualError(t, tt.m.Validate(), tt.want)
		})
	}
}

func manyIntents(n int) []ManifestIntent {
	out := make([]ManifestIntent, n)
	for i := range out {
		out[i].Name = "intent" + itoa(i)
	}
	return out
}

func manyQueries(n int) map[string]IHQueryDefinition {
	m := map[string]IHQueryDefinition{}
	for i := range n {
		m["q"+itoa(i)] = IHQueryDefinition{Type: "Count", QueryRules: json.RawMessage(`[]`)}
	}
	return m
}

// A manifest built in Go encodes the members the hub reads, and an empty
// intents list (a proactive-only skill) is valid.
func TestManifestBuilt(t *testing.T) {
	onRobot := true
	m := ManifestSkillConfig{
		ID:      "openjibo/greetings",
		Intents: []ManifestIntent{},
		Proactives: []ProactiveRegistration{{
			Topics:       []string{"greeting"},
			ContextRules: []ContextRule{{Field: ContextTriggerSource, MatchRule: "EXACT", Value: json.RawMessage(`"NEW_ARRIVAL"`)}},
		}},
		OnRobot: &onRobot,
	}
	require.NoError(t, m.Validate())
	b, err := EncodeJSON(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"openjibo/greetings","intents":[],"proactives":[{"topics":["greeting"],
		"contextRules":[{"field":"TRIGGER_SOURCE","matchRule":"EXACT","value":"NEW_ARRIVAL"}]}],"onRobot":true}`, string(b))
}
