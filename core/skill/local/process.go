package local

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/skillhttp"
	"github.com/openjibo/jibod/internal/memfs"
)

// Limits on what a skill process tells the robot, as on a Wasm package.
const (
	// MaxDescriptionBytes bounds a Description.
	MaxDescriptionBytes = 8 << 20
	// MaxFiles, MaxFileBytes and MaxTreeBytes bound its files.
	MaxFiles     = 512
	MaxFileBytes = 256 << 10
	MaxTreeBytes = 4 << 20
	// DefaultStartTimeout bounds starting the program until it is ready.
	DefaultStartTimeout = 30 * time.Second
	// StopTimeout bounds waiting for the program to end once told to.
	StopTimeout = 5 * time.Second
)

// ProcessConfig configures StartProcess.
type ProcessConfig struct {
	// Args are the program's arguments.
	Args []string
	// StartTimeout bounds starting it until it is ready; 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// Logger receives the program's output lines and what happens to it;
	// nil means slog.Default().
	Logger *slog.Logger
}

// Process is a local skill running in a program of its own, which the
// robot started (its Main): a skill.Skill whose requests go to the program
// over its socket. Close stops the program.
type Process struct {
	program string
	log     *slog.Logger
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	dir     string // holds the socket
	client  *skillhttp.Client
	http    *http.Client
	exited  chan struct{} // closed when the program has ended
	waitErr error         // why, once exited is closed
	output  sync.WaitGroup

	manifest *registry.Manifest
	locale   fs.FS
	rules    fs.FS
	listen   []string
	context  map[string][]string
	nodes    map[int]string
	once     sync.Once
}

var (
	_ skill.CheckedSkill = (*Process)(nil)
	_ skill.RuleSkill    = (*Process)(nil)
	_ skill.Questioner   = (*Process)(nil)
	_ skill.ContextGated = (*Process)(nil)
)

// StartProcess starts program (a local skill's own program, see Main),
// waits until it is ready and reads its Description. A program that does
// not get ready within the start timeout, exits, or describes a skill that
// does not check (its manifest, files and their limits) is stopped and
// the error says why.
func StartProcess(ctx context.Context, program string, cfg ProcessConfig) (_ *Process, err error) {
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	p := &Process{program: program, log: log.With("local_skill", program), exited: make(chan struct{})}
	fail := func(err error) (*Process, error) {
		return nil, errors.Join(fmt.Errorf("local skill %s: %w", program, err), p.Close(context.WithoutCancel(ctx)))
	}
	if p.dir, err = os.MkdirTemp("", "jibod-skill-"); err != nil { // 0700: only we connect
		return nil, fmt.Errorf("local skill %s: %w", program, err)
	}
	sock := filepath.Join(p.dir, "skill.sock")
	p.cmd = exec.Command(program, cfg.Args...)
	p.cmd.Env = append(os.Environ(), SocketEnv+"="+sock)
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return fail(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return fail(err)
	}
	if err := p.cmd.Start(); err != nil {
		_ = os.RemoveAll(p.dir)
		return nil, fmt.Errorf("local skill %s: %w", program, err)
	}
	ready := make(chan struct{})
	p.output.Add(2)
	go p.relay(stdout, ready) // owned: ends with the program's output; Close waits
	go p.relay(stderr, nil)
	go func() { // owned: ends with the program; Close waits for exited
		p.output.Wait() // Wait must not run before the pipes are read out
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t := time.NewTimer(cfg.StartTimeout)
	defer t.Stop()
	select {
	case <-ready:
	case <-p.exited:
		return fail(fmt.Errorf("exited before it was ready: %v", p.waitErr))
	case <-t.C:
		return fail(fmt.Errorf("not ready within %v (it prints %q once it serves)", cfg.StartTimeout, Ready))
	case <-ctx.Done():
		return fail(context.Cause(ctx))
	}
	p.http = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		DisableKeepAlives: false,
	}}
	if p.client, err = skillhttp.NewClient("http://skill"+skillhttp.Path, skillhttp.ClientOptions{HTTP: p.http}); err != nil {
		return fail(err)
	}
	dctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	desc, err := p.describe(dctx)
	if err != nil {
		return fail(err)
	}
	if err := p.adopt(desc); err != nil {
		return fail(err)
	}
	p.log.Info("local skill started", "skill_id", p.manifest.ID, "pid", p.cmd.Process.Pid)
	return p, nil
}

// relay logs the program's output lines; the first line Ready on its
// standard output closes ready.
func (p *Process) relay(r io.Reader, ready chan struct{}) {
	defer p.output.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if ready != nil && strings.TrimSpace(line) == Ready {
			close(ready)
			ready = nil
			continue
		}
		p.log.Info("local skill says", "line", line)
	}
	_, _ = io.Copy(io.Discard, r) // a line over the bound: drain, so the program never blocks
}

func (p *Process) describe(ctx context.Context) (*Description, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://skill"+DescribePath, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking its description: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("asking its description: %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxDescriptionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading its description: %w", err)
	}
	if len(b) > MaxDescriptionBytes {
		return nil, fmt.Errorf("its description is over %d bytes", MaxDescriptionBytes)
	}
	var d Description
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("reading its description: %w", err)
	}
	return &d, nil
}

// adopt checks a description and takes the skill it describes.
func (p *Process) adopt(d *Description) error {
	m, err := registry.ParseManifest(d.Manifest)
	if err != nil {
		return fmt.Errorf("its manifest: %w", err)
	}
	if len(d.Files) > MaxFiles {
		return fmt.Errorf("%d files, limit %d", len(d.Files), MaxFiles)
	}
	trees := map[string]*memfs.FS{}
	total := 0
	for name, data := range d.Files {
		top, rest, _ := strings.Cut(name, "/")
		switch {
		case top != LocaleDir && top != RulesDir, !fs.ValidPath(name), rest == "", path.Clean(name) != name:
			return fmt.Errorf("file %q: want a path under %s/ or %s/", name, LocaleDir, RulesDir)
		case len(data) > MaxFileBytes:
			return fmt.Errorf("file %s is %d bytes, limit %d", name, len(data), MaxFileBytes)
		}
		if total += len(data); total > MaxTreeBytes {
			return fmt.Errorf("its files hold more than %d bytes", MaxTreeBytes)
		}
		if trees[top] == nil {
			trees[top] = memfs.New()
		}
		if err := trees[top].File(rest, []byte(data)); err != nil {
			return fmt.Errorf("file %q: %w", name, err)
		}
	}
	p.manifest = m
	if t := trees[LocaleDir]; t != nil {
		if _, err := intent.LoadLocale(t, "."); err != nil {
			return fmt.Errorf("its %s: %w", LocaleDir, err)
		}
		p.locale = t
	}
	if t := trees[RulesDir]; t != nil {
		p.rules = t
	}
	p.listen, p.context = d.ListenRules, d.RequiredContext
	if len(d.Nodes) > 0 {
		p.nodes = map[int]string{}
		for k, v := range d.Nodes {
			id, err := strconv.Atoi(k)
			if err != nil {
				return fmt.Errorf("node id %q: %w", k, err)
			}
			p.nodes[id] = v
		}
	}
	return nil
}

// Manifest returns a copy of the skill's manifest.
func (p *Process) Manifest() *registry.Manifest { return p.manifest.Clone() }

// Locale is the skill's locale tree; nil when it has none.
func (p *Process) Locale() fs.FS { return p.locale }

// Rules is the skill's answer rules tree; nil when it has none.
func (p *Process) Rules() fs.FS { return p.rules }

// ListenRules are the rules its MIMs' questions listen with.
func (p *Process) ListenRules() []string { return append([]string(nil), p.listen...) }

// RequiredContext maps its context-gated intents to their keys.
func (p *Process) RequiredContext() map[string][]string {
	out := make(map[string][]string, len(p.context))
	for k, v := range p.context {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// NodeNames names a GraphSkill's nodes by id; nil for a BaseSkill.
func (p *Process) NodeNames() map[int]string { return p.nodes }

// Handle sends the request to the program.
func (p *Process) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	c, err := p.HandleChecked(ctx, req)
	return c.Response(), err
}

// HandleChecked is Handle returning the program's answer as decoding
// checked it.
func (p *Process) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	select {
	case <-p.exited:
		return nil, fmt.Errorf("local skill %s: its program has ended: %v", p.program, p.waitErr)
	default:
	}
	return p.client.HandleChecked(ctx, req)
}

// Close tells the program to end (its standard input closes), waits for
// it (bounded by StopTimeout and ctx), kills it if it does not, and
// removes its socket's folder.
func (p *Process) Close(ctx context.Context) error {
	var err error
	p.once.Do(func() {
		if p.cmd == nil || p.cmd.Process == nil {
			_ = os.RemoveAll(p.dir)
			return
		}
		if p.stdin != nil {
			_ = p.stdin.Close()
		}
		t := time.NewTimer(StopTimeout)
		defer t.Stop()
		select {
		case <-p.exited:
		case <-t.C:
			_ = p.cmd.Process.Kill()
			<-p.exited
		case <-ctx.Done():
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if p.http != nil {
			p.http.CloseIdleConnections()
		}
		if rerr := os.RemoveAll(p.dir); rerr != nil {
			err = fmt.Errorf("local skill %s: %w", p.program, rerr)
		}
	})
	return err
}

// Adder adds skills to the robot: *skill.Host.
type Adder interface {
	Add(s skill.Skill) error
}

// Processes are the local skill programs a robot runs.
type Processes struct {
	running []*Process
	failed  []Failure
}

// Failure is a program left out, and why.
type Failure struct {
	Program string
	Err     error
}

// StartAll starts each program (see StartProcess) and adds its skill to
// host. One that fails to start or that the host refuses is stopped,
// logged and kept for Failed; the robot runs on with the others.
func StartAll(ctx context.Context, host Adder, programs []string, cfg ProcessConfig) *Processes {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	ps := &Processes{}
	for _, prog := range programs {
		p, err := StartProcess(ctx, prog, cfg)
		if err == nil {
			if err = host.Add(p); err != nil {
				err = errors.Join(fmt.Errorf("local skill %s: %w", prog, err), p.Close(ctx))
			}
		}
		if err != nil {
			log.Error("local skill not loaded", "program", prog, "err", err)
			ps.failed = append(ps.failed, Failure{Program: prog, Err: err})
			continue
		}
		ps.running = append(ps.running, p)
	}
	return ps
}

// Failed lists the programs left out, and why.
func (ps *Processes) Failed() []Failure {
	if ps == nil {
		return nil
	}
	return ps.failed
}

// Close stops every program (after the invoker has stopped calling them).
func (ps *Processes) Close(ctx context.Context) error {
	if ps == nil {
		return nil
	}
	var errs []error
	for _, p := range ps.running {
		errs = append(errs, p.Close(ctx))
	}
	return errors.Join(errs...)
}
