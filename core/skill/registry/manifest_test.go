package registry

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/jcp"
)

const timerManifest = `{
  "id": "jibo/timer",
  "version": "1.2.0-beta.1+build.7",
  "name": "Timer",
  "description": "Sets kitchen timers and rings when they are done.",
  "permissions": ["speech", "listen", "sound", "proactive", "timers"],
  "timeout": "5s",
  "limits": {"max_action_bytes": 65536, "max_behaviors": 64, "max_speech_chars": 2000, "calls_per_minute": 60},
  "safety_level": "moderate",
  "side_effect_tags": ["timer.schedule"],
  "idempotent_intents": ["time_left"]
}`

func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte(timerManifest))
	require.NoError(t, err)
	assert.Equal(t, &Manifest{
		ID: "jibo/timer", Version: "1.2.0-beta.1+build.7", Name: "Timer",
		Description: "Sets kitchen timers and rings when they are done.",
		// Stored sorted, so two manifests that say the same compare equal.
		Permissions:       []Permission{PermListen, PermProactive, PermSound, PermSpeech, PermTimers},
		Timeout:           5 * time.Second,
		Limits:            Limits{MaxActionBytes: 65536, MaxBehaviors: 64, MaxSpeechChars: 2000, CallsPerMinute: 60},
		SafetyLevel:       SafetyModerate,
		SideEffectTags:    []string{"timer.schedule"},
		IdempotentIntents: []string{"time_left"},
	}, m)
	assert.Equal(t, "jibo.timer", m.BusID())
	assert.True(t, m.Allows(PermListen))
	assert.False(t, m.Allows(PermMotion))
	assert.True(t, m.Idempotent("time_left"))
	assert.False(t, m.Idempotent("set"))
	assert.False(t, m.Idempotent(""))
}

func TestParseManifestDefaults(t *testing.T) {
	m, err := ParseManifest([]byte(`{"id": "jibo/clock", "version": "1.0.0", "name": "Clock",
		"description": "Tells the time.", "safety_level": "low"}`))
	require.NoError(t, err)
	assert.Empty(t, m.Permissions)
	assert.Equal(t, DefaultTimeout, m.Timeout)
	assert.Equal(t, Limits{MaxActionBytes: jcp.MaxActionBytes, MaxBehaviors: jcp.MaxBehaviors,
		MaxSpeechChars: DefaultMaxSpeechChars, CallsPerMinute: DefaultCallsPerMinute}, m.Limits)
}

func TestManifestRoundTrip(t *testing.T) {
	m, err := ParseManifest([]byte(timerManifest))
	require.NoError(t, err)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	back, err := ParseManifest(b)
	require.NoError(t, err)
	assert.Equal(t, m, back)

	var viaUnmarshal Manifest
	require.NoError(t, json.Unmarshal([]byte(timerManifest), &viaUnmarshal))
	assert.Equal(t, m, &viaUnmarshal)
}

// edit replaces one member of timerManifest (or removes it when value is "").
func edit(t *testing.T, member, value string) []byte {
	t.Helper()
	var o map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(timerManifest), &o))
	if value == "" {
		delete(o, member)
	} else {
		o[member] = json.RawMessage(value)
	}
	b, err := json.Marshal(o)
	require.NoError(t, err)
	return b
}

func TestParseManifestErrors(t *testing.T) {
	long := strings.Repeat("x", 65)
	tests := []struct {
		name string
		data []byte
		path string // the member the error must name
		want string
	}{
		{"not an object", []byte(`[]`), "", "is an array, want an object"},
		{"broken JSON", []byte(`{"id": `), "id", "invalid JSON"},
		{"trailing data", []byte(`{"id": "a/b"} {}`), "", "trailing data"},
		{"too big", []byte(`{"description": "` + strings.Repeat("x", MaxManifestBytes) + `"}`), "", "limit"},
		{"unknown member", edit(t, "camera", `true`), "camera", "unknown member"},
		{"duplicate member", []byte(`{"id": "a/b", "id": "c/d"}`), "id", "given twice"},
		{"null", edit(t, "permissions", `null`), "permissions", "is null, want an array"},
		{"missing id", edit(t, "id", ""), "id", "missing"},
		{"id without namespace", edit(t, "id", `"timer"`), "id", "want namespace/name"},
		{"id upper case", edit(t, "id", `"Jibo/timer"`), "id", `namespace "Jibo"`},
		{"id with a dot", edit(t, "id", `"jibo/timer.v2"`), "id", `name "timer.v2"`},
		{"id two slashes", edit(t, "id", `"jibo/timer/x"`), "id", `name "timer/x"`},
		{"id leading dash", edit(t, "id", `"-jibo/timer"`), "id", `namespace "-jibo"`},
		{"id too long", edit(t, "id", `"jibo/`+strings.Repeat("a", MaxNameLen+1)+`"`), "id", "at most 48"},
		{"id a number", edit(t, "id", `7`), "id", "is a number, want a string"},
		{"missing version", edit(t, "version", ""), "version", "missing"},
		{"version two parts", edit(t, "version", `"1.2"`), "version", "MAJOR.MINOR.PATCH"},
		{"version leading zero", edit(t, "version", `"1.02.0"`), "version", "leading zero"},
		{"version v prefix", edit(t, "version", `"v1.2.0"`), "version", "not a number"},
		{"version bad pre-release", edit(t, "version", `"1.2.0-beta..1"`), "version", "pre-release"},
		{"version numeric pre-release leading zero", edit(t, "version", `"1.2.0-01"`), "version", "leading zero"},
		{"missing name", edit(t, "name", ""), "name", "missing"},
		{"name too long", edit(t, "name", `"`+long+`"`), "name", "65 characters, limit 64"},
		{"name control character", edit(t, "name", `"Ti\nmer"`), "name", "control character"},
		// A name is refused, not altered (issue 22 item 10): encoding/json
		// would turn invalid UTF-8 into U+FFFD.
		{"name not UTF-8", []byte("{\"name\": \"Ti\xffmer\"}"), "name", "invalid UTF-8"},
		{"name lone surrogate", []byte(`{"name": "Ti\udc00mer"}`), "name", "invalid UTF-8"},
		{"name right-to-left override", edit(t, "name", `"\u202eremiT"`), "name", "control character U+202E (RLO)"},
		{"name tab", edit(t, "name", `"Ti\tmer"`), "name", "control character"},
		{"duplicate deep in a value", []byte(`{"limits": {"max_behaviors": 1}, "network_hosts": [], "id": "a/b", "version": "1.0.0", "limits": {}}`), "limits", "given twice"},
		{"name padded", edit(t, "name", `" Timer"`), "name", "white space"},
		{"missing description", edit(t, "description", ""), "description", "missing"},
		{"unknown permission", edit(t, "permissions", `["speech", "camera"]`), "permissions[1]", `"camera" is not a permission`},
		{"permission listed twice", edit(t, "permissions", `["speech", "speech"]`), "permissions[1]", "listed twice"},
		{"permission not a string", edit(t, "permissions", `["speech", 3]`), "permissions[1]", "is a number, want a string"},
		{"timeout not a duration", edit(t, "timeout", `"soon"`), "timeout", "not a duration"},
		{"timeout a number", edit(t, "timeout", `5`), "timeout", "is a number, want a string"},
		{"timeout zero", edit(t, "timeout", `"0s"`), "timeout", "zero"},
		{"timeout too short", edit(t, "timeout", `"10ms"`), "timeout", "outside 100ms..1m0s"},
		{"timeout too long", edit(t, "timeout", `"2m"`), "timeout", "outside"},
		{"limits unknown member", edit(t, "limits", `{"max_cpu": 1}`), "limits.max_cpu", "unknown member"},
		{"limits not an object", edit(t, "limits", `[]`), "limits", "want an object"},
		{"limit fraction", edit(t, "limits", `{"max_behaviors": 1.5}`), "limits.max_behaviors", "not a whole number"},
		{"limit negative", edit(t, "limits", `{"max_behaviors": -1}`), "limits.max_behaviors", "not positive"},
		{"limit over", edit(t, "limits", `{"max_behaviors": 1000}`), "limits.max_behaviors", "outside 1..256"},
		{"limit action bytes", edit(t, "limits", `{"max_action_bytes": 10}`), "limits.max_action_bytes", "outside 64..262144"},
		{"limit calls", edit(t, "limits", `{"calls_per_minute": 601}`), "limits.calls_per_minute", "outside 1..600"},
		{"limit speech", edit(t, "limits", `{"max_speech_chars": 100001}`), "limits.max_speech_chars", "outside"},
		{"limit memory", edit(t, "limits", `{"memory_mib": 513}`), "limits.memory_mib", "outside 1..512"},
		{"limit memory zero", edit(t, "limits", `{"memory_mib": 0}`), "limits.memory_mib", "not positive"},
		{"network without hosts", edit(t, "permissions", `["speech", "network"]`), "network_hosts", `missing: the "network" permission needs`},
		{"hosts without network", edit(t, "network_hosts", `["api.example.com"]`), "network_hosts", `given without the "network" permission`},
		{"limit duplicate", []byte(`{"limits": {"max_behaviors": 1, "max_behaviors": 2}}`), "limits.max_behaviors", "given twice"},
		{"missing safety level", edit(t, "safety_level", ""), "safety_level", "missing"},
		{"unknown safety level", edit(t, "safety_level", `"none"`), "safety_level", `"none" is not one of low, moderate, high`},
		{"safety level below permissions", edit(t, "safety_level", `"low"`), "safety_level", `below "moderate"`},
		{"tag without domain", edit(t, "side_effect_tags", `["schedule"]`), "side_effect_tags[0]", "not <domain>.<effect>"},
		{"tag unknown domain", edit(t, "side_effect_tags", `["bank.transfer"]`), "side_effect_tags[0]", `domain "bank"`},
		{"tag bad effect", edit(t, "side_effect_tags", `["timer.Schedule"]`), "side_effect_tags[0]", `effect "Schedule"`},
		{"tag twice", edit(t, "side_effect_tags", `["timer.set", "timer.set"]`), "side_effect_tags[1]", "listed twice"},
		{"tag implies high", edit(t, "side_effect_tags", `["home.lights"]`), "safety_level", `below "high"`},
		{"intent with colon", edit(t, "idempotent_intents", `["time:left"]`), "idempotent_intents[0]", "not an intent name"},
		{"intent twice", edit(t, "idempotent_intents", `["a", "a"]`), "idempotent_intents[1]", "listed twice"},
		{"intents not an array", edit(t, "idempotent_intents", `"time_left"`), "idempotent_intents", "want an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseManifest(tt.data)
			require.Error(t, err)
			assert.Nil(t, m, "nothing is returned with an error")
			assert.ErrorIs(t, err, ErrInvalid)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.path, fe.Path)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestSemver(t *testing.T) {
	for _, v := range []string{"0.0.0", "1.0.0", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
		"1.0.0-x.7.z.92", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0-x-y-z.--", "1.0.0+001"} {
		assert.NoError(t, checkSemver(v), v)
	}
	for _, v := range []string{"1", "1.2", "1.2.3.4", "01.1.1", "1.2.3-", "1.2.3+", "1.2.3-a_b", "a.b.c", "1.2.-3", "1.2.3-beta.01"} {
		assert.Error(t, checkSemver(v), v)
	}
}

func TestBusID(t *testing.T) {
	tests := []struct{ id, bus string }{
		{"jibo/timer", "jibo.timer"},
		{"acme-co/what-can-you-do", "acme-co.what-can-you-do"},
		{"a/b", "a.b"},
		{"0/9", "0.9"},
	}
	for _, tt := range tests {
		require.NoError(t, ParseID(tt.id))
		assert.Equal(t, tt.bus, BusID(tt.id))
		back, err := ParseBusID(tt.bus)
		require.NoError(t, err)
		assert.Equal(t, tt.id, back)
		// Dispatch topics are "<bus id>:<intent>" and must be valid (MSG-04/05/06).
		topic, err := bus.DispatchTopic(tt.bus, "set_timer")
		require.NoError(t, err, tt.bus)
		require.NoError(t, bus.ValidateTopic(topic))
	}
	for _, bad := range []string{"jibo", "jibo.timer.x", ".timer", "jibo.", "Jibo.timer", "jibo/timer"} {
		_, err := ParseBusID(bad)
		assert.ErrorIs(t, err, ErrInvalid, bad)
	}
}

func TestValidateBuiltInGo(t *testing.T) {
	// Skills built in Go leave timeout and limits zero for the defaults.
	m := &Manifest{ID: "jibo/clock", Version: "1.0.0", Name: "Clock", Description: "Tells the time.",
		Permissions: []Permission{PermSpeech}, SafetyLevel: SafetyLow}
	require.NoError(t, m.Validate())
	assert.Equal(t, DefaultTimeout, m.EffectiveTimeout())
	assert.Equal(t, DefaultCallsPerMinute, m.EffectiveLimits().CallsPerMinute)
	n := m.Normalized()
	assert.Equal(t, DefaultTimeout, n.Timeout)
	assert.Zero(t, m.Timeout, "Normalized does not modify its receiver")

	var nilM *Manifest
	assert.ErrorIs(t, nilM.Validate(), ErrInvalid)
}

func TestImpliedSafetyLevel(t *testing.T) {
	tests := []struct {
		perms []Permission
		tags  []string
		want  SafetyLevel
	}{
		{nil, nil, SafetyLow},
		{[]Permission{PermSpeech, PermLED, PermDisplay, PermListen, PermSound, PermPerson, PermEmotion}, []string{"device.volume", "storage.notes"}, SafetyLow},
		{[]Permission{PermMotion}, nil, SafetyModerate},
		{[]Permission{PermProactive}, nil, SafetyModerate},
		{[]Permission{PermTimers}, nil, SafetyModerate},
		{nil, []string{"timer.alarm"}, SafetyModerate},
		{[]Permission{PermMotion}, []string{"network.fetch"}, SafetyHigh},
		{nil, []string{"message.send"}, SafetyHigh},
		{[]Permission{PermStorage}, nil, SafetyLow},
		{[]Permission{PermNetwork, PermStorage}, nil, SafetyHigh},
	}
	for _, tt := range tests {
		m := &Manifest{Permissions: tt.perms, SideEffectTags: tt.tags}
		assert.Equal(t, tt.want, m.ImpliedSafetyLevel(), "%v %v", tt.perms, tt.tags)
	}
}

func TestPermissionsDocumented(t *testing.T) {
	all := AllPermissions()
	assert.Len(t, all, 12)
	for _, p := range all {
		assert.True(t, p.Valid())
		assert.NotEmpty(t, p.Describe(), p)
	}
	assert.False(t, Permission("camera").Valid())
	assert.Empty(t, Permission("camera").Describe())
	for _, d := range SideEffectDomains() {
		assert.True(t, d.Level.Valid(), d.Name)
		assert.NotEmpty(t, d.Meaning)
	}
}

func TestFieldErrorIs(t *testing.T) {
	err := error(fieldErr("limits.max_behaviors", "bad"))
	assert.True(t, errors.Is(err, ErrInvalid))
	assert.False(t, errors.Is(err, ErrNotFound))
	assert.Equal(t, "invalid manifest: limits.max_behaviors: bad", err.Error())
}

// TestWasmLimitsAndHosts checks the members Wasm skills use: memory_mib
// (left zero by the defaults: native skills have no memory of their own to
// cap) and network_hosts, tied to the network permission.
func TestWasmLimitsAndHosts(t *testing.T) {
	data := []byte(`{"id": "acme/weather", "version": "1.0.0", "name": "Weather", "description": "Says the weather.",
		"permissions": ["speech", "network", "storage"], "timeout": "3s", "limits": {"memory_mib": 48},
		"network_hosts": ["api.weather.example", "127.0.0.1:8080"], "safety_level": "high"}`)
	m, err := ParseManifest(data)
	require.NoError(t, err)
	assert.Equal(t, 48, m.Limits.MemoryMiB)
	assert.Equal(t, []string{"127.0.0.1:8080", "api.weather.example"}, m.NetworkHosts, "stored sorted")
	b, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"memory_mib":48`)
	back, err := ParseManifest(b)
	require.NoError(t, err)
	b2, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(b2), "round trip")

	d, err := ParseManifest(edit(t, "limits", `{}`))
	require.NoError(t, err)
	assert.Zero(t, d.EffectiveLimits().MemoryMiB, "no default for skills without linear memory")
	b, err = json.Marshal(d)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "network_hosts", "left out when empty")

	// "network" implies a high safety level.
	_, err = ParseManifest([]byte(strings.Replace(string(data), `"high"`, `"moderate"`, 1)))
	assert.ErrorContains(t, err, `safety_level: "moderate" is below "high"`)
}

func TestSplitNetworkHost(t *testing.T) {
	good := []struct {
		in   string
		host string
		port int
	}{
		{"api.example.com", "api.example.com", 0},
		{"api.example.com:8443", "api.example.com", 8443},
		{"127.0.0.1:8080", "127.0.0.1", 8080},
		{"localhost", "localhost", 0},
		{"x-1.example", "x-1.example", 0},
	}
	for _, g := range good {
		h, p, err := SplitNetworkHost(g.in)
		require.NoError(t, err, g.in)
		assert.Equal(t, g.host, h, g.in)
		assert.Equal(t, g.port, p, g.in)
	}
	for _, bad := range []string{"", "API.example.com", "*.example.com", "https://api.example.com", "api.example.com/x",
		"user@host", "host:0", "host:65536", "host:08", "host:", "-a.example", "a..b", "::1", "[::1]:80", "1.2.3.999",
		"exa mple.com", strings.Repeat("a", 64) + ".com"} {
		_, _, err := SplitNetworkHost(bad)
		assert.Error(t, err, bad)
	}
}
