// Package rig runs built-in skills in tests the way the robot runs them:
// a bus, the robot's intent stack they register with (its paraphrase tier
// included, paraphrase.NewStack), the skill host with a JCP executor over
// a recording voice and sound output, and a timer scheduler firing
// proactive launches. Say plays a user's utterance: it is matched as the
// intent stack's bands and paraphrase stage claim it (or,
// while a skill waits for an answer, handed to that skill as
// "<skill>:response"), dispatched to the host, and what the robot said is
// returned. It works inside a testing/synctest bubble.
package rig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/intent/paraphrase"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/schedule"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/jcp"
)

// Options shape a rig.
type Options struct {
	// Now is the robot's clock; nil means time.Now (the fake clock inside
	// a synctest bubble).
	Now func() time.Time
	// SayTime is how long the voice takes per line; 0 is instant. A line
	// cut short by a stop is still recorded.
	SayTime time.Duration
	// Lang is the language of every turn; "" means en-US.
	Lang string
	// Runtime, if set, is the robot's runtime context in every request.
	Runtime func() protocol.RuntimeContext
	// State keeps conversations and timers; nil means a new one. Give a
	// second rig the first one's State to play a restart of jibod.
	State *skill.MemoryState
	// Fallback, if set, is the bus id of the skill that gets what nothing
	// matched, as "<Fallback>:fallback" (the pipeline's fallback stage).
	Fallback string
}

// models are the paraphrase models the rigs of one test binary trained:
// most rigs host the same skills, and training under the race detector
// takes seconds.
var models = paraphrase.NewMemo()

// Rig is a robot reduced to what skills need.
type Rig struct {
	t   testing.TB
	Bus *bus.Bus
	// Intents is the robot's intent stack, fed by the skills'
	// registrations on Bus.
	Intents *intent.Stack
	Host    *skill.Host
	Sched   *schedule.Scheduler
	State   *skill.MemoryState
	Voice   *Voice
	Sounds  *Sounds
	Now     func() time.Time

	lang     string
	fallback string
	sess     session.Session

	mu sync.Mutex
	// responder is the skill in response mode, "" when none.
	responder string
	// fired counts the timers the scheduler has fired and finished.
	fired   int
	fireErr []error
}

// New builds a rig with no skills; Add them, then Start.
func New(t testing.TB, o Options) *Rig {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r := &Rig{t: t, Voice: &Voice{wait: o.SayTime}, Sounds: &Sounds{}, State: o.State, Now: o.Now, lang: o.Lang, fallback: o.Fallback}
	if r.State == nil {
		r.State = skill.NewMemoryState()
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.lang == "" {
		r.lang = "en-US"
	}
	r.Bus = bus.New(bus.Options{Logger: log})
	t.Cleanup(func() { _ = r.Bus.Close(context.Background()) })
	var err error
	r.Intents, _, err = paraphrase.NewStack(intent.StackConfig{Bus: r.Bus, Logger: log}, paraphrase.TierOptions{Trainer: models.Train})
	require.NoError(t, err)
	require.NoError(t, r.Intents.Start())
	t.Cleanup(r.Intents.Close)

	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: r.Voice, Sounds: r.Sounds, Logger: log})
	require.NoError(t, err)
	r.Host, err = skill.NewHost(skill.HostConfig{Bus: r.Bus, Body: ex, Logger: log, Conversations: r.State,
		Robot: skill.Robot{AccountID: "acct-test", RobotID: "Test-Robot-Rig-One"}, Now: r.Now, Runtime: o.Runtime})
	require.NoError(t, err)
	r.Sched, err = schedule.New(schedule.Config{Store: r.State, Now: r.Now, Logger: log,
		Fire: func(ctx context.Context, tm store.Timer) {
			err := r.Host.Proactive(ctx, tm)
			r.mu.Lock()
			r.fired++
			if err != nil {
				r.fireErr = append(r.fireErr, err)
			}
			r.mu.Unlock()
		}})
	require.NoError(t, err)
	s, _, err := session.Parse(map[string]any{"session_id": session.DefaultID})
	require.NoError(t, err)
	r.sess = s
	return r
}

// Add hosts skills and registers their intents with the intent service;
// the paraphrase tier learns them before it returns.
func (r *Rig) Add(skills ...skill.Skill) {
	r.t.Helper()
	for _, s := range skills {
		require.NoError(r.t, r.Host.Add(s))
	}
	require.NoError(r.t, r.Host.Register(context.Background()))
	require.NoError(r.t, r.Intents.Learn(context.Background()))
}

// Start runs the scheduler until the test ends.
func (r *Rig) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Sched.Run(ctx)
	}()
	r.t.Cleanup(func() { cancel(); <-done })
}

// Restore is what the robot does at start-up: the host puts back the
// conversations waiting for an answer, and the next utterance goes to the
// skill that asked.
func (r *Rig) Restore() int {
	r.t.Helper()
	n, err := r.Host.Restore(context.Background())
	require.NoError(r.t, err)
	convs, err := r.State.Conversations()
	require.NoError(r.t, err)
	for _, c := range convs {
		if c.Listen != nil && c.BusSession == session.DefaultID {
			r.mu.Lock()
			r.responder = c.SkillID
			r.mu.Unlock()
		}
	}
	return n
}

// Turn is what one utterance did.
type Turn struct {
	// Dispatched is "<skill>:<intent>", "" when nothing matched.
	Dispatched string
	// Slots are the matched intent's slots.
	Slots map[string]string
	// Said is what the robot said, line by line.
	Said []string
	// Listening is the skill now waiting for an answer, "" when none.
	Listening string
	// Err is the handler's error.
	Err error
}

// Say plays one utterance of the user.
func (r *Rig) Say(utterance string) Turn {
	r.t.Helper()
	ctx := context.Background()
	r.mu.Lock()
	responder := r.responder
	r.responder = ""
	r.mu.Unlock()
	var d pipeline.Dispatch
	if responder != "" {
		d = r.dispatch(responder, skill.IntentResponse, utterance, nil)
	} else {
		m, _, _, err := r.Intents.Claim(ctx, intent.Query{Hypotheses: intent.Texts(utterance), Lang: r.lang, Session: r.sess})
		require.NoError(r.t, err)
		if m != nil {
			d = r.dispatch(m.SkillID, m.IntentName, utterance, m.Slots)
		}
	}
	if d.SkillID == "" && r.fallback != "" {
		d = r.dispatch(r.fallback, "fallback", utterance, nil)
	}
	if d.SkillID == "" {
		return Turn{}
	}
	return r.play(ctx, d)
}

// KeepContext puts the intent context entry key (value, live for turns
// utterances, no expiry) into the rig's session, as a context kept
// across a restart may hold it.
func (r *Rig) KeepContext(key, value string, turns int64) {
	r.t.Helper()
	s, err := r.sess.WithContext(key, &value, turns, 0)
	require.NoError(r.t, err)
	r.sess = s
}

// Dispatch plays one utterance of the user as the pipeline would dispatch
// it to skillID's intent: for an intent the rig's claim does not reach.
func (r *Rig) Dispatch(skillID, intentName, utterance string, slots map[string]string) Turn {
	r.t.Helper()
	return r.play(context.Background(), r.dispatch(skillID, intentName, utterance, slots))
}

// play runs a dispatch on the host and notes a question it leaves open.
func (r *Rig) play(ctx context.Context, d pipeline.Dispatch) Turn {
	start := r.Voice.count()
	up, err := r.Host.Invoke(ctx, d)
	tn := Turn{Dispatched: d.SkillID + ":" + d.IntentName, Slots: d.Slots, Said: r.Voice.since(start), Err: err}
	if !up.IsZero() {
		// The session keeps the intent context the turn wrote ("cancel
		// it" reads the timer just set from it); the rig keeps response
		// mode its own way. It does not count context turns down.
		r.sess = up.Without(session.FieldResponseMode)
	}
	if rm, ok := up.ResponseMode(); ok {
		r.mu.Lock()
		r.responder = rm.SkillID
		r.mu.Unlock()
		tn.Listening = rm.SkillID
	}
	return tn
}

// Stop is what the pipeline dispatches when the user says "stop" while a
// skill's action runs: "<skill>:stop".
func (r *Rig) Stop(skillID string) error {
	_, err := r.Host.Invoke(context.Background(), r.dispatch(skillID, skill.IntentStop, "stop", nil))
	r.mu.Lock()
	if r.responder == skillID {
		r.responder = ""
	}
	r.mu.Unlock()
	return err
}

// Fired returns how many timers have fired and finished, and the errors
// of those whose skill failed.
func (r *Rig) Fired() (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fired, errors.Join(r.fireErr...)
}

func (r *Rig) dispatch(skillID, intentName, utterance string, slots map[string]string) pipeline.Dispatch {
	if slots == nil {
		slots = map[string]string{}
	}
	m := bus.Message{Type: skillID + ":" + intentName, Data: map[string]any{},
		Context: map[string]any{bus.KeySkillID: skillID, "destination": "test"}}
	return pipeline.Dispatch{Message: m, SkillID: skillID, IntentName: intentName, Lang: r.lang,
		Utterance: utterance, Slots: slots, Session: r.sess}
}

// Manifest checks the manifest a skill declares: valid, and naming the
// skill busID on the bus. It returns it for the skill's own checks.
func Manifest(t testing.TB, s skill.Skill, busID string) *skill.Manifest {
	t.Helper()
	m := s.Manifest()
	require.NoError(t, m.Validate())
	require.Equal(t, busID, m.BusID())
	return m
}

// DOT is a skill's graph as `jibod skills graph` prints it.
func DOT(t testing.TB, g *graph.Graph) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, graph.WriteDOT(&b, g))
	return b.String()
}

// Voice records what the robot says.
type Voice struct {
	wait time.Duration
	mu   sync.Mutex
	said []string
}

// Say records text, then takes the voice's time unless ctx ends first.
func (v *Voice) Say(ctx context.Context, text string) error {
	v.mu.Lock()
	v.said = append(v.said, text)
	v.mu.Unlock()
	if v.wait <= 0 {
		return nil
	}
	t := time.NewTimer(v.wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("saying %q: %w", text, ctx.Err())
	}
}

// Said returns every line said so far.
func (v *Voice) Said() []string { return v.since(0) }

func (v *Voice) count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.said)
}

func (v *Voice) since(n int) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.said[n:]...)
}

// Sounds records the sounds the robot plays, as "<kind>:<name>".
type Sounds struct {
	mu     sync.Mutex
	played []string
}

// PlaySound records the sound.
func (s *Sounds) PlaySound(_ context.Context, kind, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.played = append(s.played, kind+":"+name)
	return nil
}

// Played returns the sounds played so far.
func (s *Sounds) Played() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.played...)
}
