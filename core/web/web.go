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

	// base is every request's context; Close cancels it.
	base   context.Context
	cancel context.CancelFunc
	// conns counts the accept loop and the connections being served.
	conns sync.WaitGroup

	// reqTimeout and maxConns are requestTimeout and maxConns (tests
	// shorten them).
	reqTimeout time.Duration
	maxConns   int

	mu     sync.Mutex
	ln     net.Listener
	open   map[net.Conn]struct{}
	closed bool
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
		unlocking: make(chan struct{}, 1), open: map[net.Conn]struct{}{}, reqTimeout: requestTimeout, maxConns: maxConns}
	s.base, s.cancel = context.WithCancel(context.Background())
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
	var err error
	if s.live, err = startLive(cfg, s.log); err != nil {
		s.cancel()
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
	if s.ln != nil {
		return nil, errors.New("web: already started")
	}
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.ln = ln
	s.conns.Add(1)
	go s.serve(ln) // owned: Close closes ln and waits
	s.log.Info("web: serving", "addr", ln.Addr().String())
	return ln.Addr(), nil
}

// Close ends every live page, stops serving and stops watching the bus
// and the body, waiting for all of it. Requests still being answered
// when ctx ends have their connections closed under them.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	ln := s.ln
	s.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	s.live.stop()
	s.cancel()
	done := make(chan struct{})
	go func() { s.conns.Wait(); close(done) }() // owned: ends once every connection has
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("web: stopping: %w; connections closed under their requests", ctx.Err())
		s.mu.Lock()
		for c := range s.open {
			_ = c.Close()
		}
		s.mu.Unlock()
		<-done
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
	s.dispatch(w, r)
}

// dispatch finds r's handler: 404 for an unknown path, 405 for a method
// the path does not answer (GET answers HEAD too). A switch rather than
// http.ServeMux: the paths are fixed, and the mux's pattern machinery
// would weigh on the robot's binary for nothing.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	var get, post http.HandlerFunc
	var limit *bucket
	switch r.URL.Path {
	case "/":
		get = file(indexHTML, "text/html; charset=utf-8")
	case "/app.js":
		get = file(appJS, "text/javascript; charset=utf-8")
	case "/style.css":
		get = file(styleCSS, "text/css; charset=utf-8")
	case "/api/events":
		get = s.handleEvents
	case "/api/session":
		get = s.handleSession
	case "/api/status":
		get = s.handleStatus
	case "/api/skills":
		get = s.handleSkills
	case "/api/config":
		get, post, limit = s.handleConfig, s.handleSetConfig, s.limits.other
	case "/api/say":
		post, limit = s.handleSay, s.limits.say
	case "/api/stop":
		post, limit = s.handleStop, s.limits.other
	case "/api/unlock":
		post, limit = s.handleUnlock, s.limits.unlock
	case "/api/lock":
		post, limit = s.handleLock, s.limits.other
	default:
		writeError(w, http.StatusNotFound, "no such page: "+r.URL.Path)
		return
	}
	switch {
	case get != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		get(w, r)
	case post != nil && r.Method == http.MethodPost:
		if s.admitPost(w, r, limit) {
			post(w, r)
		}
	default:
		allow := http.MethodPost
		if get != nil {
			allow = http.MethodGet
			if post != nil {
				allow += ", " + http.MethodPost
			}
		}
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here; use "+allow)
	}
}
