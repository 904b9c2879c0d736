// Package idle keeps the body alive while nobody talks to the robot, and
// brings it back to rest when it is told to stop.
//
// After a quiet spell (no utterance, speech, skill or wake for
// Config.After, no action running and the body still) the robot breathes:
// a slow sway of torso and head with the ring breathing a dim blue, and
// now and then a glance to one side. Idle life never competes with the
// robot's work: the first sign of activity (someone speaks to it, a skill
// starts, the robot speaks, a wake) ends it gracefully at once, and any
// motion a skill starts takes the body from it outright.
//
// A stop (ovos.stop, or a skill's stop) ends idle life, and once the
// stopped action has let go of the body (the executor halts its motion
// at once), moves the body back to its rest pose (STOP-06, STOP-07) —
// unless a wake came with the stop ("hey jibo" while the robot talks),
// when the body turns toward the speaker instead.
package idle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/motion"
)

// Defaults of Config.
const (
	// DefaultAfter is how long the robot waits in quiet before idling.
	DefaultAfter = 15 * time.Second
	// DefaultGlanceEvery is the mean time between idle glances; each wait
	// is drawn between half and one and a half times it.
	DefaultGlanceEvery = 30 * time.Second
)

// The animations idle life plays, from the motion package's library.
const (
	AnimBreathe     = "idle-breathe"
	AnimGlanceLeft  = "glance-left"
	AnimGlanceRight = "glance-right"
)

// Timings of the stop's return to rest.
const (
	// restPoll is how often a stop looks whether the stopped action has
	// let go of the body.
	restPoll = 20 * time.Millisecond
	// restWait bounds that wait; the body returns to rest then anyway.
	restWait = 2 * time.Second
)

// topics are the messages that mean the robot is, or is about to be,
// busy: people talking to it, skills, its voice, a wake, a stop.
var topics = []string{
	pipeline.TopicHandle, pipeline.TopicSpeak, pipeline.TopicHandled,
	"ovos.intent.handler.*", pipeline.TopicStop,
	topicWake, "jibo.body.speaker.*", "jibo.body.button.*",
}

// topicWake is the wake event (audio/listen TopicWake).
const topicWake = "jibo.audio.wake"

// Motion is the body's control loop; *motion.Controller is one.
type Motion interface {
	Play(a *motion.Animation, o motion.PlayOptions) (*motion.Job, error)
	MoveTo(p motion.Pose, sel motion.Axes) (*motion.Job, error)
	Rest() motion.Pose
	Moving() bool
}

// Animations finds animations by name; *motion.Library is one.
type Animations interface {
	Lookup(ref string) (*motion.Animation, bool)
}

// Config configures an Idle.
type Config struct {
	// Bus tells when the robot is busy. Required.
	Bus *bus.Bus
	// Motion moves the body. Required.
	Motion Motion
	// Animations has AnimBreathe and the glances. Required.
	Animations Animations
	// Busy reports whether an action is running on the body
	// (jcp.Executor.Busy); nil means never.
	Busy func() bool
	// After is the quiet before idling; 0 means DefaultAfter.
	After time.Duration
	// GlanceEvery is the mean time between glances; 0 means
	// DefaultGlanceEvery.
	GlanceEvery time.Duration
	// Rand picks in [0, n); nil means math/rand/v2.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Idle runs idle life and the stop's return to rest. Start runs it, Close
// stops it and waits.
type Idle struct {
	cfg     Config
	log     *slog.Logger
	breathe *motion.Animation
	glances []*motion.Animation

	mu       sync.Mutex
	last     time.Time // the last sign of activity
	inflight int       // utterances between handle and handled
	stopped  bool      // a stop arrived since the loop last looked
	woke     bool      // a wake arrived since the loop last looked
	yield    bool      // activity arrived since the loop last looked
	kick     chan struct{}
	sub      *bus.Subscription
	cancel   context.CancelFunc
	done     chan struct{}
}

// New checks cfg and returns an Idle.
func New(cfg Config) (*Idle, error) {
	switch {
	case cfg.Bus == nil:
		return nil, errors.New("idle: no bus")
	case cfg.Motion == nil:
		return nil, errors.New("idle: no motion")
	case cfg.Animations == nil:
		return nil, errors.New("idle: no animations")
	case cfg.After < 0 || cfg.GlanceEvery < 0:
		return nil, errors.New("idle: negative timing")
	}
	if cfg.After == 0 {
		cfg.After = DefaultAfter
	}
	if cfg.GlanceEvery == 0 {
		cfg.GlanceEvery = DefaultGlanceEvery
	}
	if cfg.Busy == nil {
		cfg.Busy = func() bool { return false }
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.IntN
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	i := &Idle{cfg: cfg, log: log.With("component", "idle"), kick: make(chan struct{}, 1)}
	var ok bool
	if i.breathe, ok = cfg.Animations.Lookup(AnimBreathe); !ok {
		return nil, fmt.Errorf("idle: no animation %q", AnimBreathe)
	}
	for _, name := range []string{AnimGlanceLeft, AnimGlanceRight} {
		a, ok := cfg.Animations.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("idle: no animation %q", name)
		}
		i.glances = append(i.glances, a)
	}
	return i, nil
}

// Start follows the bus and runs the idle loop until Close.
func (i *Idle) Start(ctx context.Context) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.done != nil {
		return errors.New("idle: already started")
	}
	i.last = time.Now()
	sub, err := i.cfg.Bus.SubscribeAll(topics, i.onBus, bus.WithName("idle"), bus.WithQueue(256, bus.DropOldest))
	if err != nil {
		return fmt.Errorf("idle: %w", err)
	}
	i.sub = sub
	ctx, i.cancel = context.WithCancel(context.WithoutCancel(ctx))
	i.done = make(chan struct{})
	go func() { // owned by i: Close cancels it and waits
		defer close(i.done)
		i.loop(ctx)
	}()
	return nil
}

// Close ends idle life (gracefully, if it runs) and waits for the loop.
func (i *Idle) Close() {
	i.mu.Lock()
	sub, cancel, done := i.sub, i.cancel, i.done
	i.sub = nil
	i.mu.Unlock()
	if sub != nil {
		sub.Close()
	}
	if cancel != nil {
		cancel()
		<-done
	}
}

// onBus notes activity and stops; the loop acts on them.
func (i *Idle) onBus(_ context.Context, m bus.Message) {
	i.mu.Lock()
	i.last = time.Now()
	switch m.Type {
	case pipeline.TopicHandle:
		i.inflight++
	case pipeline.TopicHandled:
		i.inflight = max(i.inflight-1, 0)
	case pipeline.TopicStop:
		i.stopped = true
	case topicWake:
		i.woke = true
	case "ovos.intent.handler.start":
		// A skill's stop (STOP-07) is a dispatch like any other.
		if n := m.DataString("intent_name"); n == "stop" || n == "global_stop" {
			i.stopped = true
		}
	}
	i.yield = true
	i.mu.Unlock()
	select {
	case i.kick <- struct{}{}:
	default:
	}
}

// staleAfter forgets utterances that never reported handled, so a lost
// message cannot keep the robot from idling for ever.
const staleAfter = 5 * time.Minute

// loop is the idle life's one goroutine.
func (i *Idle) loop(ctx context.Context) {
	var job *motion.Job     // the idle motion playing, if any
	var restSince time.Time // when a stop asked for the body at rest; zero: none pending
	nextGlance := time.Time{}
	t := time.NewTimer(i.cfg.After)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if job != nil {
				job.Finish()
			}
			return
		case <-i.kick:
		case <-t.C:
		}
		now := time.Now()
		i.mu.Lock()
		stopped, woke, yield, last := i.stopped, i.woke, i.yield, i.last
		i.stopped, i.woke, i.yield = false, false, false
		if i.inflight > 0 && now.Sub(last) > staleAfter {
			i.inflight = 0
		}
		quiet := i.inflight == 0
		i.mu.Unlock()

		if job != nil && (yield || stopped) {
			job.Finish() // gracefully back to rest; a skill's motion takes over at once anyway
			job = nil
		}
		if stopped {
			restSince = now
		}
		if woke {
			restSince = time.Time{} // the body turns toward the speaker instead
		}
		wait := i.cfg.After - now.Sub(last)
		if !restSince.IsZero() {
			switch {
			case !i.cfg.Busy() || now.Sub(restSince) >= restWait:
				if _, err := i.cfg.Motion.MoveTo(i.cfg.Motion.Rest(), motion.AllAxes); err != nil {
					i.log.Info("returning to rest after a stop", "err", err)
				}
				restSince = time.Time{}
			default:
				wait = restPoll
			}
		}
		if job != nil && jobDone(job) {
			job = nil
		}
		if job == nil && restSince.IsZero() && quiet && wait <= 0 && !i.cfg.Busy() && !i.cfg.Motion.Moving() {
			job = i.play(i.breathe, -1)
			nextGlance = now.Add(i.glanceWait())
		}
		if job != nil && job.Name == AnimBreathe && !now.Before(nextGlance) {
			job.Finish()
			job = i.play(i.glances[i.cfg.Rand(len(i.glances))], 1)
		}
		switch {
		case job != nil && job.Name == AnimBreathe:
			wait = time.Until(nextGlance)
		case job != nil:
			wait = restPoll * 10 // a glance: breathe again once it is over
		case wait <= 0:
			wait = restPoll * 10 // quiet, but something still runs
		}
		t.Reset(max(wait, restPoll))
	}
}

// play starts an idle animation; nil when the body cannot.
func (i *Idle) play(a *motion.Animation, loops int) *motion.Job {
	job, err := i.cfg.Motion.Play(a, motion.PlayOptions{Loops: loops})
	if err != nil {
		i.log.Debug("idle animation", "name", a.Name, "err", err)
		return nil
	}
	return job
}

// glanceWait draws the time until the next glance.
func (i *Idle) glanceWait() time.Duration {
	half := i.cfg.GlanceEvery / 2
	return half + time.Duration(i.cfg.Rand(int(i.cfg.GlanceEvery/time.Millisecond)+1))*time.Millisecond
}

func jobDone(j *motion.Job) bool {
	select {
	case <-j.Done():
		return true
	default:
		return false
	}
}
