package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/attention"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/idle"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/interrupt"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/settings"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/fallback"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/loop"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/schedule"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// robotConfig is what the robot is built from.
type robotConfig struct {
	Board string // embedded profile name or a profile file path
	// Profile, if set, is the board profile to use instead of loading Board.
	Profile *board.Profile
	// GoTimers runs the motion loop on Go timers instead of precise sleeps
	// (for testing/synctest).
	GoTimers bool
	// RealTime gives the motion loop real-time service where permitted.
	RealTime bool
	// SpeakWPM overrides the sim speaker's rate when >= 0 (0 = instant).
	SpeakWPM int
	Lang     string
	Log      *slog.Logger
	// Tap, if set, sees every bus message from the very first.
	Tap bus.Handler
	// Now is the robot's clock; nil means time.Now.
	Now func() time.Time
	// StateDir keeps skill conversations, timers and run records across
	// restarts; "" or "none" keeps them in memory.
	StateDir string
	// ListenWindow is how long a skill's question waits for its answer;
	// 0 means skill.DefaultListenWindow.
	ListenWindow time.Duration
	// Speech chooses the voice (sim text or espeak-ng) and whether the
	// sound output is recorded to a WAV file.
	Speech speechConfig
	// Offline is the robot's offline switch at start: installed Wasm
	// skills cannot fetch while it is on.
	Offline bool
	// Hub is the cloud hub for remote skills; URL "" means none.
	Hub hubConfig
	// Skills are added after the built-in ones (tests bring their own).
	Skills []skill.Skill
	// LocalSkills are programs of local Go skills (core/skill/local's
	// Main) the robot starts and hosts; one that fails is left out.
	LocalSkills []string
	// LoopWatch is how often the loop file is looked at for changes made
	// by another process; 0 means loop.DefaultWatchInterval.
	LoopWatch time.Duration
}

// robot is the whole runtime wired together: bus, body, skills, intents and
// the utterance pipeline. cmd/jibod owns it; Close stops everything it started.
type robot struct {
	log     *slog.Logger
	bus     *bus.Bus
	body    *board.Body
	parts   *bodyParts // body, motion controller and social state
	exec    *jcp.Executor
	host    *skill.Host
	intents *intent.Service
	// engines are the intent engines behind the service; the speech
	// recogniser's grammar is built from what they hold.
	engines *intentEngines
	orch    *pipeline.Orchestrator
	// stop is the pipeline's stop plugin; the console asks it which lines
	// stop the robot.
	stop   *pipeline.Stop
	tapSub *bus.Subscription
	// attention knows where the listener is and faces them on wake; idle
	// keeps the body alive between turns and at rest after a stop;
	// buttons stop the robot from its head (or stop) button.
	attention *attention.Attention
	idle      *idle.Idle
	buttons   *interrupt.Buttons
	// fallback answers the fallback stage's pings for the fallback skill.
	fallback *fallback.Responder
	// settings are the owner's settings (the volume) kept in the state
	// folder; nil when state is kept in memory.
	settings *settings.File
	// stopHost ends the host's ovos.stop / ovos.stop.ping subscription.
	stopHost func()
	// state is the on-disk skill state; nil when kept in memory.
	state *store.Store
	// conversations is where the host keeps skills' sessions (state, or
	// memory); the hub's remote fallback reads the active cloud skill's.
	conversations skill.Conversations
	// invoker makes every skill call; runs keeps the newest records and
	// runsFile, when there is a state folder, all of them on disk.
	invoker  *invoke.Invoker
	runs     *invoke.Log
	runsFile *invoke.FileLog
	// speech is what the voice options opened (the speaker recording),
	// closed after the body.
	speech *speech
	// sched fires skills' timers; stopSched stops its goroutine and waits.
	sched     *schedule.Scheduler
	stopSched func()
	// wasm runs the installed WebAssembly skills; nil without a state
	// folder.
	wasm *installed.Skills
	// local runs the local Go skills' programs.
	local *local.Processes
	// hub is the link to the cloud hub and its skills; nil without one.
	hub *hubLink
	// pipeline is the default-session pipeline in use.
	pipeline []string
	// stateDir is the state folder, "" when state is kept in memory.
	stateDir string
	// loop is the people the robot knows: the state folder's loop file,
	// or memory. stopLoopWatch stops looking at the file for changes.
	loop          *loop.Store
	stopLoopWatch func()
}

// defaultPipeline is the default-session pipeline (PIPE-13). The two
// engines are interleaved band by band: within a band the template engine
// goes first, as it accounts for every word in order while a keyword match
// leaves words unexplained; across bands the surer band of either engine
// goes first, so a keyword match explaining three words in four beats a
// template match that is mostly open slot text.
var defaultPipeline = []string{"templates-high", "keywords-high", "templates-medium", "keywords-medium", "templates-low", "keywords-low"}

// fallbackUnknown is the last stage of all: the fallback skill that says
// the robot did not understand (fallback.Priority and up), after the
// cloud hub has had its chance.
const fallbackUnknown = "fallback-unknown"

// robotPipeline is the robot's default-session pipeline: stop and converse
// first (STOP-10, CONV-10), then the intent tiers of defaultPipeline, each
// fallback stage right after the last tier of its confidence band
// (FALLBACK-1 §8.2), then the cloud hub's stage when there is a hub, and
// last fallback-unknown: stop, converse, templates-high, keywords-high,
// fallback-high, …, keywords-low, fallback-low[, hub-fallback],
// fallback-unknown.
func robotPipeline(withHub bool) []string {
	out := []string{"stop", "converse"}
	band := func(id string) string { return id[strings.LastIndex(id, "-")+1:] }
	for i, id := range defaultPipeline {
		out = append(out, id)
		if i == len(defaultPipeline)-1 || band(defaultPipeline[i+1]) != band(id) {
			out = append(out, "fallback-"+band(id))
		}
	}
	if withHub {
		out = append(out, hub.FallbackID)
	}
	return append(out, fallbackUnknown)
}

// fallbackStages are the fallback stages of robotPipeline, by priority:
// high (..49), medium [50, 74], low [75, fallback.Priority), unknown
// [fallback.Priority..).
func fallbackStages(f *pipeline.Fallbacks) ([]pipeline.Plugin, error) {
	b := func(v int) *int { return &v }
	var out []pipeline.Plugin
	for _, s := range []struct {
		id     string
		lo, hi *int
	}{{"fallback-high", nil, b(49)}, {"fallback-medium", b(50), b(74)}, {"fallback-low", b(75), b(fallback.Priority - 1)},
		{fallbackUnknown, b(fallback.Priority), nil}} {
		st, err := f.Stage(s.id, s.lo, s.hi)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func loadProfile(name string) (*board.Profile, error) {
	if strings.ContainsAny(name, "/.") {
		return board.LoadFile(name)
	}
	return board.Load(name)
}

// newRobot builds and starts the runtime. On error everything already
// started is stopped again.
func newRobot(ctx context.Context, cfg robotConfig) (_ *robot, err error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if cfg.Lang == "" {
		cfg.Lang = "en-US"
	}
	r := &robot{log: log, bus: bus.New(bus.Options{Logger: log})}
	defer func() {
		if err != nil {
			r.Close(context.Background())
		}
	}()
	if cfg.Tap != nil {
		if r.tapSub, err = r.bus.Subscribe("*", cfg.Tap, bus.WithName("trace"), bus.WithQueue(8192, bus.Block)); err != nil {
			return nil, err
		}
	}

	prof := cfg.Profile
	if prof == nil {
		if prof, err = loadProfile(cfg.Board); err != nil {
			return nil, fmt.Errorf("board %q: %w", cfg.Board, err)
		}
	}
	if cfg.SpeakWPM >= 0 {
		prof.Speaker.WPM = cfg.SpeakWPM
	}
	// The body: devices, the motion control loop (homed here) and the
	// robot's social state, driven by one executor.
	// The owner's settings (the volume) are kept in the state folder.
	if cfg.StateDir != "" && cfg.StateDir != noState {
		if err := prepareStateDir(cfg.StateDir); err != nil {
			return nil, err
		}
		if r.settings, err = settings.Open(filepath.Join(cfg.StateDir, settingsFileName)); err != nil {
			log.Warn("settings unreadable; starting from the defaults", "err", err)
			r.settings = nil
		}
	}
	bo := bodyOptions{Log: log, Observe: r.bodyEvent, GoTimers: cfg.GoTimers, RealTime: cfg.RealTime, Gain: gainOf(startVolume(r.settings)),
		Attention: func(m *motion.Controller) (jcp.Attention, error) {
			var err error
			r.attention, err = attention.New(attention.Config{Bus: r.bus, Motion: m, Logger: log,
				Listener: attention.Direction{YawDeg: prof.Listener.YawDeg, PitchDeg: prof.Listener.PitchDeg}})
			return r.attention, err
		}}
	if r.speech, err = cfg.Speech.apply(&bo, log); err != nil {
		return nil, err
	}
	if r.parts, err = openBody(ctx, prof, bo); err != nil {
		return nil, err
	}
	r.body, r.exec = r.parts.board, r.parts.exec

	engines, err := startIntentEngines(r.bus, log)
	if err != nil {
		return nil, err
	}
	r.intents, r.engines = engines.service, engines

	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	var conversations skill.Conversations
	var timers schedule.Store
	r.runs = invoke.NewLog(invoke.DefaultLogCapacity)
	records := invoke.Recorder(r.runs)
	if cfg.StateDir == "" || cfg.StateDir == noState {
		mem := skill.NewMemoryState()
		conversations, timers = mem, mem
	} else {
		if err := prepareStateDir(cfg.StateDir); err != nil {
			return nil, err
		}
		r.stateDir = cfg.StateDir
		if r.state, err = store.Open(filepath.Join(cfg.StateDir, stateFileName), store.Options{Logger: log, Now: now}); err != nil {
			return nil, err
		}
		if n, err := r.state.DropUnreadable(); err != nil {
			return nil, err
		} else if n > 0 {
			log.Warn("unreadable skill state records dropped", "count", n, "file", r.state.Path())
		}
		conversations, timers = r.state, r.state
		if r.runsFile, err = invoke.OpenFile(filepath.Join(cfg.StateDir, runsFileName), invoke.FileOptions{Logger: log}); err != nil {
			return nil, err
		}
		records = invoke.Tee(r.runs, r.runsFile)
	}
	r.loop = openRobotLoop(r.stateDir, now, log)
	// Every skill call goes through one invoker: the manifest's timeout,
	// the permission gate over its action, a record of the call.
	if r.invoker, err = invoke.New(invoke.Config{Recorder: records, Logger: log,
		Gate: registry.Gate{Animations: r.exec.Animations()}}); err != nil {
		return nil, err
	}
	r.conversations = conversations
	if r.host, err = skill.NewHost(skill.HostConfig{Bus: r.bus, Body: r.exec, Logger: log,
		Robot:         skill.Robot{AccountID: "local", RobotID: "Sim-Jibo-Local-Robot", Release: version},
		Conversations: conversations, ListenWindow: cfg.ListenWindow, Now: now,
		Invoker: r.invoker, Records: records,
		Runtime: runtimeContext(r.parts.state, now, r.loop.Loop)}); err != nil {
		return nil, err
	}
	if r.sched, err = schedule.New(schedule.Config{Store: timers, Now: now, Logger: log,
		Fire: func(ctx context.Context, t store.Timer) {
			switch err := r.host.Proactive(ctx, t); {
			case err == nil:
			case ctx.Err() != nil: // the timer was cancelled while ringing, or jibod is stopping
				log.Info("timer's launch cut short", "skill_id", t.SkillID, "timer", t.ID, "why", context.Cause(ctx))
			default:
				log.Error("timer fired but its skill failed", "skill_id", t.SkillID, "timer", t.ID, "err", err)
			}
		}}); err != nil {
		return nil, err
	}
	skills, err := builtinSkills(skillDeps{Now: now, Sched: r.sched, Volume: volumeControl(r.parts.volume, r.settings, log),
		Skills: r.host.Skills, Log: log, Guesser: newTierGuesser(engines),
		Offline: func() bool { return r.hub != nil && !r.hub.remote.Fallback().Available() }})
	if err != nil {
		return nil, err
	}
	for _, s := range append(skills, cfg.Skills...) {
		if err := r.host.Add(s); err != nil {
			return nil, err
		}
	}
	r.local = local.StartAll(ctx, r.host, cfg.LocalSkills, local.ProcessConfig{Logger: log})
	if r.wasm, err = startWasmSkills(ctx, r.host, cfg.StateDir, cfg.Offline, runtimeContext(r.parts.state, now, r.loop.Loop), now, log); err != nil {
		return nil, err
	}
	if !cfg.Offline { // --offline: the hub is not contacted at all
		if r.hub, err = newHubLink(r, cfg.Hub, cfg.StateDir, cfg.Lang, now, log); err != nil {
			return nil, err
		}
	}
	if r.stopHost, err = r.host.StartStop(); err != nil {
		return nil, err
	}
	if err := r.host.Register(ctx); err != nil {
		return nil, err
	}

	stop, err := pipeline.NewStop(pipeline.StopConfig{Bus: r.bus, Logger: log})
	if err != nil {
		return nil, err
	}
	r.stop = stop
	// Jibo skills take a follow-up answer through a listening SLIM, never a
	// converse poll: only skills hosted elsewhere are polled, so a local
	// skill never costs the poll window.
	// Asked of the registry each time: the hub's proxies come and go with
	// its catalog and take answers through questions too.
	converse, err := pipeline.NewConverse(pipeline.ConverseConfig{Bus: r.bus, Logger: log,
		Eligible: func(id string) bool { _, err := r.host.Registry().Get(id); return err != nil }})
	if err != nil {
		return nil, err
	}
	fallbacks, err := pipeline.NewFallbacks(pipeline.FallbackConfig{Bus: r.bus, Logger: log})
	if err != nil {
		return nil, err
	}
	plugins := []pipeline.Plugin{stop, converse}
	plugins = append(plugins, engines.inOrder(defaultPipeline)...)
	stages, err := fallbackStages(fallbacks)
	if err != nil {
		return nil, err
	}
	plugins = append(plugins, stages...)
	r.pipeline = robotPipeline(r.hub != nil)
	if r.hub != nil { // the hub hears what nothing on the robot understood
		plugins = append(plugins, r.hub.remote.Fallback())
	}
	r.orch, err = pipeline.New(pipeline.Config{Bus: r.bus, Invoker: r.host, Logger: log, Plugins: plugins,
		Listeners: []pipeline.Listener{fallbacks},
		Defaults:  session.Defaults{Lang: cfg.Lang, Pipeline: r.pipeline}})
	if err != nil {
		return nil, err
	}
	if err := r.orch.Start(); err != nil {
		return nil, err
	}
	// The fallback skill registers with the orchestrator's fallback
	// registry, so after it starts.
	if r.fallback, err = fallback.Respond(ctx, r.bus, fallback.ID, fallback.Priority, log); err != nil {
		return nil, err
	}
	if err := r.hub.start(ctx); err != nil {
		return nil, err
	}
	// Conversations cut short by a restart go on, and timers that fell due
	// while the robot was off ring now.
	if n, err := r.host.Restore(ctx); err != nil {
		log.Warn("restoring conversations", "err", err)
	} else if n > 0 {
		log.Info("conversations restored", "count", n)
	}
	schedCtx, stopSched := context.WithCancel(context.WithoutCancel(ctx))
	schedDone := make(chan struct{})
	go func() {
		defer close(schedDone)
		if err := r.sched.Run(schedCtx); err != nil {
			log.Error("timer scheduler stopped", "err", err)
		}
	}()
	r.stopSched = func() { stopSched(); <-schedDone }
	r.stopLoopWatch = watchLoop(ctx, r.loop, r.bus, cfg.LoopWatch, log)
	if err := r.startLife(ctx, log); err != nil {
		return nil, err
	}
	return r, nil
}

// startLife starts what keeps the robot alive between turns: facing who
// wakes it, idle life, and the stop buttons.
func (r *robot) startLife(ctx context.Context, log *slog.Logger) error {
	if err := r.attention.Start(); err != nil {
		return err
	}
	var err error
	if r.idle, err = idle.New(idle.Config{Bus: r.bus, Motion: r.parts.motion, Animations: r.exec.Animations(),
		Busy: r.exec.Busy, Logger: log}); err != nil {
		return err
	}
	if err := r.idle.Start(ctx); err != nil {
		return err
	}
	var names []string
	for _, b := range r.body.Buttons {
		names = append(names, b.Name())
	}
	r.buttons, err = interrupt.WatchButtons(r.bus, names, interrupt.DefaultButtons, log)
	return err
}

// bodyEvent puts what the body does on the bus as jibo.body.<device>.<kind>.
func (r *robot) bodyEvent(ev device.Event) {
	topic := "jibo.body." + ev.Device + "." + ev.Kind
	data := map[string]any{"time": ev.Time.UTC().Format(time.RFC3339Nano)}
	for k, v := range ev.Values {
		data[k] = v
	}
	// Bounded: a full trace queue must not hold a device forever.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := r.bus.Publish(ctx, bus.NewMessage(topic, data)); err != nil {
		r.log.Warn("body event not published", "topic", topic, "err", err)
	}
}

// Close stops the pipeline, the services, the body and the bus, in that
// order, waiting for each.
func (r *robot) Close(ctx context.Context) error {
	var errs []error
	errs = append(errs, r.hub.Close(ctx)) // first: open cloud turns fail, nothing new starts
	if r.stopSched != nil {
		r.stopSched() // before the pipeline: a ringing timer speaks through the host
	}
	if r.stopLoopWatch != nil {
		r.stopLoopWatch() // before the bus: it announces changes there
	}
	r.buttons.Close()
	r.fallback.Close()
	if r.idle != nil {
		r.idle.Close() // before the body: it moves it
	}
	if r.attention != nil {
		r.attention.Close()
	}
	if r.host != nil {
		errs = append(errs, r.host.Close(ctx))
	}
	if r.orch != nil {
		errs = append(errs, r.orch.Close(ctx))
	}
	if r.invoker != nil {
		errs = append(errs, r.invoker.Close(ctx))
	}
	errs = append(errs, r.wasm.Close(ctx)) // after the invoker: no call is left running
	errs = append(errs, r.local.Close(ctx))

	if r.stopHost != nil {
		r.stopHost()
	}
	if r.intents != nil {
		r.intents.Close()
	}
	if r.parts != nil {
		errs = append(errs, r.parts.Close(ctx))
	}
	errs = append(errs, r.speech.Close())
	errs = append(errs, r.bus.Close(ctx))
	if r.state != nil {
		errs = append(errs, r.state.Close())
	}
	if r.runsFile != nil {
		errs = append(errs, r.runsFile.Close())
	}
	return errors.Join(errs...)
}
