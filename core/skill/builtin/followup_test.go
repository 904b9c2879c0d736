package builtin_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/clock"
	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
)

// robot is the built-in clock and timer behind the real orchestrator: the
// intent stack's bands and paraphrase stage in the robot's order, its
// CONTEXT-1 gating from the registrations on the bus, and the session it
// keeps between utterances.
type robot struct {
	t       *testing.T
	r       *rig.Rig
	matched chan string
	handled chan struct{}
}

// turnBound only keeps a broken build from hanging the test run.
const turnBound = time.Minute

func newRobot(t *testing.T) *robot {
	t.Helper()
	r := rig.New(t, rig.Options{})
	plugins := r.Intents.Plugins()
	var ids []string
	for _, p := range plugins {
		ids = append(ids, p.ID())
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	o, err := pipeline.New(pipeline.Config{Bus: r.Bus, Invoker: r.Host, Plugins: plugins,
		Logger: quiet, Rules: r.Intents.Rules(),
		Defaults: session.Defaults{Lang: "en-US", Pipeline: ids}})
	require.NoError(t, err)
	// Started before the skills register, so it reads their context
	// rules as the robot does.
	require.NoError(t, o.Start())
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	rb := &robot{t: t, r: r, matched: make(chan string, 16), handled: make(chan struct{}, 16)}
	sub, err := r.Bus.SubscribeAll([]string{pipeline.TopicMatched, pipeline.TopicUnmatched, pipeline.TopicHandled},
		func(_ context.Context, m bus.Message) {
			switch m.Type {
			case pipeline.TopicMatched:
				rb.matched <- m.DataString("skill_id") + ":" + m.DataString("intent_name")
			case pipeline.TopicUnmatched:
				rb.matched <- ""
			case pipeline.TopicHandled:
				rb.handled <- struct{}{}
			}
		}, bus.WithQueue(64, bus.Block))
	require.NoError(t, err)
	t.Cleanup(sub.Close)

	c, err := clock.New(clock.Options{Now: r.Now, Rand: func(int) int { return 0 }})
	require.NoError(t, err)
	tm, err := timer.New(timer.Options{Timers: skill.NewTimers(r.Sched, timer.ID, r.Now), Now: r.Now,
		Rand: func(int) int { return 0 }})
	require.NoError(t, err)
	r.Add(c, tm)
	r.Start()
	return rb
}

// say plays one utterance through the pipeline and returns the intent it
// matched ("" for none) and what the robot said.
func (rb *robot) say(u string) (string, []string) {
	rb.t.Helper()
	before := len(rb.r.Voice.Said())
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{u}, "lang": "en-US"})
	require.NoError(rb.t, rb.r.Bus.Publish(context.Background(), m))
	var got string
	select {
	case got = <-rb.matched:
	case <-time.After(turnBound):
		rb.t.Fatalf("%q: no match round", u)
	}
	select {
	case <-rb.handled:
	case <-time.After(turnBound):
		rb.t.Fatalf("%q: never handled", u)
	}
	return got, rb.r.Voice.Said()[before:]
}

var (
	saysTime = regexp.MustCompile(`^It's (\d{1,2}:\d\d [AP]M|noon|midnight)\.$`)
	saysDate = regexp.MustCompile(`^Today is [A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}(st|nd|rd|th)\.$`)
)

// Elliptical follow-ups are understood through the skills' context
// (CONTEXT-1): the clock and the timer set it when they answer, the
// follow-up intents require it (CTX-11), and it decays (CTX-06).
func TestFollowUpsCONTEXT1(t *testing.T) {
	type step struct {
		say    string
		intent string // "" for no match
		said   *regexp.Regexp
	}
	const (
		timeNow  = clock.ID + ":" + clock.IntentTime
		dateNow  = clock.ID + ":" + clock.IntentDate
		dateMore = clock.ID + ":" + clock.IntentDateFollowUp
		timeMore = clock.ID + ":" + clock.IntentTimeFollowUp
		set      = timer.ID + ":" + timer.IntentSet
		change   = timer.ID + ":" + timer.IntentChange
		cancelIt = timer.ID + ":" + timer.IntentCancelIt
	)
	tests := []struct {
		name  string
		steps []step
		// timers are the pending timers' lengths afterwards.
		timers []time.Duration
	}{
		{"and the date after the time", []step{
			{"what time is it", timeNow, saysTime},
			{"and the date?", dateMore, saysDate},
			{"and the time", timeMore, saysTime},
		}, nil},
		{"no follow-up without a question before it", []step{
			{"and the date?", "", nil},
			{"what about the time", "", nil},
		}, nil},
		{"the context lasts two utterances", []step{
			{"what's the date", dateNow, saysDate},
			{"set a timer for a minute", set, regexp.MustCompile(`^OK, one minute, starting now\.$`)},
			{"and the time", timeMore, saysTime},
			{"make it two", change, regexp.MustCompile(`two minutes`)},
			{"cancel the timer", timer.ID + ":" + timer.IntentCancel, regexp.MustCompile(`cancelled`)},
			{"what about the date", "", nil},
		}, nil},
		{"make it five after ten minutes", []step{
			{"set a timer for ten minutes", set, regexp.MustCompile(`^OK, ten minutes, starting now\.$`)},
			{"make it five", change, regexp.MustCompile(`^OK, five minutes instead, starting now\.$`)},
		}, []time.Duration{5 * time.Minute}},
		{"make it a unit of its own", []step{
			{"set a timer for ninety seconds", set, regexp.MustCompile(`one minute and thirty seconds`)},
			{"make it five minutes", change, regexp.MustCompile(`^OK, five minutes instead, starting now\.$`)},
		}, []time.Duration{5 * time.Minute}},
		{"a bare number keeps the hours", []step{
			{"start a two hour timer", set, regexp.MustCompile(`two hours`)},
			{"actually make it three", change, regexp.MustCompile(`three hours`)},
		}, []time.Duration{3 * time.Hour}},
		{"no change without a timer just set", []step{
			{"make it five", "", nil},
		}, nil},
		{"cancel it right after a timer was set", []step{
			{"set a timer for ten minutes", set, regexp.MustCompile(`^OK, ten minutes, starting now\.$`)},
			{"set a timer for two minutes", set, regexp.MustCompile(`^OK, two minutes, starting now\.$`)},
			{"oops cancel it", cancelIt, regexp.MustCompile(`^OK, I cancelled your two minute timer\.$`)},
		}, []time.Duration{10 * time.Minute}},
		{"i don't need it anymore", []step{
			{"set a timer for ten minutes", set, nil},
			{"i dont need it anymore", cancelIt, regexp.MustCompile(`^OK, I cancelled your ten minute timer\.$`)},
		}, nil},
		{"no cancel it long after the timer was set", []step{
			{"set a timer for ten minutes", set, nil},
			{"what time is it", timeNow, saysTime},
			{"what's the date", dateNow, saysDate},
			{"cancel it", "", nil},
		}, []time.Duration{10 * time.Minute}},
		{"no cancel it without a timer", []step{
			{"cancel it", "", nil},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := newRobot(t)
			for i, st := range tt.steps {
				got, said := rb.say(st.say)
				assert.Equal(t, st.intent, got, "step %d %q", i, st.say)
				if st.said == nil {
					continue
				}
				if assert.Len(t, said, 1, "step %d %q", i, st.say) {
					assert.Regexp(t, st.said, said[0], "step %d %q", i, st.say)
				}
			}
			var lengths []time.Duration
			for _, tm := range rb.r.Sched.List() {
				lengths = append(lengths, tm.Due.Sub(tm.Created).Round(time.Second))
			}
			assert.Equal(t, tt.timers, lengths, fmt.Sprintf("pending timers after %q", tt.name))
		})
	}
}
