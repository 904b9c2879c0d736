package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/basics"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// robotConfig is what the robot is built from.
type robotConfig struct {
	Board string // embedded profile name or a profile file path
	// SpeakWPM overrides the sim speaker's rate when >= 0 (0 = instant).
	SpeakWPM int
	Lang     string
	Log      *slog.Logger
	// Tap, if set, sees every bus message from the very first.
	Tap bus.Handler
	// Now is the robot's clock; nil means time.Now.
	Now func() time.Time
}

// robot is the whole runtime wired together: bus, body, skills, intents and
// the utterance pipeline. cmd/jibod owns it; Close stops everything it started.
type robot struct {
	log     *slog.Logger
	bus     *bus.Bus
	body    *board.Body
	exec    *jcp.Executor
	host    *skill.Host
	intents *intent.Service
	orch    *pipeline.Orchestrator
	tapSub  *bus.Subscription
}

// defaultPipeline is the default-session pipeline (PIPE-13).
var defaultPipeline = []string{"templates-high", "templates-medium", "templates-low"}

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

	prof, err := loadProfile(cfg.Board)
	if err != nil {
		return nil, fmt.Errorf("board %q: %w", cfg.Board, err)
	}
	if cfg.SpeakWPM >= 0 {
		prof.Speaker.WPM = cfg.SpeakWPM
	}
	r.body, err = board.Open(ctx, prof, board.Options{Logger: log, Observer: r.bodyEvent})
	if err != nil {
		return nil, fmt.Errorf("opening board %s: %w", prof.Name, err)
	}
	ec := r.body.ExecutorConfig()
	ec.Logger = log
	if r.exec, err = jcp.NewExecutor(ec); err != nil {
		return nil, err
	}

	engine := intent.NewTemplateEngine(intent.EngineOptions{Logger: log})
	r.intents = intent.NewService(r.bus, engine, log)
	if err := r.intents.Start(); err != nil {
		return nil, err
	}

	if r.host, err = skill.NewHost(skill.HostConfig{Bus: r.bus, Body: r.exec, Logger: log,
		Robot: skill.Robot{RobotID: "Sim-Jibo-Local-Robot", Release: version}}); err != nil {
		return nil, err
	}
	b, err := basics.New(basics.Options{Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	if err := r.host.Add(b); err != nil {
		return nil, err
	}
	if err := r.host.Register(ctx); err != nil {
		return nil, err
	}

	var plugins []pipeline.Plugin
	for _, p := range intent.TemplatePlugins(engine) {
		plugins = append(plugins, p)
	}
	r.orch, err = pipeline.New(pipeline.Config{Bus: r.bus, Invoker: r.host, Logger: log, Plugins: plugins,
		Defaults: session.Defaults{Lang: cfg.Lang, Pipeline: defaultPipeline}})
	if err != nil {
		return nil, err
	}
	if err := r.orch.Start(); err != nil {
		return nil, err
	}
	return r, nil
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
	if r.orch != nil {
		errs = append(errs, r.orch.Close(ctx))
	}
	if r.intents != nil {
		r.intents.Close()
	}
	if r.body != nil {
		errs = append(errs, r.body.Close())
	}
	errs = append(errs, r.bus.Close(ctx))
	return errors.Join(errs...)
}
