package timer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		text string
		want time.Duration
	}{
		{"five minutes", 5 * time.Minute},
		{"5 minutes", 5 * time.Minute},
		{"1 minute 30 seconds", 90 * time.Second},
		{"one minute and thirty seconds", 90 * time.Second},
		{"an hour and a half", 90 * time.Minute},
		{"a minute and a half", 90 * time.Second},
		{"one and a half hours", 90 * time.Minute},
		{"two and a half minutes", 150 * time.Second},
		{"ninety seconds", 90 * time.Second},
		{"2 hours", 2 * time.Hour},
		{"half an hour", 30 * time.Minute},
		{"half a minute", 30 * time.Second},
		{"a half hour", 30 * time.Minute},
		{"a quarter of an hour", 15 * time.Minute},
		{"quarter hour", 15 * time.Minute},
		{"three quarters of an hour", 45 * time.Minute},
		{"twenty five minutes", 25 * time.Minute},
		{"twenty-five minutes", 25 * time.Minute},
		{"a hundred seconds", 100 * time.Second},
		{"one hundred and twenty seconds", 120 * time.Second},
		{"a couple of minutes", 2 * time.Minute},
		{"an hour and fifteen minutes", 75 * time.Minute},
		{"1 hour, 2 minutes and 3 seconds", time.Hour + 2*time.Minute + 3*time.Second},
		{"one minute thirty", 90 * time.Second},
		{"an hour thirty", 90 * time.Minute},
		{"1.5 hours", 90 * time.Minute},
		{"for ten seconds", 10 * time.Second},
		{"About five minutes, please.", 5 * time.Minute},
		{"make it a minute", time.Minute},
		{"five minute", 5 * time.Minute},
		{"10 mins", 10 * time.Minute},
		{"2 hrs", 2 * time.Hour},
		{"1 second", time.Second},
		{"24 hours", 24 * time.Hour},
		{"twelve hours", 12 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := ParseDuration(tt.text)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseDurationRefuses(t *testing.T) {
	tests := []struct {
		text string
		is   error
		msg  string
	}{
		{"banana", ErrNoDuration, `expected a number at "banana"`},
		{"", ErrNoDuration, "no number and unit"},
		{"for please", ErrNoDuration, "no number and unit"},
		{"five", ErrNoDuration, "a number needs a unit"},
		{"five bananas", ErrNoDuration, `"bananas" is not a unit`},
		{"five five minutes", ErrNoDuration, `"five" is not a unit`},
		{"half an", ErrNoDuration, "a unit is missing"},
		{"ten days", ErrNoDuration, `"days" is not a unit`},
		{"zero seconds", ErrOutOfRange, "1s to 24h0m0s"},
		{"half a second", ErrOutOfRange, ""},
		{"25 hours", ErrOutOfRange, ""},
		{"24 hours and 1 second", ErrOutOfRange, ""},
		{"1e400 seconds", ErrNoDuration, ""},
		{strings.Repeat("one ", 30) + "seconds", ErrNoDuration, "limit 24"},
		{strings.Repeat("x", MaxDurationText+1), ErrNoDuration, "limit 200"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, err := ParseDuration(tt.text)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestSpokenDuration(t *testing.T) {
	tests := []struct {
		d      time.Duration
		spoken string
		length string // "" when it has several units
	}{
		{5 * time.Minute, "five minutes", "five minute"},
		{time.Minute, "one minute", "one minute"},
		{10 * time.Second, "ten seconds", "ten second"},
		{90 * time.Second, "one minute and thirty seconds", ""},
		{90 * time.Minute, "one hour and thirty minutes", ""},
		{2*time.Hour + 5*time.Minute + 10*time.Second, "two hours, five minutes and ten seconds", ""},
		{24 * time.Hour, "twenty four hours", "twenty four hour"},
		{42 * time.Second, "forty two seconds", "forty two second"},
		{1500 * time.Millisecond, "two seconds", "two second"},
	}
	for _, tt := range tests {
		t.Run(tt.spoken, func(t *testing.T) {
			assert.Equal(t, tt.spoken, SpokenDuration(tt.d))
			l, ok := SpokenLength(tt.d)
			assert.Equal(t, tt.length, l)
			assert.Equal(t, tt.length != "", ok)
		})
	}
	assert.Equal(t, "100", NumberWords(100))
}

// FuzzParseDuration: any text either parses within the limits or fails
// with one of the two errors; nothing panics.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"five minutes", "an hour and a half", "1.5 hours", "a hundred and twenty seconds", "half of a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			assert.True(t, errors.Is(err, ErrNoDuration) || errors.Is(err, ErrOutOfRange), "unexpected error %v", err)
			return
		}
		assert.GreaterOrEqual(t, d, MinDuration)
		assert.LessOrEqual(t, d, MaxDuration)
	})
}

func BenchmarkParseDuration(b *testing.B) {
	for b.Loop() {
		_, _ = ParseDuration("one hour, twenty five minutes and a half")
	}
}
