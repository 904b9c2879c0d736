package mim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eval compiles and runs one expression against d, as a condition or a
// template would.
func eval(t *testing.T, d PromptData, src string) (any, error) {
	t.Helper()
	p, err := newCompiler().compile(src)
	require.NoError(t, err, src)
	return p.run(d.env())
}

func TestNewPromptData(t *testing.T) {
	d := NewPromptData(testRuntime(), testNow, map[string]any{"weather": map[string]any{"high": 31}})
	require.NotNil(t, d.Speaker)
	assert.Equal(t, "Bawb", d.Speaker.SpokenName(), "the phonetic name is how a name is said")
	require.NotNil(t, d.Owner)
	assert.Equal(t, "Ann", d.Owner.FirstName)
	assert.Equal(t, 9, d.Now.Hour(), "dt is local time, at the offset of location.iso")

	tests := []struct {
		expr string
		want any
	}{
		{"speaker", "Bawb"},
		{"loop.owner", "Ann"},
		{"loop.list", "Ann and Bawb"},
		{"loop.count", 2},
		{"loop.members[0].gender", "female"},
		{"location.city", "Boston"},
		{"location.stateAbbr", "MA"},
		{"jibo.emotion", "PLEASED"},
		{"jibo.isBirthday", true},
		{"jibo.age", 7},
		{"jibo.color", "WHITE"},
		{"dt.year", 2024},
		{"dt.month", 12},
		{"dt.day", 24},
		{"dt.hour", 9},
		{"dt.minute", 30},
		{"dt.weekday", "Tuesday"},
		{"dt.dayOfWeek", 2},
		{"dt.monthName", "December"},
		{"dt.timeOfDay", "morning"},
		{"dt.isWeekend", false},
		{"dt.now.hour", 9},
		{"dt.now.isInRange('11/1','2/18')", true},
		{"dt.now.isInRange('12/25','12/31')", false},
		{"skill.weather.high", 31},
		{"referent", nil},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := eval(t, d, tt.expr)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPromptDataReferent(t *testing.T) {
	rt := testRuntime()
	rt.Dialog.Referent = json.RawMessage(`"u-ann"`)
	d := NewPromptData(rt, testNow, nil)
	got, err := eval(t, d, `referent.gender=="female" && referent.name`)
	require.NoError(t, err)
	assert.Equal(t, "Ann", got, "a referent naming a loop member is that member")

	rt.Dialog.Referent = json.RawMessage(`{"gender":"male","name":"Grandpa"}`)
	d = NewPromptData(rt, testNow, nil)
	got, err = eval(t, d, `referent.gender=="male"`)
	require.NoError(t, err)
	assert.Equal(t, true, got)

	_, err = eval(t, PromptData{}, `referent.gender=="male"`)
	assert.ErrorContains(t, err, `cannot read property "gender" of null`, "no referent throws, as JavaScript would")
}

func TestPromptDataUnknowns(t *testing.T) {
	d := NewPromptData(testRuntime(), testNow, nil)
	d.Speaker, d.Owner, d.JiboBirthdate = nil, nil, time.Time{}
	for expr, want := range map[string]any{
		"speaker":         nil,
		"loop.owner":      nil,
		"jibo.age":        nil,
		"jibo.ageDays":    nil,
		"jibo.ageMonths":  nil,
		"jibo.isBirthday": false,
		"skill.anything":  nil,
	} {
		got, err := eval(t, d, expr)
		require.NoError(t, err, expr)
		assert.Equal(t, want, got, expr)
	}
}

// A young robot's age in months and days: "how old are you" on its first
// day is answered naturally, not with "0".
func TestPromptDataYoungAges(t *testing.T) {
	born := time.Date(2026, 1, 31, 22, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		now          time.Time
		days, months int
		years        int
		birthday     bool
	}{
		{time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC), 0, 0, 0, true},
		{time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC), 1, 0, 0, false},
		{time.Date(2026, 3, 30, 8, 0, 0, 0, time.UTC), 58, 1, 0, false},
		{time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC), 59, 2, 0, false},
		{time.Date(2027, 1, 31, 8, 0, 0, 0, time.UTC), 365, 12, 1, true},
	} {
		d := PromptData{Now: tt.now, JiboBirthdate: born}
		for expr, want := range map[string]any{"jibo.ageDays": tt.days, "jibo.ageMonths": tt.months, "jibo.age": tt.years,
			"jibo.isBirthday": tt.birthday} {
			got, err := eval(t, d, expr)
			require.NoError(t, err, expr)
			assert.Equal(t, want, got, "%s on %s", expr, tt.now.Format(time.DateOnly))
		}
	}
}

func TestIsInRange(t *testing.T) {
	day := func(m time.Month, d int) time.Time { return time.Date(2025, m, d, 12, 0, 0, 0, time.UTC) }
	tests := []struct {
		t        time.Time
		from, to string
		want     bool
	}{
		{day(11, 1), "11/1", "2/18", true},  // first day, inclusive
		{day(2, 18), "11/1", "2/18", true},  // last day, inclusive
		{day(1, 5), "11/1", "2/18", true},   // across new year
		{day(12, 31), "11/1", "2/18", true}, // before new year
		{day(2, 19), "11/1", "2/18", false},
		{day(10, 31), "11/1", "2/18", false},
		{day(7, 4), "6/21", "9/22", true},
		{day(9, 23), "6/21", "9/22", false},
		{day(3, 3), "3/3", "3/3", true},
		{day(3, 4), "03/03", "3/3", false},
	}
	for _, tt := range tests {
		got, err := IsInRange(tt.t, tt.from, tt.to)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%s in %s..%s", tt.t.Format("1/2"), tt.from, tt.to)
	}
	for _, bad := range []string{"", "11", "11-1", "13/1", "0/1", "2/30", "4/31", "1/0", "x/1", "111/1"} {
		_, err := IsInRange(day(1, 1), bad, "1/1")
		assert.Error(t, err, bad)
	}
}

func TestSpokenList(t *testing.T) {
	assert.Equal(t, "", spokenList(nil))
	assert.Equal(t, "Ann", spokenList([]string{"Ann"}))
	assert.Equal(t, "Ann and Bob", spokenList([]string{"Ann", "Bob"}))
	assert.Equal(t, "Ann, Bob and Cy", spokenList([]string{"Ann", "Bob", "Cy"}))
}
