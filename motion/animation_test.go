package motion

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
)

func TestParseAnimation(t *testing.T) {
	a, err := ParseAnimation([]byte(`{"name":"wave","categories":["hello"],"relative":true,
		"tracks":{"topSection_r":[[0,0],[0.5,0.4],[1,0]]},
		"led":[{"t":0,"color":"blue"},{"t":0.5,"color":"#ff0000","fade":true},{"t":0.8,"pattern":"thinking"}]}`))
	require.NoError(t, err)
	assert.Equal(t, "wave", a.Name)
	assert.Equal(t, 1.0, a.Duration, "the last key")
	assert.True(t, a.Relative)
	assert.True(t, a.Animates(Top))
	assert.False(t, a.Animates(Bottom))
	v, ok := a.Sample(Top, 0.5)
	assert.True(t, ok)
	assert.Equal(t, 0.4, v, "passes through keyframes")
	v, _ = a.Sample(Top, 0.25)
	assert.Greater(t, v, 0.0)
	assert.Less(t, v, 0.4, "no overshoot between keys")
	v, _ = a.Sample(Top, 5)
	assert.Equal(t, 0.0, v, "holds the last key")
	_, ok = a.Sample(Bottom, 0.5)
	assert.False(t, ok)

	prog := a.LightProgram(2, 3)
	require.NoError(t, prog.Validate())
	assert.Equal(t, 1500*time.Millisecond, prog.Duration, "three plays at double speed")
	assert.Equal(t, 500*time.Millisecond, prog.Period)
	assert.Equal(t, 250*time.Millisecond, prog.Keys[1].At)
	assert.Equal(t, time.Duration(0), a.LightProgram(1, -1).Duration, "forever")
	assert.Equal(t, device.RGB{R: 0xff, A: 0xff}, prog.Keys[1].Color)

	lin, err := ParseAnimation([]byte(`{"name":"l","interpolation":"linear","duration":2,"tracks":{"bottomSection_r":[[0,0],[1,1]]}}`))
	require.NoError(t, err)
	v, _ = lin.Sample(Bottom, 0.25)
	assert.InDelta(t, 0.25, v, 1e-12)
	assert.Equal(t, 2.0, lin.Duration)
}

func TestParseAnimationErrors(t *testing.T) {
	long := `[` + strings.Repeat(`[0.001,0],`, MaxKeyframes) + `[1,0]]`
	tests := []struct{ name, json, want string }{
		{"not json", `{`, "invalid JSON"},
		{"field twice", `{"name":"a","tracks":{"topSection_r":[[0,0],[1,0]],"topSection_r":[[0,1],[1,1]]}}`, `invalid JSON: tracks.topSection_r: member given twice ("topSection_r")`},
		{"trailing", `{"name":"a","tracks":{"topSection_r":[[0,0],[1,0]]}} {}`, "trailing data"},
		{"unknown field", `{"name":"a","speed":2}`, `unknown field "speed"`},
		{"wrong type", `{"name":1}`, "name: is a JSON number, want a string"},
		{"bad name", `{"name":"Nod","tracks":{"topSection_r":[[0,0],[1,0]]}}`, `name: "Nod": use a-z`},
		{"unknown axis", `{"name":"a","tracks":{"tail_r":[[0,0]]}}`, "tracks.tail_r: unknown axis"},
		{"pair", `{"name":"a","tracks":{"topSection_r":[[0,0,1]]}}`, "tracks.topSection_r[0]: want [seconds, radians], got 3 numbers"},
		{"order", `{"name":"a","tracks":{"topSection_r":[[0,0],[0.5,1],[0.4,0]]}}`, "tracks.topSection_r[2]: time 0.4 is not after 0.5"},
		{"angle", `{"name":"a","tracks":{"topSection_r":[[0,0],[1,3.2]]}}`, "tracks.topSection_r[1]: angle 3.2 rad is outside ±3.0543"},
		{"relative angle ok beyond", `{"name":"a","relative":true,"tracks":{"topSection_r":[[0,0],[1,7]]}}`, "angle 7 rad is outside ±6.1086"},
		{"time", `{"name":"a","tracks":{"topSection_r":[[0,0],[61,0]]}}`, "time 61 s is outside 0..60"},
		{"too many", `{"name":"a","tracks":{"topSection_r":` + long + `}}`, "513 keyframes, limit 512"},
		{"empty track", `{"name":"a","tracks":{"topSection_r":[]}}`, "tracks.topSection_r: has no keyframes"},
		{"nothing", `{"name":"a"}`, "animates nothing"},
		{"no time", `{"name":"a","tracks":{"topSection_r":[[0,1]]}}`, "lasts no time"},
		{"duration short", `{"name":"a","duration":0.5,"tracks":{"topSection_r":[[0,0],[1,0]]}}`, "duration: 0.5 ends before the last key at 1"},
		{"interp", `{"name":"a","interpolation":"cubic","tracks":{"topSection_r":[[0,0],[1,0]]}}`, `interpolation: "cubic": want smooth or linear`},
		{"led first", `{"name":"a","led":[{"t":0.5,"color":"red"}]}`, "led[0].t: the first light key must be at 0"},
		{"led both", `{"name":"a","duration":1,"led":[{"t":0,"color":"red","pattern":"error"}]}`, "led[0]: give color or pattern, not both"},
		{"led none", `{"name":"a","duration":1,"led":[{"t":0}]}`, "led[0]: needs a color or a pattern"},
		{"led pattern", `{"name":"a","duration":1,"led":[{"t":0,"pattern":"disco"}]}`, `led[0].pattern: unknown pattern "disco"`},
		{"led colour", `{"name":"a","duration":1,"led":[{"t":0,"color":"#12"}]}`, `led[0].color: parse colour "#12"`},
		{"led fade pattern", `{"name":"a","duration":1,"led":[{"t":0,"color":"red"},{"t":0.5,"pattern":"error","fade":true}]}`, "led[1].fade: only a colour can fade"},
		{"led order", `{"name":"a","duration":1,"led":[{"t":0,"color":"red"},{"t":0,"color":"blue"}]}`, "led[1].t: 0 is not after the previous key"},
		{"led t", `{"name":"a","duration":1,"led":[{"color":"red"}]}`, "led[0].t: missing"},
		{"categories", `{"name":"a","categories":["x y"],"duration":1,"led":[{"t":0,"color":"red"}]}`, "categories[0]"},
		{"big", `{"name":"a","description":"` + strings.Repeat("x", MaxAnimationBytes) + `"}`, "limit 65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseAnimation([]byte(tt.json))
			require.Error(t, err)
			assert.Nil(t, a)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), "parse animation: "))
		})
	}
}
