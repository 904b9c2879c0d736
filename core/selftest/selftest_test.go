package selftest

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

func TestSaysClockTime(t *testing.T) {
	re := regexp.MustCompile(`\d{1,2}:\d\d [AP]M`)
	for _, s := range []string{
		"It's 9:05 AM.", "It's 12:30 PM", "9:05 AM", "it is 09:05 PM now", "9:5 AM", "9:05 am", "9:05AM",
		":05 AM", "9:05 XM", "9:05 A", "", "12:00 PMx", "1:234 AM", "99:99 PM", "९:०५ AM",
	} {
		assert.Equal(t, re.MatchString(s), saysClockTime(s), "%q", s)
	}
	// The clock says 12:00 in words; a self-test on the hour passes.
	for s, want := range map[string]bool{
		"The time is noon.": true, "It's midnight.": true, "noon": true,
		"afternoon": false, "midnights": false, "It's twelve.": false,
	} {
		assert.Equal(t, want, saysClockTime(s), "%q", s)
	}
}

// A robot that does not start is one failed step, "start the runtime".
func TestRunReportsAFailedStart(t *testing.T) {
	var steps []Step
	passed, failed, started := Run(context.Background(), func(context.Context) (*Robot, func(context.Context) error, error) {
		return nil, nil, errors.New("no board")
	}, func(s Step) { steps = append(steps, s) })
	assert.Equal(t, []Step{{Name: "start the runtime", Err: errors.New("no board")}}, steps)
	assert.Equal(t, [3]any{0, 1, false}, [3]any{passed, failed, started})
}

// Every check is reported once, in order, then the shutdown; a robot that
// answers nothing fails the conversation checks (within the self-test's
// time limit) and a motor refusing its limit is caught.
func TestRunReportsEveryStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})
		motors := map[string]Motor{}
		for i := range motion.NumAxes {
			motors[motion.AxisName(i)] = &fakeMotor{limit: 3}
		}
		motors[motion.AxisName(motion.Top)] = &fakeMotor{limit: 5}
		r := &Robot{Bus: b, Exec: fakeExec{}, Motors: motors, Devices: func(context.Context) []Device {
			return []Device{{Device: "ring", Driver: "sim", OK: true}}
		}}
		var steps []Step
		passed, failed, started := Run(context.Background(), func(context.Context) (*Robot, func(context.Context) error, error) {
			return r, func(ctx context.Context) error { return b.Close(ctx) }, nil
		}, func(s Step) { steps = append(steps, s) })
		require.True(t, started)
		var names []string
		failedNames := map[string]bool{}
		for _, s := range steps {
			names = append(names, s.Name)
			failedNames[s.Name] = s.Err != nil
		}
		assert.Equal(t, []string{"board devices answer", "bus codecs round-trip", "malformed bus message refused",
			"skills registered their intents", "greeting answered", "time answered", "question answered in a second turn",
			"nonsense gets a spoken answer", "bad entry gets an error and one handled", "motors move within limits",
			"JCP sequence and parallel run", "shut down cleanly"}, names)
		assert.Equal(t, map[string]bool{"board devices answer": false, "bus codecs round-trip": false, "malformed bus message refused": false,
			"skills registered their intents": true, "greeting answered": true, "time answered": true, "question answered in a second turn": true,
			"nonsense gets a spoken answer": true, "bad entry gets an error and one handled": true, "motors move within limits": true,
			"JCP sequence and parallel run": false, "shut down cleanly": false}, failedNames)
		assert.Equal(t, 5, passed)
		assert.Equal(t, 7, failed)
		assert.EqualError(t, steps[9].Err, "topSection_r accepted 4 rad, beyond its limit")
	})
}

type fakeMotor struct{ limit float64 }

func (m *fakeMotor) SetAngle(_ context.Context, rad float64) error {
	if rad > m.limit {
		return errors.New("beyond the limit")
	}
	return nil
}

type fakeExec struct{}

func (fakeExec) Run(context.Context, *jcp.Action) (*jcp.Result, error) {
	return &jcp.Result{Status: jcp.StatusSucceeded, Spoken: []string{"one", "two", "three"}}, nil
}
