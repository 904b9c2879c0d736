package motion

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
)

// parentSees is what the parent makes of an event frame: the event with
// its values decoded.
func parentSees(t *testing.T, f []byte) (wireEvent, map[string]any) {
	t.Helper()
	var buf []byte
	k, payload, err := readFrame(bytes.NewReader(f), &buf)
	require.NoError(t, err)
	require.Equal(t, fEvent, k)
	e, err := decodeEvent(payload)
	require.NoError(t, err)
	var values map[string]any
	require.NoError(t, decodeJSON(e.values, &values), "%s", e.values)
	return e, values
}

// TestEventFrameValues: the parent decodes an event's values as
// encoding/json would have written them, whatever they hold; values JSON
// cannot hold arrive as no values, as before.
func TestEventFrameValues(t *testing.T) {
	at := time.Unix(0, 1234567890)
	for _, tc := range []struct {
		name   string
		values map[string]any
	}{
		{"a motor's move", map[string]any{"from": 0.12345678901234567, "to": -1.5, "seconds": 1e-7}},
		{"a switch", map[string]any{"on": true}},
		{"numbers of every kind", map[string]any{"i": -3, "i64": int64(math.MinInt64), "u64": uint64(math.MaxUint64), "f32": float32(0.1), "big": 1e300}},
		{"strings to escape", map[string]any{"quote\"key": "a \"b\" \\ c\n\t\x01 é ☃ <tag> &"}},
		{"nothing", map[string]any{"none": nil}},
		{"no values", nil},
		{"nested, by encoding/json", map[string]any{"pose": []float64{1, 2, 3}, "at": map[string]any{"x": 1}}},
		{"bad UTF-8, mended by encoding/json", map[string]any{"s": "a\xffb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(nil)
			f, err := s.eventFrame(device.Event{Time: at, Device: "motor.x", Kind: "move", Values: tc.values})
			require.NoError(t, err)
			e, got := parentSees(t, f)
			assert.Equal(t, at, e.at)
			assert.Equal(t, "motor.x", e.device)
			assert.Equal(t, "move", e.kind)
			b, err := json.Marshal(tc.values)
			require.NoError(t, err)
			var want map[string]any
			require.NoError(t, json.Unmarshal(b, &want))
			if want == nil {
				want = map[string]any{}
			}
			if got == nil {
				got = map[string]any{}
			}
			assert.Equal(t, want, got)
		})
	}
	s := newServer(nil)
	f, err := s.eventFrame(device.Event{Time: at, Device: "motion", Kind: "late", Values: map[string]any{"ms": math.NaN()}})
	require.NoError(t, err)
	_, got := parentSees(t, f)
	assert.Empty(t, got, "a value JSON cannot hold: no values")
}

// countingConn counts the frames written to it and keeps the last.
type countingConn struct {
	mu   sync.Mutex
	n    int
	last []byte
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.last = append(c.last[:0], b...)
	return len(b), nil
}
func (*countingConn) Read([]byte) (int, error) { return 0, io.EOF }
func (*countingConn) Close() error             { return nil }

// TestReportsAllocateNothing: once warm, the loop process reports a
// motor's move and a job's end to the parent without allocating: the
// control loop's thread reports on every tick. The writer's part (send,
// hand the buffer back) is done in line, as writer does it, so that the
// count is the reports' alone.
func TestReportsAllocateNothing(t *testing.T) {
	conn := &countingConn{}
	s := newServer(conn)
	send := func() {
		for {
			select {
			case f := <-s.out:
				_, _ = conn.Write(f)
				s.recycle(f)
			default:
				return
			}
		}
	}
	move := device.Event{Time: time.Now(), Device: "motor.topSection_r", Kind: "move",
		Values: map[string]any{"from": 0.25, "to": 0.5, "seconds": 0.125}}
	for range 2 { // warm
		s.event(move)
		send()
	}
	allocs := testing.AllocsPerRun(100, func() {
		s.event(move)
		send()
	})
	assert.Zero(t, allocs, "a motor's move")
	_, values := parentSees(t, conn.last)
	assert.Equal(t, map[string]any{"from": 0.25, "to": 0.5, "seconds": 0.125}, values)

	for range 2 { // the ends' queue grows once
		s.ended(1, nil)
		s.flushEnds()
		send()
	}
	allocs = testing.AllocsPerRun(100, func() {
		s.ended(2, ErrHalted)
		s.flushEnds()
		send()
	})
	assert.Zero(t, allocs, "a job's end")
	assert.Positive(t, conn.n)
}
