package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func alarm(id string, due time.Duration) Timer {
	return Timer{ID: id, SkillID: "timer", BusSession: "default", Lang: "en-US", Due: t0.Add(due),
		Memo: json.RawMessage(`{"timer":"` + id + `"}`), Label: "pasta", Created: t0}
}

func TestTimersSortedByDue(t *testing.T) {
	s, _ := openTemp(t, Options{})
	for _, tm := range []Timer{alarm("c", 3*time.Minute), alarm("a", 5*time.Minute), alarm("b", time.Minute), alarm("a2", 3*time.Minute)} {
		require.NoError(t, s.PutTimer(tm))
	}
	got, err := s.Timers()
	require.NoError(t, err)
	var ids []string
	for _, tm := range got {
		ids = append(ids, tm.ID)
	}
	assert.Equal(t, []string{"b", "a2", "c", "a"}, ids, "soonest first, ties by id")

	require.NoError(t, s.DeleteTimer("c"))
	require.NoError(t, s.DeleteTimer("c"), "deleting none is no error")
	got, err = s.Timers()
	require.NoError(t, err)
	assert.Len(t, got, 3)
}

func TestTimerMemoNullAndAbsentAreKept(t *testing.T) {
	s, _ := openTemp(t, Options{})
	withNull, without := alarm("null", time.Minute), alarm("none", 2*time.Minute)
	withNull.Memo, without.Memo = json.RawMessage(`null`), nil
	require.NoError(t, s.PutTimer(withNull))
	require.NoError(t, s.PutTimer(without))
	got, err := s.Timers()
	require.NoError(t, err)
	assert.Equal(t, `null`, string(got[0].Memo))
	assert.Nil(t, got[1].Memo)
}

func TestPutTimerRefusesInvalid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(tm *Timer)
		want   string
	}{
		{"no id", func(tm *Timer) { tm.ID = "" }, "id: required"},
		{"id with a slash", func(tm *Timer) { tm.ID = "a/b" }, `id: "a/b": want [A-Za-z0-9][A-Za-z0-9._-]*`},
		{"id too long", func(tm *Timer) { tm.ID = strings.Repeat("a", MaxTimerIDLen+1) }, "id: 65 bytes, limit 64"},
		{"no skill", func(tm *Timer) { tm.SkillID = "" }, "skillID: required"},
		{"no due time", func(tm *Timer) { tm.Due = time.Time{} }, "due: required"},
		{"memo is a list", func(tm *Timer) { tm.Memo = json.RawMessage(`[1]`) }, "memo: want a JSON object or null"},
		{"memo is broken", func(tm *Timer) { tm.Memo = json.RawMessage(`{"a"`) }, "memo: want a JSON object or null"},
		{"memo too big", func(tm *Timer) {
			tm.Memo = json.RawMessage(`{"a":"` + strings.Repeat("x", MaxMemoBytes) + `"}`)
		}, "memo: 8200 bytes, limit 8192"},
		{"label with a newline", func(tm *Timer) { tm.Label = "pasta\nnow" }, "label: control character U+000A"},
		{"bad language", func(tm *Timer) { tm.Lang = "e" }, `lang: "e" is not a language tag`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTemp(t, Options{})
			tm := alarm("t1", time.Minute)
			tc.change(&tm)
			err := s.PutTimer(tm)
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tc.want)
			got, err := s.Timers()
			require.NoError(t, err)
			assert.Empty(t, got, "nothing written")
		})
	}
}

func TestTimerCountLimit(t *testing.T) {
	s, _ := openTemp(t, Options{})
	for i := range MaxTimers {
		require.NoError(t, s.PutTimer(alarm(fmt.Sprintf("t%02d", i), time.Minute)))
	}
	err := s.PutTimer(alarm("extra", time.Minute))
	require.ErrorIs(t, err, ErrFull)
	assert.Contains(t, err.Error(), "64 timers stored, limit 64")
	require.NoError(t, s.PutTimer(alarm("t00", 2*time.Minute)), "replacing one is fine at the limit")
}

func TestUnreadableTimersAreReportedAndSkipped(t *testing.T) {
	var logs logBuffer
	s, _ := openTemp(t, Options{Logger: logs.logger()})
	good := alarm("good", time.Minute)
	require.NoError(t, s.PutTimer(good))
	other, err := encode(alarm("other", time.Minute))
	require.NoError(t, err)
	putRaw(t, s, bucketTimers, "moved", other)
	putRaw(t, s, bucketTimers, "garbled", []byte(`not json`))

	got, err := s.Timers()
	require.NoError(t, err)
	assert.Equal(t, []Timer{good}, got)
	assert.Contains(t, logs.String(), `key="\"moved\""`)
	assert.Contains(t, logs.String(), `holds timer \"other\" instead`)
	assert.Contains(t, logs.String(), `key="\"garbled\""`)

	n, err := s.DropUnreadable()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}
