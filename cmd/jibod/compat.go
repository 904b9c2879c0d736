package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline/scenario"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/people"
	"github.com/openjibo/jibod/core/skill/schedule"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/jcp/character"
	"github.com/openjibo/jibod/motion"
)

// This file keeps the names the hearing files and the tool commands use
// (they are being changed on other branches: the hearing work and the
// tools' move to their packages) over core/runtime, so those branches
// merge unchanged; each name goes when its last user has moved.

type (
	bodyOptions = runtime.BodyOptions
	hubConfig   = runtime.HubConfig
	utterer     = console.Utterer
)

const (
	noState           = runtime.NoState
	stateDirEnv       = runtime.StateDirEnv
	stateFileName     = runtime.StateFileName
	runsFileName      = runtime.RunsFileName
	skillsDirName     = runtime.SkillsDirName
	wasmCacheDirName  = runtime.CacheDirName
	skillDataFileName = runtime.SkillDataFileName
	// keyInput is the context key the text inputs put on their entries.
	keyInput = console.KeyInput
)

var (
	defaultStateDir = runtime.DefaultStateDir
	loadProfile     = runtime.LoadProfile
)

// paraphraseTrainer is how the paraphrase tier trains: nil (its own
// training) in jibod; the tests, which start many robots on the same
// skills in one process, remember the models (paraphrase.Memo).
var paraphraseTrainer runtime.Trainer

// robotConfig is runtime.Config with the voice options (audio_wiring.go)
// the runtime is built with.
type robotConfig struct {
	Board        string
	Profile      *board.Profile
	GoTimers     bool
	RealTime     bool
	SpeakWPM     int
	Lang         string
	Log          *slog.Logger
	Tap          bus.Handler
	TracePath    string
	TraceOut     io.Writer
	Now          func() time.Time
	StateDir     string
	ListenWindow time.Duration
	Offline      bool
	Hub          hubConfig
	Skills       []skill.Skill
	LocalSkills  []string
	LoopWatch    time.Duration
	// Speech chooses the voice (sim text or espeak-ng) and whether the
	// sound output is recorded to a WAV file; what it opens is closed
	// with the robot.
	Speech speechConfig
}

// runtimeConfig is c for runtime.New, with this build's version and
// paraphrase training.
func (c robotConfig) runtimeConfig() runtime.Config {
	return runtime.Config{Board: c.Board, Profile: c.Profile, GoTimers: c.GoTimers, RealTime: c.RealTime,
		SpeakWPM: c.SpeakWPM, Lang: c.Lang, Log: c.Log, Tap: c.Tap, TracePath: c.TracePath, TraceOut: c.TraceOut, Now: c.Now, StateDir: c.StateDir,
		ListenWindow: c.ListenWindow, Offline: c.Offline, Hub: c.Hub, Skills: c.Skills, LocalSkills: c.LocalSkills,
		LoopWatch: c.LoopWatch, Version: version, Trainer: paraphraseTrainer}
}

// robot is a running runtime with the parts the hearing files and the
// tools reach for.
type robot struct {
	*runtime.Robot
	bus      *bus.Bus
	body     *board.Body
	parts    *bodyParts
	exec     *jcp.Executor
	host     *skill.Host
	intents  *intent.Stack
	loop     *people.Store
	sched    *schedule.Scheduler
	pipeline []string
	stateDir string
	// speech is what the voice options opened (the speaker recording),
	// closed after the robot.
	speech *speech
}

// newRobot opens the voice options and builds and starts the runtime
// (runtime.New) with them.
func newRobot(ctx context.Context, cfg robotConfig) (*robot, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	var voice bodyOptions
	sp, err := cfg.Speech.apply(&voice, log)
	if err != nil {
		return nil, err
	}
	rc := cfg.runtimeConfig()
	rc.Sound = runtime.Sound{WrapAudioOut: voice.WrapAudioOut, Voice: voice.Voice}
	rt, err := runtime.New(ctx, rc)
	if err != nil {
		_ = sp.Close()
		return nil, err
	}
	b := rt.Body()
	return &robot{Robot: rt, bus: rt.Bus(), body: b.Board, parts: partsOf(b), exec: b.Exec, host: rt.Host(),
		intents: rt.Intents(), loop: rt.People(), sched: rt.Scheduler(), pipeline: rt.Pipeline(), stateDir: rt.StateDir(),
		speech: sp}, nil
}

// Close stops the robot, then finishes the speaker recording and
// releases the speaker.
func (r *robot) Close(ctx context.Context) error {
	return errors.Join(r.Robot.Close(ctx), r.speech.Close())
}

// bodyParts is a body (runtime.Body) as the tools reach for it.
type bodyParts struct {
	b      *runtime.Body
	board  *board.Body
	motion *motion.Controller
	state  *character.State
	exec   *jcp.Executor
	volume *device.Volume
}

func partsOf(b *runtime.Body) *bodyParts {
	return &bodyParts{b: b, board: b.Board, motion: b.Motion, state: b.State, exec: b.Exec, volume: b.Volume}
}

// openBody opens a body on its own (runtime.OpenBody).
func openBody(ctx context.Context, prof *board.Profile, o bodyOptions) (*bodyParts, error) {
	b, err := runtime.OpenBody(ctx, prof, o)
	if err != nil {
		return nil, err
	}
	return partsOf(b), nil
}

// Close closes the body.
func (p *bodyParts) Close(ctx context.Context) error { return p.b.Close(ctx) }

// buildIntentStack builds an intent stack (runtime.NewIntentStack).
func buildIntentStack(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error) {
	return runtime.NewIntentStack(b, log, explain, paraphraseTrainer)
}

// scenarioIntents is the scenario runner's intent stack (scenario.Options).
func scenarioIntents(b *bus.Bus, log *slog.Logger) (scenario.IntentStack, error) {
	return buildIntentStack(b, log, false)
}

// newUtterer is console.NewUtterer.
func newUtterer(b *bus.Bus, source string) (*utterer, error) { return console.NewUtterer(b, source) }
