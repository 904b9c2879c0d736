package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/runtime/diagbody"
	"github.com/openjibo/jibod/core/selftest"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// The diagnostics shell's configuration.
const (
	// PINHashEnv holds the technician PIN's hash; it wins over the file.
	PINHashEnv = "JIBOD_SHELL_PIN_HASH"
	// PINFileName is the PIN hash file in the state folder.
	PINFileName = "shell-pin"
	// RestartExitCode is the status jibod exits with when the shell asks
	// for a restart with reboot "exit" (EX_TEMPFAIL): the service manager
	// starts it again (systemd: Restart=on-failure, or
	// RestartForceExitStatus=75).
	RestartExitCode = 75
	// ShellOff disables the socket or serial console.
	ShellOff = "off"
)

// What the shell's reboot does (ShellConfig.Reboot).
const (
	RebootExit   = "exit"
	RebootSystem = "system"
	RebootOff    = ShellOff
)

// Logs is the run's logger: the process log, teed into a log book the
// shell reads, at a level the shell can change.
type Logs struct {
	Log   *slog.Logger
	Book  *diag.LogBook
	Level *slog.LevelVar
}

// NewLogs builds the run's logger writing to w at level; the book keeps
// info and above whatever the level.
func NewLogs(w io.Writer, level slog.Level) *Logs {
	l := &Logs{Book: diag.NewLogBook(diag.DefaultLogCapacity, slog.LevelInfo), Level: new(slog.LevelVar)}
	l.Level.Set(level)
	l.Log = slog.New(l.Book.Handler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l.Level})))
	return l
}

// ShellConfig is the diagnostics shell's configuration beyond the robot.
type ShellConfig struct {
	// Socket is the Unix socket's path: "" for the default place (see
	// diag.DefaultSocket), ShellOff for none.
	Socket string
	// Serial is a serial device to serve the shell on, at Baud; "" or
	// ShellOff for none.
	Serial string
	Baud   int
	// PINFile holds the technician PIN's hash; "" means shell-pin in the
	// state folder. $JIBOD_SHELL_PIN_HASH wins over both.
	PINFile string
	// Reboot is what the shell's reboot does: RebootExit, RebootSystem
	// or RebootOff.
	Reboot string
	// Logs are the run's logs, read and levelled by the shell.
	Logs *Logs
	// StateDir is the state folder as given (NoState for none).
	StateDir string
	// Started is when the run started.
	Started time.Time
	// Restart ends the run for a restart (RebootExit).
	Restart func()
}

// socketPath is where the shell's socket goes; "" for none.
func (c ShellConfig) socketPath() string {
	switch c.Socket {
	case ShellOff:
		return ""
	case "":
		stateDir := c.StateDir
		if stateDir == NoState {
			stateDir = ""
		}
		return diag.DefaultSocket(stateDir)
	}
	return c.Socket
}

// readPINHash reads the technician PIN's hash: $JIBOD_SHELL_PIN_HASH, else
// the PIN file (given, else shell-pin in the state folder). "" when none
// is configured.
func (c ShellConfig) readPINHash() (string, error) {
	if h := os.Getenv(PINHashEnv); h != "" {
		return h, nil
	}
	if c.PINFile != "" {
		return diag.ReadPINFile(c.PINFile, true)
	}
	if !hasState(c.StateDir) {
		return "", nil
	}
	return diag.ReadPINFile(filepath.Join(c.StateDir, PINFileName), false)
}

// Shell is the running diagnostics shell: its server and the transports'
// goroutines.
type Shell struct {
	srv    *diag.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// StartShell builds the shell on the robot and serves it on the socket
// and the serial device c names; the robot's Close stops it if Stop was
// not called first. A transport that cannot start is logged, not fatal:
// the robot matters more than its shell.
func (r *Robot) StartShell(ctx context.Context, c ShellConfig) (*Shell, error) {
	if c.Logs == nil {
		c.Logs = &Logs{Log: r.log, Book: diag.NewLogBook(diag.DefaultLogCapacity, slog.LevelInfo), Level: new(slog.LevelVar)}
	}
	log := c.Logs.Log
	pin, err := c.readPINHash()
	if err != nil {
		log.Error("shell: technician mode unavailable", "err", err)
		pin = ""
	}
	cfg := diag.Config{Env: r.shellEnv(c), Logger: log, PINHash: pin}
	srv, err := diag.NewServer(cfg)
	if err != nil && pin != "" {
		log.Error("shell: technician mode unavailable", "err", err)
		cfg.PINHash = ""
		srv, err = diag.NewServer(cfg)
	}
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Shell{srv: srv, cancel: cancel}
	if path := c.socketPath(); path != "" {
		if hasState(c.StateDir) && strings.HasPrefix(path, c.StateDir) {
			if err := PrepareStateDir(c.StateDir); err != nil {
				log.Error("shell: socket not served", "err", err)
				path = ""
			}
		}
		if path != "" {
			if l, err := diag.ListenUnix(path); err != nil {
				log.Error("shell: socket not served", "err", err)
			} else {
				log.Info("shell: serving", "socket", path)
				s.wg.Add(1)
				go func() { // owned: Stop cancels and waits
					defer s.wg.Done()
					_ = srv.ServeUnix(sctx, l)
				}()
			}
		}
	}
	if c.Serial != "" && c.Serial != ShellOff {
		log.Info("shell: serving", "serial", c.Serial, "baud", c.Baud)
		s.wg.Add(1)
		go func() { // owned: Stop cancels and waits
			defer s.wg.Done()
			_ = srv.ServeSerial(sctx, c.Serial, c.Baud)
		}()
	}
	r.addService(s.Stop)
	return s, nil
}

// Stop ends every session and transport and waits for them.
func (s *Shell) Stop() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		s.cancel()
		s.srv.Close()
		s.wg.Wait()
	})
}

// ServeStdio runs one shell session on standard input and output: raw
// mode on a terminal, a script otherwise.
func (s *Shell) ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	in, inOK := stdin.(*os.File)
	out, outOK := stdout.(*os.File)
	var c diag.Conn
	if inOK && outOK {
		var err error
		if c, err = diag.OpenStdio(in, out); err != nil {
			return err
		}
	} else {
		c = diag.Conn{R: stdin, W: stdout, Name: "stdio", Mode: diag.Script}
	}
	err := s.srv.Serve(ctx, c)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// shellEnv is the robot as the shell sees it.
func (r *Robot) shellEnv(c ShellConfig) diag.Env {
	b := r.body.Board
	env := diag.Env{
		Version: r.version, Board: b.Profile.Name, Started: c.Started,
		Bus: r.bus, Logs: c.Logs.Book, Skills: r.host, Runs: r.runs, NotLoaded: notLoaded(r.wasm, r.local), Sessions: r.orch, Pipeline: r.pipeline,
		Motion: r.body.Motion, Motors: map[string]diag.Motor{}, Home: b.MotionConfig().Home, Actions: r.body.Exec,
		BoardCheck: func(ctx context.Context) []diag.DeviceCheck {
			var out []diag.DeviceCheck
			for _, c := range b.Check(ctx) {
				out = append(out, diag.DeviceCheck{Device: c.Device, Driver: c.Driver, Where: c.Where, OK: c.OK, Detail: c.Detail, Error: c.Error})
			}
			return out
		},
		Selftest: func(ctx context.Context, report func(diag.Check)) error {
			start := Selftest(Config{Board: "sim", Log: slog.New(slog.DiscardHandler), Version: r.version, Trainer: r.trainer})
			selftest.Run(ctx, start, func(s selftest.Step) {
				c := diag.Check{Name: s.Name, OK: s.Err == nil, Detail: s.Detail}
				if s.Err != nil {
					c.Detail = s.Err.Error()
				}
				report(c)
			})
			return ctx.Err()
		},
		Settings: r.runSettings(c.Logs),
	}
	// Typed nils would be non-nil interfaces: pass only what exists.
	var aw answerWindow
	if r.host != nil {
		aw = r.host
	}
	var cw CommandWindow
	if l := r.hearing.Listener(); l != nil {
		cw = l
	}
	env.Settings = append(env.Settings, windowSettings(cw, aw)...)
	if c.StateDir != NoState {
		env.StateDir = c.StateDir
	}
	if r.wasm != nil {
		env.Installed = skillSyncer{r.wasm}
	}
	if r.hub != nil {
		env.Hub = hubView{link: r.hub, host: r.host}
	}
	if r.people != nil {
		env.People = peopleView{r.people}
	}
	for axis, m := range b.Motors {
		env.Motors[axis] = m
	}
	if b.Power != nil {
		env.Power = b.Power
	}
	if b.Lights != nil {
		env.Lights = diagbody.NewLights(b.Lights)
	}
	if r.mic != nil {
		env.Audio = shellAudio{r.mic}
	}
	switch c.Reboot {
	case RebootExit:
		env.Reboot = func(context.Context) error { c.Restart(); return nil }
		env.RebootHow = fmt.Sprintf("stop jibod with exit status %d, for its service manager to start it again", RestartExitCode)
	case RebootSystem:
		env.Reboot = systemReboot
		env.RebootHow = "reboot the whole robot (systemctl reboot)"
	}
	return env
}

// systemReboot asks systemd to reboot the machine.
func systemReboot(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "systemctl", "reboot").CombinedOutput()
	if err != nil {
		return fmt.Errorf("systemctl reboot: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// runSettings are the runtime configuration keys of `config get|set`.
func (r *Robot) runSettings(logs *Logs) []diag.Setting {
	settings := []diag.Setting{{
		Key: "log.level", Help: "the process log's level: debug, info, warn or error",
		Get: func() string { return strings.ToLower(logs.Level.Level().String()) },
		Check: func(v string) (any, error) {
			var l slog.Level
			if err := l.UnmarshalText([]byte(strings.ToUpper(v))); err != nil {
				return nil, errors.New("want debug, info, warn or error")
			}
			return l, nil
		},
		Apply: func(v any) error { logs.Level.Set(v.(slog.Level)); return nil },
	}}
	var vol *device.Volume
	if r.body != nil {
		vol = r.body.Volume
	}
	if vc := VolumeControl(vol, r.settings, r.log); vc != nil {
		settings = append(settings, diag.Setting{
			Key: "volume", Help: "the master volume, 0 (silent) to 10",
			Get: func() string { return strconv.Itoa(int(math.Round(vc.Volume() * 10))) },
			Check: func(v string) (any, error) {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 10 {
					return nil, errors.New("want a whole number 0..10")
				}
				return n, nil
			},
			Apply: func(v any) error { return vc.SetVolume(context.Background(), float64(v.(int))/10) },
		})
	}
	return settings
}

// The listening windows the shell may set. Narrower than the run's
// configuration allows (command window up to 5m, answer window up to 1h):
// a technician typing 12m for 12s is refused rather than leaving the
// robot listening.
const (
	minShellWindow        = time.Second
	maxShellCommandWindow = time.Minute
	maxShellAnswerWindow  = 5 * time.Minute
)

// CommandWindow is how long the robot listens for a command after the
// wake word; *listen.Listener is one.
type CommandWindow interface {
	CommandWindow() time.Duration
	SetCommandWindow(d time.Duration) error
}

// answerWindow is how long a skill's question waits for its answer;
// *skill.Host is one.
type answerWindow interface {
	ListenWindow() time.Duration
	SetListenWindow(d time.Duration) error
}

// windowSettings are the listen.* keys of `config get|set`: the command
// window when the robot has an ear (cw), the answer window when it hosts
// skills (aw). A new value applies from the next wake or question.
func windowSettings(cw CommandWindow, aw answerWindow) []diag.Setting {
	var out []diag.Setting
	if cw != nil {
		out = append(out, diag.DurationSetting("listen.command_window",
			"how long the robot listens for a command after \"hey jibo\", a wake button or `audio listen`; from the next wake",
			"12s", minShellWindow, maxShellCommandWindow, cw.CommandWindow, cw.SetCommandWindow))
	}
	if aw != nil {
		out = append(out, diag.DurationSetting("listen.answer_window",
			"how long the robot waits for the answer to a skill's question; from the next question",
			"45s", minShellWindow, maxShellAnswerWindow, aw.ListenWindow, aw.SetListenWindow))
	}
	return out
}

// shellAudio is the robot's microphone as the shell sees it.
type shellAudio struct{ *audio.Tap }

// Devices lists the capture devices, marking the one the robot listens on.
func (a shellAudio) Devices(ctx context.Context) ([]diag.AudioDevice, error) {
	devs, err := a.Tap.Devices(ctx)
	out := make([]diag.AudioDevice, 0, len(devs))
	for _, d := range devs {
		out = append(out, diag.AudioDevice(d))
	}
	return out, err
}

// Level measures what the robot hears for d.
func (a shellAudio) Level(ctx context.Context, d time.Duration) (diag.AudioLevel, error) {
	l, err := a.Tap.Level(ctx, d)
	if err != nil {
		return diag.AudioLevel{}, err
	}
	return diag.AudioLevel{RMS: l.RMS, Peak: l.Peak, Over: d, Source: a.Spec()}, nil
}

// The runtime's parts are what the shell's interfaces ask for.
var (
	_ diag.Audio         = shellAudio{}
	_ diag.Bus           = (*bus.Bus)(nil)
	_ diag.Motion        = (*motion.Controller)(nil)
	_ diag.Lights        = diagbody.Lights{}
	_ diag.ActionRunner  = (*jcp.Executor)(nil)
	_ diag.SkillLister   = (*skill.Host)(nil)
	_ diag.RunLister     = (*invoke.Log)(nil)
	_ diag.SessionReader = (*pipeline.Orchestrator)(nil)
	_ diag.Hub           = hubView{}
	_ diag.People        = peopleView{}
	_ answerWindow       = (*skill.Host)(nil)
)
