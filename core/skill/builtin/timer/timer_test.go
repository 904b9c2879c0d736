package timer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/jcp"
)

// first picks the first phrasing and the first prompt, so what the robot
// says is known.
type first struct{}

func (first) Float64() float64 { return 0 }

// newRig hosts the timer skill with the rig's scheduler. Inside a synctest
// bubble its clock is the fake one.
func newRig(t *testing.T, o rig.Options) *rig.Rig { return newRigWith(t, o, nil) }

// newRigWith is newRig with the skill's timers passed through wrap, if
// set.
func newRigWith(t *testing.T, o rig.Options, wrap func(Timers) Timers) *rig.Rig {
	r := rig.New(t, o)
	var timers Timers = skill.NewTimers(r.Sched, ID, r.Now)
	if wrap != nil {
		timers = wrap(timers)
	}
	s, err := New(Options{Timers: timers, Now: r.Now,
		Rand: func(int) int { return 0 }, PromptRand: first{}})
	require.NoError(t, err)
	r.Add(s)
	r.Start()
	return r
}

type step struct {
	say        string
	dispatched string
	said       []string
	listening  bool
}

func play(t *testing.T, r *rig.Rig, steps []step) {
	t.Helper()
	for i, st := range steps {
		turn := r.Say(st.say)
		require.NoError(t, turn.Err, "step %d %q", i, st.say)
		assert.Equal(t, st.dispatched, turn.Dispatched, "step %d %q", i, st.say)
		assert.Equal(t, st.said, turn.Said, "step %d %q", i, st.say)
		assert.Equal(t, st.listening, turn.Listening == ID, "step %d %q: listening", i, st.say)
	}
}

const (
	set      = ID + ":" + IntentSet
	response = ID + ":" + skill.IntentResponse
)

// TestConversationAlarmAndStop is the whole timer conversation on a fake
// clock: the question and its answer (multi-turn through response mode,
// CONV-05, as LISTEN_UPDATE, spec/jibo.md §2.5),
// the time left, five minutes later the alarm (PROACTIVE_LAUNCH with the
// timer's memo) and "stop" ending it (the pipeline's "<skill>:stop",
// STOP-07).
func TestConversationAlarmAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rig.Options{SayTime: 2 * time.Second})
		play(t, r, []step{
			{"set a timer", set, []string{"For how long?"}, true},
			{"five minutes", response, []string{"OK, five minutes, starting now."}, false},
		})
		timers := r.Sched.List()
		require.Len(t, timers, 1)
		assert.Equal(t, ID, timers[0].SkillID)
		assert.Equal(t, "default", timers[0].BusSession, "it rings where it was asked for")
		assert.JSONEq(t, fmt.Sprintf(`{"seconds":300,"due_ms":%d}`, timers[0].Due.UnixMilli()), string(timers[0].Memo),
			"the memo says how long and when it is due")

		time.Sleep(time.Minute) // and the two seconds "OK, five minutes, starting now." took
		play(t, r, []step{{"how much time is left on the timer", ID + ":" + IntentTimeLeft,
			[]string{"There's three minutes and fifty eight seconds left on your timer."}, false}})

		before := len(r.Voice.Said())
		time.Sleep(time.Until(timers[0].Due))
		synctest.Wait() // the alarm rings, its first line being said
		ringing := r.Voice.Said()[before:]
		assert.Equal(t, []string{"Your five minute timer is done!"}, ringing)
		assert.Equal(t, []string{"sfx:" + AlarmSound}, r.Sounds.Played())

		require.NoError(t, r.Stop(ID))
		synctest.Wait()
		time.Sleep(time.Minute)
		assert.Len(t, r.Voice.Said()[before:], 1, "stop ended the alarm")
		n, err := r.Fired()
		assert.Equal(t, 1, n)
		assert.NoError(t, err, "a stopped alarm is no failure")
		assert.Empty(t, r.Sched.List(), "the timer is done")
	})
}

// TestAlarmRingsBoundedTimes: set in one go, the alarm rings
// DefaultAlarmRepeats times and stops by itself.
func TestAlarmRingsBoundedTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rig.Options{SayTime: time.Second})
		play(t, r, []step{
			{"set a timer for ten seconds", set, []string{"OK, ten seconds, starting now."}, false},
		})
		time.Sleep(10 * time.Second)
		time.Sleep(time.Minute)
		n, err := r.Fired()
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		said := r.Voice.Said()[1:]
		assert.Len(t, said, DefaultAlarmRepeats)
		for _, s := range said {
			assert.Equal(t, "Your ten second timer is done!", s)
		}
		assert.Len(t, r.Sounds.Played(), DefaultAlarmRepeats)
		assert.Empty(t, r.Sched.List())
	})
}

// TestNoMatchLadder: the QN factory's no-match ladder (spec/jibo.md §5.3):
// Errors/NM prompts of index 1 and 2, then FinalNoMatch and the graph's
// give-up node.
func TestNoMatchLadder(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"re-asks twice, then gives up", []step{
			{"set a timer", set, []string{"For how long?"}, true},
			{"banana", response, []string{"Sorry, how many minutes or seconds?"}, true},
			{"banana", response, []string{"I still didn't get that. Say something like", "five minutes."}, true},
			{"banana", response, []string{"Sorry, I didn't catch how long. Ask me again when you're ready."}, false},
		}},
		{"answers on the second try", []step{
			{"set a timer", set, []string{"For how long?"}, true},
			{"a while", response, []string{"Sorry, how many minutes or seconds?"}, true},
			{"an hour and a half", response, []string{"OK, one hour and thirty minutes, starting now."}, false},
		}},
		{"never mind", []step{
			{"start a timer", set, []string{"For how long?"}, true},
			{"never mind", response, []string{"OK, no timer then."}, false},
		}},
		{"too long an answer", []step{
			{"set a timer", set, []string{"For how long?"}, true},
			{"30 hours", response, []string{"I can set timers from one second up to twenty four hours."}, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				play(t, r, tt.steps)
				if tt.name == "answers on the second try" {
					assert.Len(t, r.Sched.List(), 1)
				} else {
					assert.Empty(t, r.Sched.List(), "no timer was set")
				}
			})
		})
	}
}

func TestInOneGo(t *testing.T) {
	tests := []struct {
		say  string
		said string
		set  time.Duration
	}{
		{"set a timer for ten seconds", "OK, ten seconds, starting now.", 10 * time.Second},
		{"set a five minute timer", "OK, five minutes, starting now.", 5 * time.Minute},
		{"timer for 1 minute 30 seconds", "OK, one minute and thirty seconds, starting now.", 90 * time.Second},
		{"set a timer for half an hour", "OK, thirty minutes, starting now.", 30 * time.Minute},
		{"set a timer for 25 hours", "I can set timers from one second up to twenty four hours.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				play(t, r, []step{{tt.say, set, []string{tt.said}, false}})
				list := r.Sched.List()
				if tt.set == 0 {
					assert.Empty(t, list)
					return
				}
				require.Len(t, list, 1)
				assert.Equal(t, tt.set, time.Until(list[0].Due))
			})
		})
	}
}

func TestCancelAndTimeLeft(t *testing.T) {
	cancel := ID + ":" + IntentCancel
	left := ID + ":" + IntentTimeLeft
	tests := []struct {
		name  string
		set   []string
		steps []step
	}{
		{"nothing to cancel", nil, []step{
			{"cancel the timer", cancel, []string{"You don't have a timer running."}, false},
			{"how much time is left", left, []string{"You don't have a timer running."}, false},
		}},
		{"one timer", []string{"set a timer for five minutes"}, []step{
			{"how much time is left", left, []string{"There's five minutes left on your timer."}, false},
			{"cancel the timer", cancel, []string{"OK, I cancelled your five minute timer."}, false},
			{"cancel my timer", cancel, []string{"You don't have a timer running."}, false},
		}},
		{"a timer of several units", []string{"set a timer for an hour and a half"}, []step{
			{"stop the timer", cancel, []string{"OK, I cancelled your timer for one hour and thirty minutes."}, false},
		}},
		{"two timers", []string{"set a timer for ten minutes", "set a timer for two minutes"}, []step{
			{"how much time is left", left, []string{"You have two timers. The next one rings in two minutes."}, false},
			{"cancel the timers", cancel, []string{"OK, I cancelled your two timers."}, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				for _, u := range tt.set {
					require.NoError(t, r.Say(u).Err)
				}
				play(t, r, tt.steps)
				assert.Empty(t, r.Sched.List())
			})
		})
	}
}

// TestCancelIt: "cancel it" (matched only right after a timer was set)
// cancels the timer just set and no other; when that one is over already,
// it cancels nothing and says so.
func TestCancelIt(t *testing.T) {
	cancelIt := ID + ":" + IntentCancelIt
	tests := []struct {
		name string
		set  []string
		wait time.Duration
		said string
		left []time.Duration // the pending timers' lengths afterwards
	}{
		{"the timer just set", []string{"set a timer for ten minutes"}, 0,
			"OK, I cancelled your ten minute timer.", nil},
		{"of two timers, the one just set", []string{"set a timer for ten minutes", "set a timer for two minutes"}, 0,
			"OK, I cancelled your two minute timer.", []time.Duration{10 * time.Minute}},
		{"the timer just set is over", []string{"set a timer for ten minutes", "set a timer for five seconds"}, ChangeTime + time.Second,
			"That timer is already done.", []time.Duration{10 * time.Minute}},
		{"the timer just set rang, an older one runs", []string{"set a timer for ten minutes", "set a timer for five seconds"}, 90 * time.Second,
			"That timer is already done.", []time.Duration{10 * time.Minute}},
		{"no timer at all", nil, 0, "That timer is already done.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				for _, u := range tt.set {
					require.NoError(t, r.Say(u).Err)
				}
				time.Sleep(tt.wait)
				synctest.Wait()
				turn := r.Dispatch(ID, IntentCancelIt, "cancel it", nil)
				require.NoError(t, turn.Err)
				assert.Equal(t, cancelIt, turn.Dispatched)
				assert.Contains(t, turn.Said, tt.said)
				var left []time.Duration
				for _, tm := range r.Sched.List() {
					left = append(left, tm.Due.Sub(tm.Created))
				}
				assert.Equal(t, tt.left, left)
			})
		})
	}
}

// TestStillRunning: after a stop word that named no timer, the robot
// says which timers still run and how to cancel them, and cancels none.
func TestStillRunning(t *testing.T) {
	tests := []struct {
		name string
		set  []string
		said string
	}{
		{"one timer", []string{"set a timer for ten minutes"},
			"Your ten minute timer is still running. Say 'cancel the timer' to stop it."},
		{"a timer of several units", []string{"set a timer for an hour and a half"},
			"Your timer for one hour and thirty minutes is still running. Say 'cancel the timer' to stop it."},
		{"two timers", []string{"set a timer for ten minutes", "set a timer for two minutes"},
			"Your two timers are still running. Say 'cancel the timers' to stop them."},
		{"none", nil, "You don't have a timer running."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				for _, u := range tt.set {
					require.NoError(t, r.Say(u).Err)
				}
				turn := r.Dispatch(ID, IntentStillRunning, "cancel please", nil)
				require.NoError(t, turn.Err)
				assert.Equal(t, []string{tt.said}, turn.Said)
				assert.Len(t, r.Sched.List(), len(tt.set), "no timer cancelled")
			})
		})
	}
}

// TestCancelWhileRinging: "cancel the timer" while the alarm rings ends
// it, as "stop" does.
func TestCancelWhileRinging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rig.Options{SayTime: 2 * time.Second})
		require.NoError(t, r.Say("set a timer for a minute").Err)
		time.Sleep(time.Minute)
		synctest.Wait()
		// The alarm goes on ringing meanwhile, so its lines may come between.
		turn := r.Say("how much time is left")
		require.NoError(t, turn.Err)
		assert.Contains(t, turn.Said, "Your timer is ringing right now.")
		turn = r.Say("cancel the timer")
		require.NoError(t, turn.Err)
		assert.Contains(t, turn.Said, "OK, I cancelled your one minute timer.")
		time.Sleep(time.Minute)
		n, err := r.Fired()
		assert.Equal(t, 1, n)
		assert.ErrorIs(t, err, context.Canceled, "the alarm's action was cut short by the cancel")
		rings := 0
		for _, s := range r.Voice.Said() {
			if s == "Your one minute timer is done!" {
				rings++
			}
		}
		assert.Less(t, rings, DefaultAlarmRepeats, "the alarm stopped early")
	})
}

// TestRestartContinuesConversation: jibod stops after "For how long?";
// a new host and a new skill over the same state take the answer: node
// ids are deterministic (§4), so the stored session names the same node.
func TestRestartContinuesConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := newRig(t, rig.Options{})
		play(t, first, []step{{"set a timer", set, []string{"For how long?"}, true}})

		second := newRig(t, rig.Options{State: first.State})
		assert.Equal(t, 1, second.Restore(), "the question is put back in response mode")
		play(t, second, []step{{"two minutes", response, []string{"OK, two minutes, starting now."}, false}})
		assert.Len(t, second.Sched.List(), 1)
	})
}

func TestNoScheduler(t *testing.T) {
	r := rig.New(t, rig.Options{})
	s, err := New(Options{Rand: func(int) int { return 0 }, PromptRand: first{}})
	require.NoError(t, err)
	r.Add(s)
	play(t, r, []step{{"set a timer for five minutes", set, []string{"Sorry, I can't keep timers on this robot."}, false}})
}

// TestAlarmWithoutMemo: a timer whose memo is lost still rings.
func TestAlarmWithoutMemo(t *testing.T) {
	s, err := New(Options{Rand: func(int) int { return 0 }, AlarmRepeats: 2, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	for _, memo := range []string{`{"seconds":"x"}`, `{}`, `null`} {
		req := protocol.NewProactiveLaunch(protocol.Context{General: protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US"},
			Skill: protocol.Skill(ID)}, []byte(memo))
		resp, err := s.Handle(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, protocol.TypeSkillAction, resp.Type, memo)
		a, err := jcp.ParseAction(resp.Action.Action)
		require.NoError(t, err)
		rings := a.Behavior.(*jcp.SequenceBehavior).Children
		require.Len(t, rings, 2)
		assert.Equal(t, "<anim name='dance-small' nonBlocking='true'/><sfx name='chime'/>Your timer is done!", rings[0].(*jcp.SLIM).Play.ESML,
			"the first ring dances")
		assert.Equal(t, "<sfx name='chime'/>Your timer is done!", rings[1].(*jcp.SLIM).Play.ESML)
	}
}

func TestOptionsChecked(t *testing.T) {
	_, err := New(Options{AlarmRepeats: MaxAlarmRepeats + 1})
	assert.ErrorContains(t, err, "alarm repeats 21")
}

// TestGraph: the graph as `jibod skills graph jibo/timer` draws it, with
// the QN factory's question as a subgraph.
func TestGraph(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	dot := rig.DOT(t, s.Graph())
	for _, want := range []string{`"0: IntentSplit"`, `"1: Length"`, `"2: QN:SL:AskDuration"`, `"3: NM:SL:AskDuration"`,
		`"8: GiveUp"`, `n1 -> n2 [label="Missing"]`, `"11: Alarm"`, `label="QN MIM: AskDuration"`} {
		assert.Contains(t, dot, want)
	}
}

func TestManifest(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	m := rig.Manifest(t, s, ID)
	assert.True(t, m.Idempotent(IntentTimeLeft))
	assert.False(t, m.Idempotent(IntentSet), "setting twice sets two timers")
}

// TestMissedAlarm: a timer that fell due while the robot was off is
// reported once, without the chime, saying how long ago; one only just
// due (or from a memo without its due time) rings as usual.
func TestMissedAlarm(t *testing.T) {
	tests := []struct {
		name   string
		late   time.Duration
		noDue  bool
		said   []string
		chimes int
	}{
		{"three hours late", 3 * time.Hour, false, []string{"While I was off, your five minute timer went off three hours ago."}, 0},
		{"three days late", 71 * time.Hour, false, []string{"While I was off, your five minute timer went off three days ago."}, 0},
		{"twenty minutes late", 20*time.Minute + 10*time.Second, false, []string{"While I was off, your five minute timer went off twenty minutes ago."}, 0},
		{"just due", 5 * time.Minute, false, repeat("Your five minute timer is done!", DefaultAlarmRepeats), DefaultAlarmRepeats},
		{"an old memo rings", 3 * time.Hour, true, repeat("Your five minute timer is done!", DefaultAlarmRepeats), DefaultAlarmRepeats},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				state := skill.NewMemoryState()
				due := time.Now().Add(-tt.late)
				m := memo{Seconds: 300, DueMS: due.UnixMilli()}
				if tt.noDue {
					m.DueMS = 0
				}
				raw, err := json.Marshal(m)
				require.NoError(t, err)
				require.NoError(t, state.PutTimer(store.Timer{ID: "t-0123456789abcdef", SkillID: ID, BusSession: "default",
					Lang: "en-US", Due: due, Memo: raw, Created: due.Add(-5 * time.Minute)}))
				r := newRig(t, rig.Options{State: state, SayTime: time.Second})
				time.Sleep(time.Minute)
				n, err := r.Fired()
				require.NoError(t, err)
				assert.Equal(t, 1, n)
				assert.Equal(t, tt.said, r.Voice.Said())
				assert.Len(t, r.Sounds.Played(), tt.chimes)
				assert.Empty(t, r.Sched.List(), "the timer is done either way")
			})
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestHowPeopleSayIt: lengths of time in every common form, with the words
// people put around them, and the ways people cancel and ask (issue 23).
func TestHowPeopleSayIt(t *testing.T) {
	sets := []struct {
		say  string
		said string
		set  time.Duration
	}{
		{"timer for ten minutes please", "OK, ten minutes, starting now.", 10 * time.Minute},
		{"set a timer for a quarter of an hour", "OK, fifteen minutes, starting now.", 15 * time.Minute},
		{"timer 90 seconds", "OK, one minute and thirty seconds, starting now.", 90 * time.Second},
		{"set a timer for one and a half minutes", "OK, one minute and thirty seconds, starting now.", 90 * time.Second},
		{"set a timer for an hour and a half", "OK, one hour and thirty minutes, starting now.", 90 * time.Minute},
		{"give me a timer for half an hour", "OK, thirty minutes, starting now.", 30 * time.Minute},
		{"could you set a timer for 20 minutes", "OK, twenty minutes, starting now.", 20 * time.Minute},
		{"remind me in ten minutes", "OK, ten minutes, starting now.", 10 * time.Minute},
		{"start a two and a half minute timer", "OK, two minutes and thirty seconds, starting now.", 150 * time.Second},
		{"i need a timer for forty five minutes", "OK, forty five minutes, starting now.", 45 * time.Minute},
	}
	for _, tt := range sets {
		t.Run(tt.say, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				play(t, r, []step{{tt.say, set, []string{tt.said}, false}})
				list := r.Sched.List()
				require.Len(t, list, 1)
				assert.Equal(t, tt.set, time.Until(list[0].Due))
			})
		})
	}
	cancel, left := ID+":"+IntentCancel, ID+":"+IntentTimeLeft
	for _, say := range []string{"kill the timer", "get rid of the timer", "never mind the timer", "i don't need the timer anymore", "scrap that timer"} {
		t.Run(say, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				require.NoError(t, r.Say("set a timer for five minutes").Err)
				play(t, r, []step{
					{"how much longer on my timer", left, []string{"There's five minutes left on your timer."}, false},
					{say, cancel, []string{"OK, I cancelled your five minute timer."}, false},
				})
				assert.Empty(t, r.Sched.List())
			})
		})
	}
	t.Run("for how long", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, rig.Options{})
			play(t, r, []step{
				{"i need a timer", set, []string{"For how long?"}, true},
				{"a minute and a half please", response, []string{"OK, one minute and thirty seconds, starting now."}, false},
			})
		})
	})
}

// TestJustSetIsRecent: "make it five" and "cancel it" act on the timer
// just set only while it is at most ChangeTime old, even when the
// context naming it is still live (kept stale across a restart): then
// "make it five" sets a new timer and leaves the old one, and "cancel it"
// cancels nothing.
func TestJustSetIsRecent(t *testing.T) {
	tests := []struct {
		name   string
		intent string
		say    string
		slots  map[string]string
		wait   time.Duration
		left   []time.Duration
	}{
		{"make it five, just set", IntentChange, "make it five minutes", map[string]string{SlotDuration: "five minutes"},
			0, []time.Duration{5 * time.Minute}},
		{"make it five, set long ago", IntentChange, "make it five minutes", map[string]string{SlotDuration: "five minutes"},
			ChangeTime + time.Second, []time.Duration{10 * time.Minute, 5 * time.Minute}},
		{"cancel it, just set", IntentCancelIt, "cancel it", nil, 0, nil},
		{"cancel it, set long ago", IntentCancelIt, "cancel it", nil, ChangeTime + time.Second, []time.Duration{10 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rig.Options{})
				require.NoError(t, r.Say("set a timer for ten minutes").Err)
				list := r.Sched.List()
				require.Len(t, list, 1)
				time.Sleep(tt.wait)
				synctest.Wait()
				r.KeepContext(ID+":"+ContextSet, list[0].ID, ChangeTurns)
				turn := r.Dispatch(ID, tt.intent, tt.say, tt.slots)
				require.NoError(t, turn.Err)
				var left []time.Duration
				for _, tm := range r.Sched.List() {
					left = append(left, tm.Due.Sub(tm.Created))
				}
				sort.Slice(left, func(i, j int) bool { return left[i] > left[j] })
				assert.Equal(t, tt.left, left)
			})
		})
	}
}

// TestChangeIt: "make it five" right after a timer was set replaces that
// timer and says it changed; when that timer is gone already (it rang or
// was cancelled) the person still asked for a timer of that length, so
// one is started and said to be started, never "changed". A bare number
// takes the unit of the timer just set, minutes when it is gone.
func TestChangeIt(t *testing.T) {
	change := ID + ":" + IntentChange
	tests := []struct {
		name   string
		before []string // said first, in the session
		wait   time.Duration
		slots  map[string]string
		said   string
		left   []time.Duration // the pending timers' lengths afterwards, longest first
		// cancelFails: cancelling the old timer fails (the disk), not
		// because it is gone.
		cancelFails bool
	}{
		{"the timer just set runs", []string{"set a timer for ten minutes"}, 0,
			map[string]string{SlotDuration: "five minutes"}, "OK, five minutes instead, starting now.", []time.Duration{5 * time.Minute}, false},
		{"a bare number, in the unit of the timer just set", []string{"set a timer for ten seconds"}, 0,
			map[string]string{SlotAmount: "twenty"}, "OK, twenty seconds instead, starting now.", []time.Duration{20 * time.Second}, false},
		{"the timer just set rang", []string{"set a timer for five seconds"}, 90 * time.Second,
			map[string]string{SlotDuration: "five minutes"}, "OK, five minutes, starting now.", []time.Duration{5 * time.Minute}, false},
		{"the timer just set rang, an older one runs", []string{"set a timer for ten minutes", "set a timer for five seconds"}, 90 * time.Second,
			map[string]string{SlotDuration: "five minutes"}, "OK, five minutes, starting now.", []time.Duration{10 * time.Minute, 5 * time.Minute}, false},
		{"a bare number after it rang: minutes", []string{"set a timer for ten seconds"}, 90 * time.Second,
			map[string]string{SlotAmount: "five"}, "OK, five minutes, starting now.", []time.Duration{5 * time.Minute}, false},
		{"the timer just set was cancelled", []string{"set a timer for ten minutes", "cancel the timer"}, 0,
			map[string]string{SlotDuration: "five minutes"}, "OK, five minutes, starting now.", []time.Duration{5 * time.Minute}, false},
		{"the old timer cannot be cancelled: nothing more is started", []string{"set a timer for ten minutes"}, 0,
			map[string]string{SlotDuration: "five minutes"}, "Sorry, I couldn't set that timer.", []time.Duration{10 * time.Minute}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var wrap func(Timers) Timers
				if tt.cancelFails {
					wrap = func(tm Timers) Timers { return cancelFails{tm} }
				}
				r := newRigWith(t, rig.Options{}, wrap)
				var justSet string
				for _, u := range tt.before {
					had := map[string]bool{}
					for _, tm := range r.Sched.List() {
						had[tm.ID] = true
					}
					require.NoError(t, r.Say(u).Err)
					for _, tm := range r.Sched.List() {
						if !had[tm.ID] {
							justSet = tm.ID
						}
					}
				}
				require.NotEmpty(t, justSet)
				time.Sleep(tt.wait)
				synctest.Wait()
				// The context still names the timer just set, as it does
				// within its two utterances.
				r.KeepContext(ID+":"+ContextSet, justSet, ChangeTurns)
				turn := r.Dispatch(ID, IntentChange, "make it five", tt.slots)
				require.NoError(t, turn.Err)
				assert.Equal(t, change, turn.Dispatched)
				assert.Equal(t, []string{tt.said}, turn.Said)
				var left []time.Duration
				for _, tm := range r.Sched.List() {
					left = append(left, tm.Due.Sub(tm.Created))
				}
				sort.Slice(left, func(i, j int) bool { return left[i] > left[j] })
				assert.Equal(t, tt.left, left)
			})
		})
	}
}

// cancelFails is timers whose Cancel fails though the timer is there.
type cancelFails struct{ Timers }

func (cancelFails) Cancel(context.Context, string) error {
	return errors.New("the state folder is read-only")
}
