// Package runtime is the robot's composition root: New builds the whole
// robot from typed parts (the bus, the body, the intent stack, the skills
// and their host, the utterance pipeline with its order policy, the hub
// link, the people it knows, the voice and the ear) and starts it; Close
// stops every part it started, in order, and waits for each. The diagnostics shell, the web
// page and the text console are started on a running robot and stopped
// with it. cmd/jibod parses flags and calls this package.
package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/attention"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/idle"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/interrupt"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/settings"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/fallback"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/people"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/schedule"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// Config is what the robot is built from.
type Config struct {
	Board string // embedded profile name or a profile file path
	// Profile, if set, is the board profile to use instead of loading Board.
	Profile *board.Profile
	// GoTimers runs the motion loop on Go timers instead of precise sleeps
	// (for testing/synctest).
	GoTimers bool
	// RealTime gives the motion loop real-time service where permitted.
	RealTime bool
	// LoopProcess runs the motion loop in a process of its own
	// (BodyOptions.LoopProcess).
	LoopProcess bool
	// SpeakWPM overrides the sim speaker's rate when >= 0 (0 = instant).
	SpeakWPM int
	// Lang is the default language; "" means en-US.
	Lang string
	Log  *slog.Logger
	// Tap, if set, sees every bus message from the very first.
	Tap bus.Handler
	// TracePath, if set (and Tap is not), writes every bus message from
	// the very first as JSON lines: "-" to TraceOut, flushed at each
	// message, anything else to a file created there. Close flushes and
	// closes it after the bus.
	TracePath string
	TraceOut  io.Writer
	// Now is the robot's clock; nil means time.Now.
	Now func() time.Time
	// StateDir keeps skill conversations, timers and run records across
	// restarts; "" or NoState keeps them in memory.
	StateDir string
	// ListenWindow is how long a skill's question waits for its answer;
	// 0 means skill.DefaultListenWindow.
	ListenWindow time.Duration
	// Hearing is the robot's voice (Hearing.Speech: the speaker, its
	// recording, another voice) and its ear (Hearing.Audio; "" hears
	// nothing): New opens the voice before the body and starts the
	// listener last; Close stops the listener first and releases the
	// speaker after the body's last word.
	Hearing hearing.Config
	// Recognizer builds the speech recogniser; nil is this build's
	// (hearing.NewRecognizer). Tests bring their own.
	Recognizer hearing.RecognizerFunc
	// Offline is the robot's offline switch at start: installed Wasm
	// skills cannot fetch while it is on, and the hub is not contacted.
	Offline bool
	// Hub is the cloud hub for remote skills; URL "" means none.
	Hub HubConfig
	// Skills are added after the built-in ones (tests bring their own).
	Skills []skill.Skill
	// LocalSkills are programs of local Go skills (core/skill/local's
	// Main) the robot starts and hosts; one that fails is left out.
	LocalSkills []string
	// LoopWatch is how often the people file is looked at for changes
	// made by another process; 0 means people.DefaultWatchInterval.
	LoopWatch time.Duration
	// Version is the release the robot reports to skills, the hub, the
	// shell and the web page; "" means "dev".
	Version string
	// Trainer trains the paraphrase tier; nil is its own training.
	Trainer Trainer
}

// Robot is the whole runtime wired together: bus, body, skills, intents
// and the utterance pipeline. Close stops everything it started.
type Robot struct {
	log     *slog.Logger
	version string
	trainer Trainer
	bus     *bus.Bus
	body    *Body
	// intents is the intent stack; the speech recogniser's grammar is
	// built from what its engines hold.
	intents *intent.Stack
	orch    *pipeline.Orchestrator
	// stop is the pipeline's stop plugin; the console asks it which lines
	// stop the robot.
	stop   *pipeline.Stop
	tapSub *bus.Subscription
	// trace writes the bus to traceFile (nil for standard output).
	trace     *bus.Tap
	traceFile *os.File
	host      *skill.Host
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
	// people are the people the robot knows: the state folder's people
	// file, or memory. stopPeopleWatch stops looking at the file.
	people          *people.Store
	stopPeopleWatch func()
	// speech is what the voice opened (the speaker, its recording),
	// released after the body.
	speech *hearing.Output
	// mic is the microphone the shell hears through (a tap on the
	// capture backends); nil when there is none. freeBackends releases
	// the backends after the listener.
	mic          *audio.Tap
	freeBackends func() error
	// hearing is the running listener; nil when the robot does not hear.
	hearing *hearing.Listening

	// services are the shell, the web page and the console started on
	// the robot, stopped first by Close (last started, first stopped).
	mu       sync.Mutex
	services []func()
}

// New builds and starts the runtime. On error everything already
// started is stopped again.
func New(ctx context.Context, cfg Config) (_ *Robot, err error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if cfg.Lang == "" {
		cfg.Lang = "en-US"
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	r := &Robot{log: log, version: cfg.Version, trainer: cfg.Trainer, bus: bus.New(bus.Options{Logger: log})}
	defer func() {
		if err != nil {
			r.Close(context.Background())
		}
	}()
	if err := r.openTrace(&cfg); err != nil {
		return nil, err
	}
	if cfg.Tap != nil {
		if r.tapSub, err = r.bus.Subscribe("*", cfg.Tap, bus.WithName("trace"), bus.WithQueue(8192, bus.Block)); err != nil {
			return nil, err
		}
	}

	prof := cfg.Profile
	if prof == nil {
		if prof, err = LoadProfile(cfg.Board); err != nil {
			return nil, fmt.Errorf("board %q: %w", cfg.Board, err)
		}
	}
	if cfg.SpeakWPM >= 0 {
		prof.Speaker.WPM = cfg.SpeakWPM
	}
	sound, speech, err := cfg.Hearing.Speech.Open(log)
	if err != nil {
		return nil, err
	}
	r.speech = speech
	// The owner's settings (the volume) are kept in the state folder.
	if hasState(cfg.StateDir) {
		if err := PrepareStateDir(cfg.StateDir); err != nil {
			return nil, err
		}
		if r.settings, err = settings.Open(filepath.Join(cfg.StateDir, SettingsFileName)); err != nil {
			log.Warn("settings unreadable; starting from the defaults", "err", err)
			r.settings = nil
		}
	}
	// The body: devices, the motion control loop (homed here) and the
	// robot's social state, driven by one executor.
	bo := BodyOptions{Log: log, Observe: r.bodyEvent, GoTimers: cfg.GoTimers, RealTime: cfg.RealTime, LoopProcess: cfg.LoopProcess,
		Gain: volumeGain(r.settings), WrapAudioOut: sound.WrapAudioOut, Voice: sound.Voice,
		Attention: func(m *motion.Controller) (jcp.Attention, error) {
			var err error
			r.attention, err = attention.New(attention.Config{Bus: r.bus, Motion: m, Logger: log,
				Listener: attention.Direction{YawDeg: prof.Listener.YawDeg, PitchDeg: prof.Listener.PitchDeg}})
			return r.attention, err
		}}
	if r.body, err = OpenBody(ctx, prof, bo); err != nil {
		return nil, err
	}

	if r.intents, err = StartIntentStack(r.bus, log, false, cfg.Trainer); err != nil {
		return nil, err
	}

	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	timers, err := r.openSkillState(cfg.StateDir, now)
	if err != nil {
		return nil, err
	}
	if err := r.startSkills(ctx, cfg, timers, now); err != nil {
		return nil, err
	}
	if err := r.startPipeline(ctx, cfg.Lang); err != nil {
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
	go func() { // owned: stopSched cancels it and waits
		defer close(schedDone)
		if err := r.sched.Run(schedCtx); err != nil {
			log.Error("timer scheduler stopped", "err", err)
		}
	}()
	r.stopSched = func() { stopSched(); <-schedDone }
	r.stopPeopleWatch = r.people.Announce(ctx, r.bus, cfg.LoopWatch, log)
	if err := r.startLife(ctx); err != nil {
		return nil, err
	}
	if err := r.startHearing(ctx, cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// startHearing opens the capture backends, with the tap the shell hears
// through, and starts the listener when cfg asks the robot to hear.
func (r *Robot) startHearing(ctx context.Context, cfg Config) error {
	backends, free := hearing.AudioBackends(r.log)
	r.freeBackends = free
	if r.mic = audio.NewTap(cfg.Hearing.Audio, backends); r.mic != nil {
		backends = r.mic.Backends()
	}
	newASR := cfg.Recognizer
	if newASR == nil {
		newASR = hearing.NewRecognizer
	}
	var err error
	r.hearing, err = hearing.Start(ctx, r.HearingParts(), &cfg.Hearing, cfg.Lang, newASR, backends, r.speech.Meter, r.log)
	return err
}

// HearingParts are the parts of the robot its ear is built from.
func (r *Robot) HearingParts() hearing.Parts {
	p := hearing.Parts{Bus: r.bus, Intents: r.intents, People: r.people, StateDir: r.stateDir}
	if r.orch != nil {
		p.Session = r.orch.DefaultSession
	}
	if r.host != nil {
		p.AnswerRules = r.host.AnswerRules
	}
	if r.body != nil {
		p.Buttons, p.Exec = r.body.Board.Buttons, r.body.Exec
	}
	return p
}

// Hearing is the running listener: Wait waits for a finite source to
// end. Nil when the robot does not hear (its methods still work).
func (r *Robot) Hearing() *hearing.Listening { return r.hearing }

// openTrace opens cfg.TracePath and makes it cfg.Tap.
func (r *Robot) openTrace(cfg *Config) error {
	switch {
	case cfg.TracePath == "":
		return nil
	case cfg.Tap != nil:
		return errors.New("a trace and a tap both given: want one")
	case cfg.TracePath == "-":
		if cfg.TraceOut == nil {
			return errors.New("trace to standard output: no output given")
		}
		r.trace = bus.NewTap(cfg.TraceOut, true, r.log)
	default:
		f, err := os.Create(cfg.TracePath)
		if err != nil {
			return fmt.Errorf("opening trace: %w", err)
		}
		r.trace, r.traceFile = bus.NewTap(f, false, r.log), f
	}
	cfg.Tap = r.trace.Handle
	return nil
}

// openSkillState opens where skills' conversations, timers and run
// records are kept, the state folder or memory, and the people it knows.
// It returns where the timers are kept.
func (r *Robot) openSkillState(stateDir string, now func() time.Time) (schedule.Store, error) {
	r.runs = invoke.NewLog(invoke.DefaultLogCapacity)
	if !hasState(stateDir) {
		mem := skill.NewMemoryState()
		r.conversations = mem
		r.people = openPeople("", now, r.log)
		return mem, nil
	}
	if err := PrepareStateDir(stateDir); err != nil {
		return nil, err
	}
	r.stateDir = stateDir
	var err error
	if r.state, err = store.Open(filepath.Join(stateDir, StateFileName), store.Options{Logger: r.log, Now: now}); err != nil {
		return nil, err
	}
	if n, err := r.state.DropUnreadable(); err != nil {
		return nil, err
	} else if n > 0 {
		r.log.Warn("unreadable skill state records dropped", "count", n, "file", r.state.Path())
	}
	r.conversations = r.state
	if r.runsFile, err = invoke.OpenFile(filepath.Join(stateDir, RunsFileName), invoke.FileOptions{Logger: r.log}); err != nil {
		return nil, err
	}
	r.people = openPeople(r.stateDir, now, r.log)
	return r.state, nil
}

// startSkills builds the skill host with its invoker and timers, adds the
// built-in, given, local and installed skills, links the hub's and
// registers them all.
func (r *Robot) startSkills(ctx context.Context, cfg Config, timers schedule.Store, now func() time.Time) error {
	log := r.log
	records := invoke.Recorder(r.runs)
	if r.runsFile != nil {
		records = invoke.Tee(r.runs, r.runsFile)
	}
	rc := RuntimeContext(r.body.State, now, r.people.Loop)
	// Every skill call goes through one invoker: the manifest's timeout,
	// the permission gate over its action, a record of the call.
	var err error
	if r.invoker, err = invoke.New(invoke.Config{Recorder: records, Logger: log,
		Gate: registry.Gate{Animations: r.body.Exec.Animations()}}); err != nil {
		return err
	}
	if r.host, err = skill.NewHost(skill.HostConfig{Bus: r.bus, Body: r.body.Exec, Logger: log,
		Robot:         skill.Robot{AccountID: "local", RobotID: "Sim-Jibo-Local-Robot", Release: r.version},
		Conversations: r.conversations, ListenWindow: cfg.ListenWindow, Now: now,
		Invoker: r.invoker, Records: records, Runtime: rc, Lexicons: r.intents.Lexicons()}); err != nil {
		return err
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
		return err
	}
	skills, err := BuiltinSkills(SkillDeps{Now: now, Sched: r.sched, Volume: VolumeControl(r.body.Volume, r.settings, log),
		Skills: r.host.Skills, Log: log, Guesser: stackGuesser{r.intents},
		Offline: func() bool { return r.hub != nil && !r.hub.remote.Fallback().Available() }})
	if err != nil {
		return err
	}
	for _, s := range append(skills, cfg.Skills...) {
		if err := r.host.Add(s); err != nil {
			return err
		}
	}
	r.local = local.StartAll(ctx, r.host, cfg.LocalSkills, local.ProcessConfig{Logger: log})
	if r.wasm, err = startWasmSkills(ctx, r.host, cfg.StateDir, cfg.Offline, rc, now, cfg.Trainer, log); err != nil {
		return err
	}
	if !cfg.Offline { // offline: the hub is not contacted at all
		if r.hub, err = newHubLink(r, cfg.Hub, cfg.StateDir, cfg.Lang, now, log); err != nil {
			return err
		}
	}
	if r.stopHost, err = r.host.StartStop(); err != nil {
		return err
	}
	return r.host.Register(ctx)
}

// startPipeline starts the utterance pipeline in the robot's order (see
// plugins) and the fallback skill's responder.
func (r *Robot) startPipeline(ctx context.Context, lang string) error {
	log := r.log
	var err error
	if r.stop, err = pipeline.NewStop(pipeline.StopConfig{Bus: r.bus, Logger: log, Unstopped: r.unstopped}); err != nil {
		return err
	}
	// Jibo skills take a follow-up answer through a listening SLIM, never a
	// converse poll: only skills hosted elsewhere are polled, so a local
	// skill never costs the poll window.
	// Asked of the registry each time: the hub's proxies come and go with
	// its catalog and take answers through questions too.
	converse, err := pipeline.NewConverse(pipeline.ConverseConfig{Bus: r.bus, Logger: log,
		Eligible: func(id string) bool { _, err := r.host.Registry().Get(id); return err != nil }})
	if err != nil {
		return err
	}
	fallbacks, err := pipeline.NewFallbacks(pipeline.FallbackConfig{Bus: r.bus, Logger: log})
	if err != nil {
		return err
	}
	var remote pipeline.Plugin
	if r.hub != nil {
		remote = r.hub.remote.Fallback()
	}
	plugins, ids := Order(r.stop, converse, r.intents, fallbacks, remote)
	r.pipeline = ids
	var keeper pipeline.ContextKeeper
	if r.stateDir != "" {
		// "Cancel it" right after a timer was set still means that timer
		// after a restart, as the timer itself is still there.
		keeper = newContextFile(filepath.Join(r.stateDir, ContextFileName), log)
	}
	r.orch, err = pipeline.New(pipeline.Config{Bus: r.bus, Invoker: r.host, Logger: log, Plugins: plugins,
		Listeners: []pipeline.Listener{fallbacks}, Rules: r.intents.Rules(), Keeper: keeper,
		Defaults: session.Defaults{Lang: lang, Pipeline: r.pipeline}})
	if err != nil {
		return err
	}
	if err := r.orch.Start(); err != nil {
		return err
	}
	// The fallback skill registers with the orchestrator's fallback
	// registry, so after it starts.
	r.fallback, err = fallback.Respond(ctx, r.bus, fallback.ID, fallback.Priority, log)
	return err
}

// Order is the robot's pipeline order policy: stop first (it must win
// over everything), then a conversation's follow-up, the intent stack's
// bands surest first with the fallback stages between them, and last the
// hub (remote, nil for none), which hears what nothing on the robot
// understood. It returns the plugins and the default session's pipeline.
func Order(stop *pipeline.Stop, converse *pipeline.Converse, intents *intent.Stack, fallbacks *pipeline.Fallbacks, remote pipeline.Plugin) ([]pipeline.Plugin, []string) {
	plugins := []pipeline.Plugin{stop, converse}
	plugins = append(plugins, intents.Plugins()...)
	for _, p := range fallbacks.DefaultStages() {
		plugins = append(plugins, p)
	}
	var ids []string
	if remote != nil {
		plugins = append(plugins, remote)
		ids = append(ids, hub.FallbackID)
	}
	return plugins, intents.Pipeline(ids...)
}

// startLife starts what keeps the robot alive between turns: facing who
// wakes it, idle life, and the stop buttons.
func (r *Robot) startLife(ctx context.Context) error {
	if err := r.attention.Start(); err != nil {
		return err
	}
	var err error
	if r.idle, err = idle.New(idle.Config{Bus: r.bus, Motion: r.body.Motion, Animations: r.body.Exec.Animations(),
		Busy: r.body.Exec.Busy, Logger: r.log}); err != nil {
		return err
	}
	if err := r.idle.Start(ctx); err != nil {
		return err
	}
	var names []string
	for _, b := range r.body.Board.Buttons {
		names = append(names, b.Name())
	}
	r.buttons, err = interrupt.WatchButtons(r.bus, names, interrupt.DefaultButtons, r.log)
	return err
}

// bodyEvent puts what the body does on the bus as jibo.body.<device>.<kind>.
func (r *Robot) bodyEvent(ev device.Event) {
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

// addService records a started service's stop, for Close; stop must be
// safe to call more than once.
func (r *Robot) addService(stop func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.services = append(r.services, stop)
}

// Close stops the services started on the robot, the listener, the
// pipeline, the skills, the body, the speaker and the bus, in that
// order, waiting for each.
func (r *Robot) Close(ctx context.Context) error {
	r.mu.Lock()
	services := r.services
	r.services = nil
	r.mu.Unlock()
	for i := len(services) - 1; i >= 0; i-- {
		services[i]()
	}
	var errs []error
	// The listener before the pipeline: it sends commands to it and waits
	// for them to be handled.
	errs = append(errs, r.hearing.Stop())
	if r.freeBackends != nil {
		errs = append(errs, r.freeBackends())
		r.freeBackends = nil
	}
	errs = append(errs, r.hub.Close(ctx)) // first: open cloud turns fail, nothing new starts
	if r.stopSched != nil {
		r.stopSched() // before the pipeline: a ringing timer speaks through the host
	}
	if r.stopPeopleWatch != nil {
		r.stopPeopleWatch() // before the bus: it announces changes there
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
	errs = append(errs, r.body.Close(ctx))
	// After the body: the speaker plays, and the recording takes, the
	// robot's last word.
	errs = append(errs, r.speech.Close())
	r.speech = nil
	errs = append(errs, r.bus.Close(ctx))
	if r.state != nil {
		errs = append(errs, r.state.Close())
	}
	if r.runsFile != nil {
		errs = append(errs, r.runsFile.Close())
	}
	if r.trace != nil { // after the bus: it has seen every message
		errs = append(errs, r.trace.Flush())
	}
	if r.traceFile != nil {
		errs = append(errs, r.traceFile.Close())
	}
	return errors.Join(errs...)
}

// Bus is the robot's message bus.
func (r *Robot) Bus() *bus.Bus { return r.bus }

// Body is the robot's body.
func (r *Robot) Body() *Body { return r.body }

// Host is the skill host.
func (r *Robot) Host() *skill.Host { return r.host }

// Intents is the intent stack.
func (r *Robot) Intents() *intent.Stack { return r.intents }

// People are the people the robot knows.
func (r *Robot) People() *people.Store { return r.people }

// StateDir is the state folder, "" when state is kept in memory.
func (r *Robot) StateDir() string { return r.stateDir }

// Pipeline is the default session's pipeline, in order.
func (r *Robot) Pipeline() []string { return r.pipeline }

// Scheduler keeps the skills' timers.
func (r *Robot) Scheduler() *schedule.Scheduler { return r.sched }

// Settings are the owner's settings kept in the state folder; nil when
// state is kept in memory or the file was unreadable.
func (r *Robot) Settings() *settings.File { return r.settings }

// Log is the robot's logger.
func (r *Robot) Log() *slog.Logger { return r.log }

// Version is the release the robot reports.
func (r *Robot) Version() string { return r.version }

// IsStop reports whether the line s, in lang, stops the robot.
func (r *Robot) IsStop(s, lang string) bool { return r.stop.Says(s, lang) }

// volumeGain is the master volume's gain at start: the owner's volume,
// kept in the settings file, else the default.
func volumeGain(s *settings.File) float64 { return volume.Gain(volume.Saved(s)) }
