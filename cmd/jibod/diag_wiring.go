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
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
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
	// maxPINFile bounds the PIN hash file.
	maxPINFile = 1024
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
// configured. A PIN file others may write is refused: anyone could set
// their own PIN with it.
func readPINHash(f *shellFlags, stateDir string) (string, error) {
	if h := os.Getenv(pinHashEnv); h != "" {
		return h, nil
	}
	path := f.PINFile
	if path == "" {
		if stateDir == "" || stateDir == noState {
			return "", nil
		}
		path = filepath.Join(stateDir, pinFileName)
	}
	fh, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && f.PINFile == "" {
			return "", nil
		}
		return "", fmt.Errorf("technician PIN file: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return "", fmt.Errorf("technician PIN file: %w", err)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("technician PIN file %s: others may write it (mode %v); chmod 600 it", path, st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxPINFile+1))
	if err != nil {
		return "", fmt.Errorf("technician PIN file: %w", err)
	}
	if len(b) > maxPINFile {
		return "", fmt.Errorf("technician PIN file %s: over %d bytes", path, maxPINFile)
	}
	return strings.TrimSpace(string(b)), nil
}

// shellDeps is what the shell needs beyond the robot.
type shellDeps struct {
	Logs     *runLogs
	StateDir string
	Started  time.Time
	// Mic is the robot's microphone for audio commands; nil when the
	// build can open no capture device and none is in use.
	Mic *micTap
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
		Motion: r.parts.motion, Motors: r.body.Motors, Home: r.body.MotionConfig().Home, Actions: r.exec,
		BoardCheck: func(ctx context.Context) []diag.DeviceCheck {
			var out []diag.DeviceCheck
			for _, c := range r.body.Check(ctx) {
				out = append(out, diag.DeviceCheck{Device: c.Device, Driver: c.Driver, Where: c.Where, OK: c.OK, Detail: c.Detail, Error: c.Error})
			}
			return out
		},
		Selftest: func(ctx context.Context, report func(diag.Check)) error {
			runSelftest(ctx, "sim", discardLogger(), func(name, detail string, err error) {
				c := diag.Check{Name: name, OK: err == nil, Detail: detail}
				if err != nil {
					c.Detail = err.Error()
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
		env.Loop = loopView{r.loop}
	}
	if r.body.Power != nil {
		env.Power = r.body.Power
	}
	if r.body.Lights != nil { // a nil *Animator is not a nil Lights
		env.Lights = r.body.Lights
	}
	if d.Mic != nil {
		env.Audio = d.Mic
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
		out = append(out, durationSetting("listen.command_window",
			"how long the robot listens for a command after \"hey jibo\", a wake button or `audio listen`; from the next wake",
			"12s", maxShellCommandWindow, cw.CommandWindow, cw.SetCommandWindow))
	}
	if aw != nil {
		out = append(out, durationSetting("listen.answer_window",
			"how long the robot waits for the answer to a skill's question; from the next question",
			"45s", maxShellAnswerWindow, aw.ListenWindow, aw.SetListenWindow))
	}
	return out
}

// durationSetting is a key holding a duration from minShellWindow to hi.
func durationSetting(key, help, example string, hi time.Duration, get func() time.Duration, set func(time.Duration) error) diag.Setting {
	rng := shortDuration(minShellWindow) + ".." + shortDuration(hi)
	return diag.Setting{Key: key, Help: help + " (" + rng + ")",
		Get: func() string { return get().String() },
		Check: func(v string) (any, error) {
			d, err := time.ParseDuration(v)
			if err != nil || d < minShellWindow || d > hi {
				return nil, fmt.Errorf("want a duration from %s to %s, like %s", shortDuration(minShellWindow), shortDuration(hi), example)
			}
			return d, nil
		},
		Apply: func(v any) error {
			if err := set(v.(time.Duration)); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			return nil
		}}
}

// shortDuration prints whole minutes as people write them: 1m, not 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
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

// Microphone tap: how long the shell's listeners may fall behind.
const (
	// tapQueue is each shell listener's queue of blocks; a listener that
	// falls further behind loses blocks, never slows the robot's ear.
	tapQueue = 256
	// maxTapListeners bounds shell listeners at once.
	maxTapListeners = 8
)

// micTap is the robot's microphone for the shell: it wraps the capture
// backends so every block the robot's listener reads is also handed to
// the shell's audio level and record, which therefore hear exactly what
// the robot hears, without opening the device a second time.
type micTap struct {
	spec     string // the run's --audio
	backends map[string]audio.Backend

	mu      sync.Mutex
	live    int // tapped sources open
	readers map[chan []int16]struct{}
}

// newMicTap wraps backends; it returns nil when there is nothing the shell
// could hear or list (no device backend and no --audio).
func newMicTap(spec string, backends map[string]audio.Backend) *micTap {
	if spec == "" && len(backends) == 0 {
		return nil
	}
	t := &micTap{spec: spec, readers: map[chan []int16]struct{}{}, backends: map[string]audio.Backend{}}
	for name, b := range backends {
		open := b.Open
		if open != nil {
			b.Open = func(ctx context.Context, arg string) (audio.Source, error) {
				src, err := open(ctx, arg)
				if err != nil {
					return nil, err
				}
				return t.wrap(src), nil
			}
		}
		t.backends[name] = b
	}
	return t
}

// Backends are the wrapped backends to open the robot's source with.
func (t *micTap) Backends() map[string]audio.Backend {
	if t == nil {
		return nil
	}
	return t.backends
}

func (t *micTap) wrap(src audio.Source) audio.Source {
	t.mu.Lock()
	t.live++
	t.mu.Unlock()
	return &tappedSource{Source: src, tap: t}
}

// tappedSource hands a copy of every read to the tap.
type tappedSource struct {
	audio.Source
	tap  *micTap
	once sync.Once
}

func (s *tappedSource) Read(ctx context.Context, buf []int16) (int, error) {
	n, err := s.Source.Read(ctx, buf)
	if n > 0 {
		s.tap.deliver(buf[:n])
	}
	return n, err
}

func (s *tappedSource) Close() error {
	s.once.Do(func() {
		s.tap.mu.Lock()
		s.tap.live--
		s.tap.mu.Unlock()
	})
	return s.Source.Close()
}

func (t *micTap) deliver(pcm []int16) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.readers) == 0 {
		return
	}
	block := append([]int16(nil), pcm...)
	for ch := range t.readers {
		select {
		case ch <- block:
		default: // this listener fell behind: it loses the block
		}
	}
}

// errNoLiveInput is the audio commands' answer when the robot hears
// nothing the shell can tap.
func (t *micTap) errNoLiveInput() error {
	if t.spec == "" {
		return errors.New("no audio input in use: jibod runs without --audio")
	}
	return fmt.Errorf("the robot's audio input (%s) is not a capture device the shell can listen to", t.spec)
}

// listen collects d of what the robot hears.
func (t *micTap) listen(ctx context.Context, d time.Duration) ([]int16, error) {
	t.mu.Lock()
	if t.live == 0 {
		t.mu.Unlock()
		return nil, t.errNoLiveInput()
	}
	if len(t.readers) >= maxTapListeners {
		t.mu.Unlock()
		return nil, fmt.Errorf("too many listeners on the microphone (at most %d)", maxTapListeners)
	}
	ch := make(chan []int16, tapQueue)
	t.readers[ch] = struct{}{}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.readers, ch)
		t.mu.Unlock()
	}()
	want := int(d.Seconds() * audio.SampleRate)
	out := make([]int16, 0, want)
	for len(out) < want {
		select {
		case b := <-ch:
			out = append(out, b[:min(len(b), want-len(out))]...)
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	return out, nil
}

// Devices lists the capture devices of the build's backends, marking the
// one the robot listens on.
func (t *micTap) Devices(ctx context.Context) ([]diag.AudioDevice, error) {
	op := &audio.Opener{Backends: t.backends}
	devs, errs := op.Devices(ctx)
	name, arg, _ := audio.ParseSpec(t.spec)
	var out []diag.AudioDevice
	var names []string
	for n := range devs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, d := range devs[n] {
			out = append(out, diag.AudioDevice{Backend: n, ID: d.ID, Name: d.Name, Default: d.Default,
				InUse: n == name && (arg == d.ID || (arg == "" && d.Default)), Channels: d.Channels, SampleRate: d.SampleRate})
		}
	}
	var errList []error
	for n, err := range errs {
		errList = append(errList, fmt.Errorf("%s: %w", n, err))
	}
	if len(out) == 0 && len(errList) > 0 {
		return nil, errors.Join(errList...)
	}
	return out, nil
}

// Level measures what the robot hears for d.
func (t *micTap) Level(ctx context.Context, d time.Duration) (diag.AudioLevel, error) {
	pcm, err := t.listen(ctx, d)
	if err != nil {
		return diag.AudioLevel{}, err
	}
	peak := 0
	for _, s := range pcm {
		peak = max(peak, abs(int(s)))
	}
	return diag.AudioLevel{RMS: floorDB(audio.LevelDBFS(pcm)), Peak: floorDB(dbfs(peak)), Over: d, Source: t.spec}, nil
}

// Record writes d of what the robot hears to w as a 16 kHz mono WAV.
func (t *micTap) Record(ctx context.Context, d time.Duration, w io.Writer) (int, int, error) {
	pcm, err := t.listen(ctx, d)
	if err != nil {
		return 0, 0, err
	}
	if err := audio.EncodeWAV(w, audio.SampleRate, 1, pcm); err != nil {
		return 0, 0, fmt.Errorf("writing WAV: %w", err)
	}
	return len(pcm), audio.SampleRate, nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// silenceDB is what digital silence reads as: JSON has no -Inf.
const silenceDB = -120

func floorDB(v float64) float64 { return math.Max(v, silenceDB) }

// dbfs is a peak sample's level relative to full scale.
func dbfs(peak int) float64 {
	if peak == 0 {
		return math.Inf(-1)
	}
	return 20 * math.Log10(float64(peak)/32768)
}

// The runtime's parts are what the shell's interfaces ask for.
var (
	_ diag.Audio         = (*micTap)(nil)
	_ diag.Bus           = (*bus.Bus)(nil)
	_ diag.Motion        = (*motion.Controller)(nil)
	_ diag.Lights        = (*ledring.Animator)(nil)
	_ diag.ActionRunner  = (*jcp.Executor)(nil)
	_ diag.SkillLister   = (*skill.Host)(nil)
	_ diag.RunLister     = (*invoke.Log)(nil)
	_ diag.SessionReader = (*pipeline.Orchestrator)(nil)
	_ diag.Hub           = hubView{}
	_ diag.Loop          = loopView{}
	_ commandWindow      = (*listen.Listener)(nil)
	_ answerWindow       = (*skill.Host)(nil)
)
