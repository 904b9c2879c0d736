package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// TestStopWordsWithATimerRunning: a bare stop word while a timer counts
// down and nothing else goes on is the stop the spec asks for (STOP-03.6:
// the most recent active skill's stop; with none active STOP-03.1/05/06:
// global_stop, one ovos.stop, conversations ended), and then the robot
// says the timer still runs and how to cancel it, cancelling nothing.
// "Never mind" and the quiet words add nothing; with no timer nothing is
// said. What the robot says is heard to its end: the speaker finishes the
// line, even when the stop's own ovos.stop reaches the skill host only
// while the line is being spoken (the host's queue was slow), since a
// global stop spares its own utterance's answer.
func TestStopWordsWithATimerRunning(t *testing.T) {
	type step struct {
		say      string
		dispatch string // the matched skill:intent
		stops    int    // ovos.stop messages of the utterance
		said     string // a regexp the robot's one line matches; "" for none
	}
	const (
		still     = `^Your ten minute timer is still running\. Say 'cancel the timer' to stop it\.$`
		timerStop = "jibo.timer:stop"
		global    = "stop:global_stop"
	)
	tests := []struct {
		name   string
		steps  []step
		timers int // left counting down
	}{
		{"stop words with a timer just set", []step{
			{"set a timer for ten minutes", "jibo.timer:set_timer", 0, `ten minutes, starting now\.$`},
			{"cancel please", timerStop, 0, still},
			{"stop it", global, 1, still},
			{"cancel", global, 1, still},
			{"stop", global, 1, still},
		}, 1},
		{"never mind says nothing more", []step{
			{"set a timer for ten minutes", "jibo.timer:set_timer", 0, `ten minutes, starting now\.$`},
			{"cancel", timerStop, 0, still},
			{"never mind", global, 1, ""},
		}, 1},
		{"be quiet is no cancel", []step{
			{"set a timer for ten minutes", "jibo.timer:set_timer", 0, `ten minutes, starting now\.$`},
			{"be quiet", timerStop, 0, ""},
		}, 1},
		{"two timers", []step{
			{"set a timer for ten minutes", "jibo.timer:set_timer", 0, `ten minutes, starting now\.$`},
			{"set a timer for two minutes", "jibo.timer:set_timer", 0, `two minutes, starting now\.$`},
			{"please cancel", timerStop, 0, `^Your two timers are still running\. Say 'cancel the timers' to stop them\.$`},
		}, 2},
		{"no timer, nothing said", []step{
			{"cancel", global, 1, ""},
			{"cancel please", global, 1, ""},
		}, 0},
		{"the timer named is cancelled", []step{
			{"set a timer for ten minutes", "jibo.timer:set_timer", 0, `ten minutes, starting now\.$`},
			{"stop", timerStop, 0, still},
			{"cancel the timer", "jibo.timer:cancel_timer", 0, `^OK, I cancelled your ten minute timer\.$`},
			{"cancel", timerStop, 0, ""},
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			heard := &speakerLog{handled: make(chan struct{}, 16)}
			// Each word takes 60 ms: a line is still being spoken when its
			// stop comes again.
			r := startRobot(t, Config{SpeakWPM: 1000, Tap: heard.tap})
			heard.bus = r.Bus()
			require.NoError(t, r.Intents().Learn(ctx))
			u := utter(t, r)
			for _, s := range tt.steps {
				heard.start()
				_, msgs, err := u.Say(ctx, s.say)
				require.NoError(t, err, s.say)
				var matched string
				var said []string
				stops := 0
				var handled bus.Message
				for _, m := range msgs {
					switch m.Type {
					case pipeline.TopicMatched:
						matched = m.DataString("skill_id") + ":" + m.DataString("intent_name")
					case pipeline.TopicSpeak:
						said = append(said, m.DataString("utterance"))
					case pipeline.TopicStop:
						if m.Context[again] == nil {
							stops++
						}
					case pipeline.TopicHandlerError, pipeline.TopicUnmatched:
						t.Fatalf("%q: %s %v", s.say, m.Type, m.Data)
					case pipeline.TopicHandled:
						handled = m
					}
				}
				assert.Equal(t, s.dispatch, matched, s.say)
				assert.Equal(t, s.stops, stops, "%q: ovos.stop", s.say)
				lines, cut := heard.end(t)
				if s.said == "" {
					assert.Empty(t, said, s.say)
					assert.Empty(t, lines, s.say)
				} else {
					if assert.Len(t, said, 1, s.say) {
						assert.Regexp(t, s.said, said[0], s.say)
					}
					assert.Regexp(t, s.said, strings.Join(lines, " "), "%q: heard to its end", s.say)
				}
				assert.Zero(t, cut, "%q: nothing the robot said was cut", s.say)
				if matched == global {
					sess, _, err := session.FromMessage(handled)
					require.NoError(t, err)
					assert.Empty(t, sess.Handlers(session.FieldConverseHandlers), "%q: conversations ended (STOP-05)", s.say)
					_, asking := sess.ResponseMode()
					assert.False(t, asking, s.say)
				}
			}
			n := 0
			for _, tm := range r.sched.List() {
				if tm.SkillID == "jibo.timer" {
					n++
				}
			}
			assert.Equal(t, tt.timers, n, "no timer cancelled by a word that did not name it")
		})
	}
}

// speakerLog is what the robot's speaker said to its end during one
// utterance. When a line begins after a global stop, it hands the stop's
// own ovos.stop to the bus again (marked again), as the skill host would
// see it if its queue were slow.
type speakerLog struct {
	bus     *bus.Bus
	handled chan struct{}

	mu    sync.Mutex
	stop  *bus.Message // the utterance's ovos.stop, until it is handed back
	lines []string
	cut   int
	errs  []error // what the tap failed at, reported by end
}

// again marks the stop handed back.
const again = "test_again"

func (l *speakerLog) tap(ctx context.Context, m bus.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch m.Type {
	case pipeline.TopicStop:
		if m.Context[again] == nil {
			l.stop = &m
		}
	case "jibo.body.speaker.say":
		if l.stop != nil {
			m := l.stop.Forward(pipeline.TopicStop, map[string]any{})
			m.Context[again] = true
			l.stop = nil
			l.mu.Unlock()
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := l.bus.Publish(pctx, m)
			cancel()
			l.mu.Lock()
			if err != nil { // the tap runs outside the test's goroutine
				l.errs = append(l.errs, fmt.Errorf("handing the stop back: %w", err))
			}
		}
	case "jibo.body.speaker.done":
		l.lines = append(l.lines, m.DataString("text"))
	case "jibo.body.speaker.interrupted":
		l.cut++
	case pipeline.TopicHandled:
		l.handled <- struct{}{}
	}
}

// start begins an utterance.
func (l *speakerLog) start() {
	l.mu.Lock()
	l.stop, l.lines, l.cut, l.errs = nil, nil, 0, nil
	l.mu.Unlock()
}

// end waits until the tap saw the utterance handled (the speaker's events
// come before it) and returns the lines heard to their end and how many
// were cut.
func (l *speakerLog) end(t *testing.T) ([]string, int) {
	t.Helper()
	select {
	case <-l.handled:
	case <-time.After(30 * time.Second): // a hang guard, no timing assertion
		t.Fatal("the tap never saw the utterance handled")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, err := range l.errs {
		t.Errorf("the speaker's tap: %v", err)
	}
	return l.lines, l.cut
}
