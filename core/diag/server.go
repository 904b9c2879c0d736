package diag

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
)

// Server limits and defaults.
const (
	// DefaultMaxSessions bounds the sessions open at once, every transport
	// together.
	DefaultMaxSessions = 8
	// DefaultWriteTimeout bounds one write to a terminal; a terminal that
	// takes longer is taken for gone and its session ends.
	DefaultWriteTimeout = 10 * time.Second
)

// ErrBusy is returned by Serve when the session limit is reached.
var ErrBusy = errors.New("too many shell sessions")

func errTooMany(what string, n int) error { return fmt.Errorf("too many %s (at most %d)", what, n) }

// Mode is how a session talks to its peer.
type Mode int

const (
	// Terminal is a person at a terminal: echo, prompts, line editing.
	Terminal Mode = iota
	// Script is a program: no echo, no prompts, no banner; output only.
	Script
)

func (m Mode) String() string {
	if m == Script {
		return "script"
	}
	return "terminal"
}

// Conn is one connection a session runs on.
type Conn struct {
	// R and W are the link. Close must make a Read blocked on R return,
	// so the session can end; Serve calls it.
	R     io.Reader
	W     io.Writer
	Close func() error
	// SetWriteDeadline bounds writes to W; nil when the link cannot.
	SetWriteDeadline func(time.Time) error
	// Name says where the session comes from in logs and status
	// ("serial /dev/ttyGS0", "unix uid 1000 pid 4242", "stdio").
	Name string
	Mode Mode
}

// Config sets a Server up.
type Config struct {
	// Env is the robot as the shell sees it.
	Env Env
	// Logger receives the shell's own logs, privileged commands among
	// them; nil discards them.
	Logger *slog.Logger
	// PINHash is the technician PIN's hash from the robot's configuration
	// (HashPIN); "" means technician mode cannot be unlocked.
	PINHash string
	// MaxSessions bounds open sessions; 0 means DefaultMaxSessions.
	MaxSessions int
	// IdleLock locks technician mode after this long without a command;
	// 0 means DefaultIdleLock. It can be changed with config set.
	IdleLock time.Duration
	// WrongPINDelay is the pause before answering a wrong PIN; 0 means
	// DefaultWrongPINDelay, negative none.
	WrongPINDelay time.Duration
	// WriteTimeout bounds one write to a terminal; 0 means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Now is the clock for lockouts, idle locks and uptime; nil means
	// time.Now.
	Now func() time.Time
}

// Server runs shell sessions for one robot. Close ends them all.
type Server struct {
	env      Env
	log      *slog.Logger
	gate     *gate
	now      func() time.Time
	max      int
	pinDelay time.Duration
	writeTO  time.Duration
	cmds     map[string]*command
	names    []string
	settings []Setting
	recent   *lifecycles
	cpu      cpuSampler

	cfgMu    sync.Mutex // serialises config set
	idleMu   sync.Mutex
	idleLock time.Duration
	margin   float64 // motor envelope margin, rad
	ledStep  time.Duration

	mu       sync.Mutex
	closed   bool
	nextID   int
	sessions map[int]*session
	wg       sync.WaitGroup
}

// NewServer checks cfg and returns a server. It subscribes to the bus (the
// recent utterances `pipeline` shows); Close undoes that.
func NewServer(cfg Config) (*Server, error) {
	s := &Server{env: cfg.Env, log: cfg.Logger, now: cfg.Now, max: cfg.MaxSessions, pinDelay: cfg.WrongPINDelay,
		writeTO: cfg.WriteTimeout, idleLock: cfg.IdleLock, margin: DefaultMotorMargin, ledStep: ledTestStep, sessions: map[int]*session{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.max <= 0 {
		s.max = DefaultMaxSessions
	}
	if s.pinDelay == 0 {
		s.pinDelay = DefaultWrongPINDelay
	}
	if s.writeTO <= 0 {
		s.writeTO = DefaultWriteTimeout
	}
	if s.idleLock <= 0 {
		s.idleLock = DefaultIdleLock
	}
	if s.idleLock < time.Minute || s.idleLock > MaxIdleLock {
		return nil, fmt.Errorf("shell: idle lock %s outside 1m..%s", s.idleLock, MaxIdleLock)
	}
	s.gate = &gate{now: s.now}
	if cfg.PINHash != "" {
		h, err := parsePINHash(cfg.PINHash)
		if err != nil {
			return nil, fmt.Errorf("shell: technician PIN: %w", err)
		}
		s.gate.hash = h
	}
	if s.env.Started.IsZero() {
		s.env.Started = s.now()
	}
	s.settings = append(s.shellSettings(), s.env.Settings...)
	seen := map[string]bool{}
	for _, st := range s.settings {
		if st.Key == "" || seen[st.Key] || st.Get == nil || st.Check == nil || st.Apply == nil {
			return nil, fmt.Errorf("shell: setting %q is empty, repeated or incomplete", st.Key)
		}
		seen[st.Key] = true
	}
	sort.Slice(s.settings, func(i, j int) bool { return s.settings[i].Key < s.settings[j].Key })
	s.cmds = map[string]*command{}
	for _, c := range s.commands() {
		s.cmds[c.name] = c
		s.names = append(s.names, c.name)
		for _, a := range c.aliases {
			s.cmds[a] = c
		}
	}
	sort.Strings(s.names)
	s.cpu.start(time.Now())
	if s.env.Bus != nil {
		r, err := newLifecycles(s.env.Bus, s.now)
		if err != nil {
			return nil, fmt.Errorf("shell: %w", err)
		}
		s.recent = r
	}
	return s, nil
}

// Serve runs one session on c until the peer leaves, the link fails or ctx
// ends, then closes c. A session's failure (a panicking command, a lost
// link) ends that session only; the error says why it ended, nil for a
// peer that left.
func (s *Server) Serve(ctx context.Context, c Conn) (err error) {
	se, err := s.admit(c)
	if err != nil {
		if c.W != nil {
			if c.SetWriteDeadline != nil {
				_ = c.SetWriteDeadline(time.Now().Add(s.writeTO))
			}
			_, _ = io.WriteString(c.W, "jibod shell: "+err.Error()+"; try again later\n")
		}
		if c.Close != nil {
			_ = c.Close()
		}
		return err
	}
	defer s.release(se)
	s.log.Info("shell session started", "session", se.id, "from", c.Name, "mode", c.Mode.String())
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("shell session crashed: %v", r)
			s.log.Error("shell session crashed", "session", se.id, "from", c.Name, "panic", fmt.Sprint(r))
		}
		s.log.Info("shell session ended", "session", se.id, "from", c.Name, "why", errString(err))
	}()
	return se.run(ctx)
}

func errString(err error) string {
	if err == nil {
		return "left"
	}
	return err.Error()
}

func (s *Server) admit(c Conn) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("shell closed")
	}
	if len(s.sessions) >= s.max {
		return nil, fmt.Errorf("%w (%d open)", ErrBusy, len(s.sessions))
	}
	s.nextID++
	se := newSession(s, s.nextID, c)
	s.sessions[se.id] = se
	s.wg.Add(1)
	return se, nil
}

func (s *Server) release(se *session) {
	s.mu.Lock()
	delete(s.sessions, se.id)
	s.mu.Unlock()
	s.wg.Done()
}

// sessionInfo describes an open session for status.
type sessionInfo struct {
	ID         int    `json:"id"`
	From       string `json:"from"`
	Mode       string `json:"mode"`
	Technician bool   `json:"technician"`
}

func (s *Server) openSessions() []sessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sessionInfo
	for _, se := range s.sessions {
		out = append(out, sessionInfo{ID: se.id, From: se.conn.Name, Mode: se.conn.Mode.String(), Technician: se.isTechnician()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Close ends every session and waits for them, and stops watching the bus.
// Sessions end by their contexts: Close cancels them.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for _, se := range s.sessions {
		se.cancel(errors.New("shell closing"))
	}
	s.mu.Unlock()
	s.wg.Wait()
	if s.recent != nil {
		s.recent.close()
	}
}

func (s *Server) idleLimit() time.Duration {
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	return s.idleLock
}

func (s *Server) motorMargin() float64 {
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	return s.margin
}

// busStats is a nil-safe Stats.
func (s *Server) busStats() (bus.Stats, bool) {
	if s.env.Bus == nil {
		return bus.Stats{}, false
	}
	return s.env.Bus.Stats(), true
}
