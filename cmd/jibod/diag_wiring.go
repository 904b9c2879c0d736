package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/selftest"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// The diagnostics shell's configuration.
const (
	// pinHashEnv holds the technician PIN's hash; it wins over the file.
	pinHashEnv = "JIBOD_SHELL_PIN_HASH"
	// pinFileName is the PIN hash file in the state folder.
	pinFileName = "shell-pin"
	// restartExitCode is the status jibod exits with when the shell asks
	// for a restart with --shell-reboot exit (EX_TEMPFAIL): the service
	// manager starts it again (systemd: Restart=on-failure, or
	// RestartForceExitStatus=75).
	restartExitCode = 75
	// shellOff disables the socket or serial console.
	shellOff = "off"
)

// errRestart ends a run whose shell asked for a restart.
var errRestart = errors.New("restart requested from the diagnostics shell")

// exitCodeError makes jibod exit with a particular status.
type exitCodeError struct {
	code int
	err  error
}

func (e exitCodeError) Error() string { return e.err.Error() }
func (e exitCodeError) Unwrap() error { return e.err }

// shellFlags are run's flags for the diagnostics shell.
type shellFlags struct {
	Socket  string
	Serial  string
	Baud    int
	PINFile string
	Reboot  string
}

// addShellFlags declares the shell flags on fs.
func addShellFlags(fs *flag.FlagSet) *shellFlags {
	f := &shellFlags{}
	fs.StringVar(&f.Socket, "shell-socket", "", "`PATH` of the diagnostics shell's Unix socket, for jibod shell (default $XDG_RUNTIME_DIR/jibod-shell.sock, else shell.sock in the state folder; off: none)")
	fs.StringVar(&f.Serial, "serial", "", "serve the diagnostics shell on this serial device, e.g. /dev/ttyGS0 (USB gadget) or /dev/ttyS0")
	fs.IntVar(&f.Baud, "serial-baud", diag.DefaultBaud, "the serial console's speed in bits per second (8N1, no flow control)")
	fs.StringVar(&f.PINFile, "shell-pin-file", "", "`file` holding the technician PIN's hash from jibod shell --hash-pin (default shell-pin in the state folder; $"+pinHashEnv+" wins)")
	fs.StringVar(&f.Reboot, "shell-reboot", "exit", "what the shell's reboot does: exit (jibod exits with status 75 for its service manager to restart), system (systemctl reboot) or off")
	return f
}

// check validates the shell flags.
func (f *shellFlags) check() error {
	if f.Serial != "" {
		if err := diag.CheckBaud(f.Baud); err != nil {
			return usageError{"--serial-baud: " + err.Error()}
		}
	}
	switch f.Reboot {
	case "exit", "system", shellOff:
	default:
		return usageError{fmt.Sprintf("--shell-reboot %q: want exit, system or off", f.Reboot)}
	}
	return nil
}

// socketPath is where the shell's socket goes; "" for none.
func (f *shellFlags) socketPath(stateDir string) string {
	switch f.Socket {
	case shellOff:
		return ""
	case "":
		if stateDir == noState {
			stateDir = ""
		}
		return diag.DefaultSocket(stateDir)
	}
	return f.Socket
}

// runLogs is the run's logger: the process log on standard error, teed
// into a log book the shell reads, at a level the shell can change.
type runLogs struct {
	log   *slog.Logger
	book  *diag.LogBook
	level *slog.LevelVar
}

// newRunLogger builds the run's logger writing to w at level; the book
// keeps info and above whatever the level.
func newRunLogger(w io.Writer, level string) (*runLogs, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, usageError{fmt.Sprintf("--log-level %q: want debug, info, warn or error", level)}
	}
	rl := &runLogs{book: diag.NewLogBook(diag.DefaultLogCapacity, slog.LevelInfo), level: new(slog.LevelVar)}
	rl.level.Set(l)
	rl.log = slog.New(rl.book.Handler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: rl.level})))
	return rl, nil
}

// readPINHash reads the technician PIN's hash: $JIBOD_SHELL_PIN_HASH, else
// the PIN file (flag, else shell-pin in the state folder). "" when none is
// configured.
func readPINHash(f *shellFlags, stateDir string) (string, error) {
	if h := os.Getenv(pinHashEnv); h != "" {
		return h, nil
	}
	if f.PINFile != "" {
		return diag.ReadPINFile(f.PINFile, true)
	}
	if stateDir == "" || stateDir == noState {
		return "", nil
	}
	return diag.ReadPINFile(filepath.Join(stateDir, pinFileName), false)
}

// shellDeps is what the shell needs beyond the robot.
type shellDeps struct {
	Logs     *runLogs
	StateDir string
	Started  time.Time
	// Mic is the robot's microphone for audio commands; nil when the
	// build can open no capture device and none is in use.
	Mic *audio.Tap
	// Restart ends the run for a restart (--shell-reboot exit).
	Restart func()
	// Listener is the robot's running ear (hearing.listener), for the
	// listen.command_window key; nil when jibod runs without --audio.
	Listener *listen.Listener
}

// listener is the hearing's listener; nil without one (no --audio).
func (h *hearing) listener() *listen.Listener {
	if h == nil {
		return nil
	}
	return h.lis
}

// shellRun is the running shell: its server and the transports' goroutines.
type shellRun struct {
	srv    *diag.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startShell builds the shell on r and serves it on the socket and the
// serial device the flags name. A transport that cannot start is logged,
// not fatal: the robot matters more than its shell.
func startShell(ctx context.Context, r *robot, f *shellFlags, d shellDeps) (*shellRun, error) {
	log := d.Logs.log
	pin, err := readPINHash(f, d.StateDir)
	if err != nil {
		log.Error("shell: technician mode unavailable", "err", err)
		pin = ""
	}
	cfg := diag.Config{Env: shellEnv(r, f, d), Logger: log, PINHash: pin}
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
	s := &shellRun{srv: srv, cancel: cancel}
	if path := f.socketPath(d.StateDir); path != "" {
		if d.StateDir != "" && d.StateDir != noState && strings.HasPrefix(path, d.StateDir) {
			if err := prepareStateDir(d.StateDir); err != nil {
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
				go func() { // owned: stop cancels and waits
					defer s.wg.Done()
					_ = srv.ServeUnix(sctx, l)
				}()
			}
		}
	}
	if f.Serial != "" && f.Serial != shellOff {
		log.Info("shell: serving", "serial", f.Serial, "baud", f.Baud)
		s.wg.Add(1)
		go func() { // owned: stop cancels and waits
			defer s.wg.Done()
			_ = srv.ServeSerial(sctx, f.Serial, f.Baud)
		}()
	}
	return s, nil
}

// stop ends every session and transport and waits for them.
func (s *shellRun) stop() {
	if s == nil {
		return
	}
	s.cancel()
	s.srv.Close()
	s.wg.Wait()
}

// serveStdio runs one shell session on standard input and output (run
// --input shell): raw mode on a terminal, a script otherwise.
func (s *shellRun) serveStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
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
func shellEnv(r *robot, f *shellFlags, d shellDeps) diag.Env {
	env := diag.Env{
		Version: version, Board: r.body.Profile.Name, Started: d.Started,
		Bus: r.bus, Logs: d.Logs.book, Skills: r.host, Runs: r.runs, NotLoaded: notLoaded(r.wasm, r.local), Sessions: r.orch, Pipeline: r.pipeline,
		Motion: shellMotion{r.parts.motion}, Motors: map[string]diag.Motor{}, Home: r.body.MotionConfig().Home, Actions: r.exec,
		BoardCheck: func(ctx context.Context) []diag.DeviceCheck {
			var out []diag.DeviceCheck
			for _, c := range r.body.Check(ctx) {
				out = append(out, diag.DeviceCheck{Device: c.Device, Driver: c.Driver, Where: c.Where, OK: c.OK, Detail: c.Detail, Error: c.Error})
			}
			return out
		},
		Selftest: func(ctx context.Context, report func(diag.Check)) error {
			selftest.Run(ctx, selftestRobot("sim", discardLogger()), func(s selftest.Step) {
				c := diag.Check{Name: s.Name, OK: s.Err == nil, Detail: s.Detail}
				if s.Err != nil {
					c.Detail = s.Err.Error()
				}
				report(c)
			})
			return ctx.Err()
		},
		Settings: runSettings(r, d.Logs),
	}
	// Typed nils would be non-nil interfaces: pass only what exists.
	var cw commandWindow
	if d.Listener != nil {
		cw = d.Listener
	}
	var aw answerWindow
	if r.host != nil {
		aw = r.host
	}
	env.Settings = append(env.Settings, windowSettings(cw, aw)...)
	if d.StateDir != noState {
		env.StateDir = d.StateDir
	}
	if r.wasm != nil {
		env.Installed = skillSyncer{r.wasm}
	}
	if r.hub != nil {
		env.Hub = hubView{link: r.hub, host: r.host}
	}
	if r.loop != nil {
		env.People = peopleView{r.loop}
	}
	for axis, m := range r.body.Motors {
		env.Motors[axis] = m
	}
	if r.body.Power != nil {
		env.Power = r.body.Power
	}
	if r.body.Lights != nil {
		env.Lights = shellLights{r.body.Lights}
	}
	if d.Mic != nil {
		env.Audio = shellAudio{d.Mic}
	}
	switch f.Reboot {
	case "exit":
		env.Reboot = func(context.Context) error { d.Restart(); return nil }
		env.RebootHow = fmt.Sprintf("stop jibod with exit status %d, for its service manager to start it again", restartExitCode)
	case "system":
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
func runSettings(r *robot, logs *runLogs) []diag.Setting {
	settings := []diag.Setting{{
		Key: "log.level", Help: "the process log's level: debug, info, warn or error",
		Get: func() string { return strings.ToLower(logs.level.Level().String()) },
		Check: func(v string) (any, error) {
			var l slog.Level
			if err := l.UnmarshalText([]byte(strings.ToUpper(v))); err != nil {
				return nil, errors.New("want debug, info, warn or error")
			}
			return l, nil
		},
		Apply: func(v any) error { logs.level.Set(v.(slog.Level)); return nil },
	}}
	if vc := volumeControl(r.parts.volume, r.settings, r.log); vc != nil {
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

// The listening windows the shell may set. Narrower than the flags allow
// (--command-window up to 5m, --listen-window up to 1h): a technician
// typing 12m for 12s is refused rather than leaving the robot listening.
const (
	minShellWindow        = time.Second
	maxShellCommandWindow = time.Minute
	maxShellAnswerWindow  = 5 * time.Minute
)

// commandWindow is how long the robot listens for a command after the
// wake word; *listen.Listener is one.
type commandWindow interface {
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
func windowSettings(cw commandWindow, aw answerWindow) []diag.Setting {
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

// hubView is the hub link as the shell sees it: the client's state with
// the link's configuration, and the remote skills' names from the host.
type hubView struct {
	link *hubLink
	host *skill.Host
}

// Link is the link's state now.
func (v hubView) Link() diag.HubLink {
	st := v.link.client.State()
	mode := v.link.cfg.Link
	if mode == "" {
		mode = hub.Persistent // the client's default
	}
	l := diag.HubLink{Status: string(st.Status), Summary: st.String(), URL: st.URL, Mode: string(mode),
		Encoding: st.Encoding, Since: st.Since, Retry: st.Retry}
	if st.Err != nil {
		l.Error = st.Err.Error()
	}
	return l
}

// Skills are the remote skills of the catalog the robot holds, by id.
func (v hubView) Skills() []diag.HubSkill {
	ids := v.link.remote.Skills()
	names := map[string]string{}
	if v.host != nil {
		for _, m := range v.host.Skills() {
			names[m.ID] = m.Name
		}
	}
	out := make([]diag.HubSkill, 0, len(ids))
	for _, id := range ids {
		out = append(out, diag.HubSkill{ID: id, Name: names[id]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
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

// shellMotion is the control loop as the shell sees it.
type shellMotion struct{ *motion.Controller }

// Limits are the axes' limits in the shell's terms.
func (m shellMotion) Limits() (out [motion.NumAxes]diag.AxisLimits) {
	for i, l := range m.Controller.Limits() {
		out[i] = diag.AxisLimits(l)
	}
	return out
}

// shellLights is the LED ring as the shell drives it: colours by name.
type shellLights struct{ a *ledring.Animator }

func (l shellLights) Len() int          { return l.a.Len() }
func (l shellLights) Colours() []string { return device.ColorNames() }

func (l shellLights) Frame() []string {
	var out []string
	for _, p := range l.a.Frame() {
		out = append(out, device.FormatRGB(p))
	}
	return out
}

func (l shellLights) Fill(ctx context.Context, colour string) (string, error) {
	col := device.RGB{A: 0xff}
	if colour != "off" {
		var err error
		if col, err = device.ParseRGB(colour); err != nil {
			return "", fmt.Errorf("%w (names: %s)", err, strings.Join(device.ColorNames(), ", "))
		}
	}
	if err := l.a.Set(ctx, device.Fill(l.a.Len(), col)); err != nil {
		return "", fmt.Errorf("setting the ring: %w", err)
	}
	return device.FormatRGB(col), nil
}

func (l shellLights) Test(ctx context.Context, colours []string, step time.Duration) error {
	prog := ledring.Program{Name: "shell-test"}
	var at time.Duration
	for _, name := range colours {
		col, err := device.ParseRGB(name)
		if err != nil {
			return err
		}
		prog.Keys = append(prog.Keys, ledring.Key{At: at, Color: col})
		at += step
	}
	prog.Keys = append(prog.Keys, ledring.Key{At: at, Pattern: ledring.PatternRainbow})
	prog.Duration = at + 2*step
	return l.a.Play(ctx, prog)
}

// The runtime's parts are what the shell's interfaces ask for.
var (
	_ diag.Audio         = shellAudio{}
	_ diag.Bus           = (*bus.Bus)(nil)
	_ diag.Motion        = shellMotion{}
	_ diag.Lights        = shellLights{}
	_ diag.ActionRunner  = (*jcp.Executor)(nil)
	_ diag.SkillLister   = (*skill.Host)(nil)
	_ diag.RunLister     = (*invoke.Log)(nil)
	_ diag.SessionReader = (*pipeline.Orchestrator)(nil)
	_ diag.Hub           = hubView{}
	_ diag.People        = peopleView{}
	_ commandWindow      = (*listen.Listener)(nil)
	_ answerWindow       = (*skill.Host)(nil)
)
