package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/motion"
)

// Limits and defaults.
const (
	// DefaultMaxClients bounds the pages watching live at once.
	DefaultMaxClients = 8
	// DefaultSampleEvery is how often the body's pose and lights are
	// looked at while a page watches.
	DefaultSampleEvery = 50 * time.Millisecond
	// clientQueue is each page's queue of updates; a page that falls
	// further behind loses updates (and is told), never slows the bus.
	clientQueue = 256
	// historyLen is how many conversation items a newly opened page gets.
	historyLen = 200
	// maxBody bounds a request body.
	maxBody = 4 << 10
	// maxInFlight bounds requests being answered at once, live pages aside.
	maxInFlight = 16
	// writeTimeout bounds one write to a live page; a page that takes
	// longer is taken for gone.
	writeTimeout = 10 * time.Second
	// keepAlive is how often an idle live page gets a comment, so a
	// vanished one is noticed.
	keepAlive = 15 * time.Second
	// statusCache and skillsCache bound how often a page's polling makes
	// the robot measure itself or ask its intent service.
	statusCache = 2 * time.Second
	skillsCache = 10 * time.Second
	// queryTimeout bounds a question to the intent service.
	queryTimeout = 3 * time.Second
	// MaxTextLen bounds what may be typed to the robot, in bytes.
	MaxTextLen = 500
)

// Bus is the robot's message bus as the page uses it; *bus.Bus is one.
type Bus interface {
	Publish(ctx context.Context, m bus.Message) error
	SubscribeAll(patterns []string, h bus.Handler, opts ...bus.SubOption) (*bus.Subscription, error)
}

// Body is the body's pose now; *motion.Controller is one.
type Body interface {
	Pose() motion.Pose
}

// Lights is the LED ring's colours now, "#rrggbb" per pixel.
type Lights interface {
	Colors() []string
}

// Skills lists the installed skills; *skill.Host is one.
type Skills interface {
	Skills() []*registry.Manifest
}

// Shell is what the page borrows from the diagnostics shell: the
// technician PIN check, the status report and the configuration keys;
// *diag.Server is one.
type Shell interface {
	VerifyPIN(ctx context.Context, pin, from string) error
	HasPIN() bool
	IdleLock() time.Duration
	Status(ctx context.Context) any
	Config() []diag.ConfigValue
	SetConfig(pairs [][2]string, from string) ([]diag.ConfigChange, error)
}

var _ Shell = (*diag.Server)(nil)

// Config sets a Server up.
type Config struct {
	// Addr is where to listen, host:port. A loopback host (127.0.0.1,
	// ::1, localhost) makes talking open to whoever loads the page;
	// any other needs technician mode to talk.
	Addr string
	// Bus is the robot's bus: the conversation is read from it and what
	// is typed is published on it. Required.
	Bus Bus
	// Body, Lights and Skills may be nil when the robot has none.
	Body   Body
	Lights Lights
	Skills Skills
	// Shell is the diagnostics shell; nil means no technician mode, no
	// status and no configuration on the page.
	Shell Shell
	// Version and Board name the robot on the page.
	Version, Board string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock for technician sessions and rate limits; nil means
	// time.Now.
	Now func() time.Time
	// MaxClients bounds live pages; 0 means DefaultMaxClients.
	MaxClients int
	// SampleEvery is the body's sampling period; 0 means
	// DefaultSampleEvery.
	SampleEvery time.Duration
}

// CheckAddr validates a listen address: host:port with a port number.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("web address %q: want host:port, like 127.0.0.1:5426", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("web address %q: port %q is not a number 0..65535", addr, port)
	}
	if host == "" {
		return fmt.Errorf("web address %q: name the host to listen on (0.0.0.0 for every interface)", addr)
	}
	return nil
}

// Server is the web page's server. Close stops it and everything it
// started.
type Server struct {
	cfg       Config
	log       *slog.Logger
	now       func() time.Time
	mux       *http.ServeMux
	loopback  bool // served on a loopback address: talking is open
	live      *live
	tech      *techSessions
	inFlight  chan struct{}
	unlocking chan struct{} // one PIN check at a time
	limits    limits
	status    cached
	skills    cached
	nextInput uint64
	inputMu   sync.Mutex

	mu      sync.Mutex
	httpSrv *http.Server
	served  chan struct{} // closed when Serve returns
	closed  bool
}

// New checks cfg and starts the server's watch on the bus and the body;
// Start serves the page, Close stops everything.
func New(cfg Config) (*Server, error) {
	if cfg.Bus == nil {
		return nil, errors.New("web: a bus is required")
	}
	if err := CheckAddr(cfg.Addr); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.SampleEvery <= 0 {
		cfg.SampleEvery = DefaultSampleEvery
	}
	s := &Server{cfg: cfg, log: cfg.Logger, now: cfg.Now, inFlight: make(chan struct{}, maxInFlight),
		unlocking: make(chan struct{}, 1)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	host, _, _ := net.SplitHostPort(cfg.Addr)
	s.loopback = isLoopbackHost(host)
	s.tech = newTechSessions()
	s.limits = newLimits()
	s.routes()
	var err error
	if s.live, err = startLive(cfg, s.log); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	return s, nil
}

// Start listens on the configured address and serves the page until
// Close. It returns the address bound (the port chosen for port 0).
func (s *Server) Start() (net.Addr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("web: closed")
	}
	if s.httpSrv != nil {
		return nil, errors.New("web: already started")
	}
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.httpSrv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    8 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.served = make(chan struct{})
	go func() { // owned: Close shuts the server down and waits
		defer close(s.served)
		if err := s.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("web: serving stopped", "err", err)
		}
	}()
	s.log.Info("web: serving", "addr", ln.Addr().String())
	return ln.Addr(), nil
}

// Close ends every live page, stops serving and stops watching the bus
// and the body, waiting for all of it; ctx bounds waiting for requests
// being answered.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	srv, served := s.httpSrv, s.served
	s.mu.Unlock()
	s.live.stop() // live pages end first: Shutdown waits for them
	var err error
	if srv != nil {
		if err = srv.Shutdown(ctx); err != nil {
			err = errors.Join(fmt.Errorf("web: stopping: %w", err), srv.Close())
		}
		<-served
	}
	s.live.wait()
	return err
}

// ServeHTTP answers one request, after the checks every request passes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("this page answers to the robot's address, not %q", r.Host))
		return
	}
	if r.URL.Path != "/api/events" { // live pages have their own bound
		select {
		case s.inFlight <- struct{}{}:
			defer func() { <-s.inFlight }()
		default:
			writeError(w, http.StatusServiceUnavailable, "the robot is answering too many requests; try again")
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.page("index.html", "text/html; charset=utf-8"))
	m.HandleFunc("GET /app.js", s.page("app.js", "text/javascript; charset=utf-8"))
	m.HandleFunc("GET /style.css", s.page("style.css", "text/css; charset=utf-8"))
	m.HandleFunc("GET /api/events", s.handleEvents)
	m.HandleFunc("GET /api/session", s.handleSession)
	m.HandleFunc("GET /api/status", s.handleStatus)
	m.HandleFunc("GET /api/skills", s.handleSkills)
	m.HandleFunc("GET /api/config", s.handleConfig)
	m.HandleFunc("POST /api/say", s.post(s.limits.say, s.handleSay))
	m.HandleFunc("POST /api/stop", s.post(s.limits.other, s.handleStop))
	m.HandleFunc("POST /api/unlock", s.post(s.limits.unlock, s.handleUnlock))
	m.HandleFunc("POST /api/lock", s.post(s.limits.other, s.handleLock))
	m.HandleFunc("POST /api/config", s.post(s.limits.other, s.handleSetConfig))
	s.mux = m
}
