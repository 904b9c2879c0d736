package invoke

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func rec(i int, skill string, o Outcome) Record {
	return Record{Time: t0.Add(time.Duration(i) * time.Second), Skill: skill, Intent: "set",
		RequestID: fmt.Sprintf("mid-%d", i), RequestType: "LISTEN_LAUNCH", Outcome: o, Attempts: 1,
		Duration: time.Duration(i) * time.Millisecond}
}

func ids(rs []Record) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.RequestID)
	}
	return out
}

func TestLogRing(t *testing.T) {
	l := NewLog(3)
	assert.Equal(t, 3, l.Cap())
	assert.Empty(t, l.List(Filter{}))
	l.Record(rec(1, "jibo/timer", OutcomeOK))
	l.Record(rec(2, "jibo/clock", OutcomeOK))
	assert.Equal(t, []string{"mid-2", "mid-1"}, ids(l.List(Filter{})), "newest first")
	l.Record(rec(3, "jibo/timer", OutcomeTimeout))
	l.Record(rec(4, "jibo/timer", OutcomePanic))
	l.Record(rec(5, "jibo/clock", OutcomeOK))
	assert.Equal(t, 3, l.Len(), "bounded")
	assert.Equal(t, uint64(5), l.Total())
	assert.Equal(t, []string{"mid-5", "mid-4", "mid-3"}, ids(l.List(Filter{})))

	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{Skill: "jibo/timer"}, []string{"mid-4", "mid-3"}},
		{Filter{Skill: "jibo.timer"}, []string{"mid-4", "mid-3"}}, // a bus id works too
		{Filter{Outcome: OutcomeOK}, []string{"mid-5"}},
		{Filter{Skill: "jibo/timer", Outcome: OutcomePanic}, []string{"mid-4"}},
		{Filter{Limit: 2}, []string{"mid-5", "mid-4"}},
		{Filter{Skill: "jibo/weather"}, []string{}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ids(l.List(tt.f)), "%+v", tt.f)
	}
}

func TestNewLogCapacity(t *testing.T) {
	assert.Equal(t, DefaultLogCapacity, NewLog(0).Cap())
	assert.Equal(t, DefaultLogCapacity, NewLog(-5).Cap())
	assert.Equal(t, MaxLogCapacity, NewLog(MaxLogCapacity+1).Cap())
}

func TestLogConcurrent(t *testing.T) {
	l := NewLog(10)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				l.Record(rec(g*100+i, "jibo/timer", OutcomeOK))
				_ = l.List(Filter{Limit: 3})
			}
		})
	}
	wg.Wait()
	assert.Equal(t, uint64(400), l.Total())
	assert.Equal(t, 10, l.Len())
}

func TestRecordJSON(t *testing.T) {
	r := Record{Time: t0.Add(123 * time.Millisecond), Skill: "jibo/timer", Intent: "set_timer", RequestID: "mid-1",
		TransID: "tid-1", RequestType: "LISTEN_LAUNCH", ResponseType: "ERROR", Outcome: OutcomeErrorResponse,
		Attempts: 1, Duration: 3200 * time.Microsecond, Error: "no timers"}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{"time":"2026-05-01T12:00:00.123Z","skill":"jibo/timer","intent":"set_timer",
		"request_id":"mid-1","trans_id":"tid-1","request_type":"LISTEN_LAUNCH","response_type":"ERROR",
		"outcome":"error-response","attempts":1,"duration_ms":3.2,"error":"no timers"}`, string(b))
	var back Record
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r, back)

	for _, bad := range []string{`{}`, `{"time":"2026-05-01T12:00:00Z","outcome":"ok"}`,
		`{"time":"2026-05-01T12:00:00Z","skill":"a/b","outcome":"meh"}`, `[]`} {
		assert.Error(t, json.Unmarshal([]byte(bad), &back), bad)
	}
}

func TestClip(t *testing.T) {
	assert.Equal(t, "short", clip("short", 10))
	c := clip(strings.Repeat("é", 100), 11)
	assert.LessOrEqual(t, len(c), 11)
	assert.True(t, strings.HasSuffix(c, "…"))
	assert.Equal(t, strings.Repeat("é", 4)+"…", c, "cut on a rune boundary")
}

func TestOutcomes(t *testing.T) {
	assert.Len(t, Outcomes(), 8)
	for _, o := range Outcomes() {
		assert.True(t, o.Valid())
	}
	assert.False(t, Outcome("meh").Valid())
}
