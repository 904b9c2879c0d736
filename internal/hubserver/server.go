// Package hubserver is the hub side of the hub link (spec/jibo.md §1, §2):
// robots connect with websockets to /listen (/v1/listen) and /proactive
// (/v1/proactive), authenticated by a bearer JWT on the upgrade; each
// connection carries one or many transactions, told apart by transID
// (a real robot opens one websocket per transaction, the runtime keeps one
// link for all). A transaction runs the state machine of §1.5: LISTEN,
// then CONTEXT and CLIENT_NLU or CLIENT_ASR in either order, NLU, routing,
// and the cloud skill's answer; or TRIGGER and CONTEXT on /proactive.
//
// Skills are hosted in process (any core/skill Skill) or called over HTTP
// (package skillhttp), both through the skill invoker (timeout, panic
// containment, JCP validation, records). Cloud skills are stateless: the
// hub keeps nothing of a skill's session between transactions; the robot
// sends it back in CONTEXT.
//
// GET /v1/skills serves the hub's wire.Catalog (intents and their locale
// files), so robots can match remote intents locally and send CLIENT_NLU;
// GET /healthz answers 200 while the hub serves.
package hubserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/hub/token"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/skillhttp"
)

// Endpoints.
const (
	PathListen      = "/listen"
	PathListenV1    = "/v1/listen"
	PathProactive   = "/proactive"
	PathProactiveV1 = "/v1/proactive"
	PathHealth      = "/healthz"
)

// Placeholders for general.accountID and robotID when auth is disabled
// and the robot's CONTEXT names none (§1.1).
const (
	PlaceholderAccountID = "openjibo-account"
	PlaceholderRobotID   = "openjibo-robot"
)

// Skill is a skill hosted in process: the interface local skills
// implement (core/skill). A skill may also implement skill.RuleSkill
// (answer rules, contexts "<bus id>/<rule>" as on the robot, published in
// the catalog) and Configured (its hub manifest: intents with entity
// conditions and memos, proactive registrations); without Configured its
// intents are its locale's .intent files.
type Skill = skill.Skill

// Configured is a skill with a hub manifest (jibo.md §2.6).
type Configured interface {
	SkillConfig() protocol.ManifestSkillConfig
}

// HTTPSkill is a skill served over HTTP (POST /v1/main, skillhttp).
type HTTPSkill struct {
	// Manifest is its registry manifest (id, timeout, permissions).
	Manifest *registry.Manifest
	// Config is its hub manifest; Intents nil means its locale's .intent
	// files. Its ID is set from Manifest.
	Config protocol.ManifestSkillConfig
	// URL is the service endpoint, e.g. http://127.0.0.1:9000/v1/main.
	URL string
	// Locale is its locale tree (<lang>/*.intent, …); nil for none.
	Locale fs.FS
	// Rules are its answer rules (one folder per rule); nil for none.
	Rules fs.FS
	// HTTP makes the calls; nil means a client with the skill timeout.
	HTTP *http.Client
}

// Verifier checks a robot's bearer token; *token.Issuer is one.
type Verifier interface {
	Verify(tok string) (token.Claims, error)
}

// Limits bound what the hub takes on. Zero members mean the defaults.
type Limits struct {
	// MaxConnections bounds open websockets; beyond it upgrades get 503.
	MaxConnections int
	// TransactionsPerConn bounds the open transactions of one connection.
	TransactionsPerConn int
	// Transactions bounds the open transactions of the whole hub.
	Transactions int
	// MessagesPerTransaction bounds the messages a transaction queues
	// before it has read them.
	MessagesPerTransaction int
}

// Default limits.
const (
	DefaultMaxConnections         = 4096
	DefaultTransactionsPerConn    = 16
	DefaultTransactions           = 16384
	DefaultMessagesPerTransaction = 8
)

// Timeouts of a transaction (§1.5). Zero members mean the defaults.
type Timeouts struct {
	// Context bounds the wait for CONTEXT after LISTEN or TRIGGER.
	Context time.Duration
	// Parser bounds NLU, and the wait for CLIENT_NLU.
	Parser time.Duration
	// Skill bounds one skill call (a manifest's shorter timeout wins).
	Skill time.Duration
	// ASR bounds the wait for the transcript (CLIENT_ASR, audio).
	ASR time.Duration
	// Transaction bounds a whole transaction.
	Transaction time.Duration
	// Idle drops a connection with no transaction open and no frame
	// (pings included) for this long.
	Idle time.Duration
	// Write bounds sending one message.
	Write time.Duration
}

// Default timeouts.
const (
	DefaultContextTimeout     = 5 * time.Second
	DefaultParserTimeout      = 10 * time.Second
	DefaultSkillTimeout       = 10 * time.Second
	DefaultASRTimeout         = 40 * time.Second
	DefaultTransactionTimeout = 60 * time.Second
	DefaultIdleTimeout        = 90 * time.Second
	DefaultWriteTimeout       = 10 * time.Second
)

// Config configures a Server.
type Config struct {
	// Skills are hosted in process.
	Skills []Skill
	// HTTPSkills are called over HTTP.
	HTTPSkills []HTTPSkill
	// Verifier checks tokens; nil disables auth (stand-in ids).
	Verifier Verifier
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Records receives one record per skill call; nil means an in-memory
	// log of invoke.DefaultLogCapacity.
	Records invoke.Recorder
	// Unmetered lifts the skills' calls_per_minute, which the hub
	// otherwise applies per robot connection: for load tests only, where
	// one simulated robot makes a turn every few milliseconds.
	Unmetered bool
	// Limits and Timeouts; zero members mean the defaults.
	Limits   Limits
	Timeouts Timeouts
	// Now is the clock of message timestamps and timings; nil means
	// time.Now.
	Now func() time.Time
}

// hubSkill is one skill the hub routes to.
type hubSkill struct {
	id       string // manifest id, "namespace/name": match.skillID
	busID    string // skill.id in skill requests, as the robot's host sends
	manifest *registry.Manifest
	config   protocol.ManifestSkillConfig
	handle   invoke.CheckedHandler
	catalog  wire.CatalogSkill
}

// Server is a hub. Its Handler serves robots; Close stops it.
type Server struct {
	cfg      Config
	log      *slog.Logger
	skills   map[string]*hubSkill // by manifest id and by bus id
	ordered  []*hubSkill          // by manifest id
	intents  map[string]*hubSkill // intent name → skill
	stack    *intent.Stack
	answers  *skill.AnswerRules
	catalog  []byte
	verifier Verifier

	mu      sync.Mutex
	closing bool
	conns   map[*conn]struct{}
	wg      sync.WaitGroup // connection handlers

	nConns atomic.Int64
	nTxns  atomic.Int64
}

// New checks the skills and builds a hub: their manifests must be valid
// and their ids and intent names distinct, their locales must load and
// their answer rules compile.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Records == nil {
		cfg.Records = invoke.NewLog(invoke.DefaultLogCapacity)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	setDefault(&cfg.Limits.MaxConnections, DefaultMaxConnections)
	setDefault(&cfg.Limits.TransactionsPerConn, DefaultTransactionsPerConn)
	setDefault(&cfg.Limits.Transactions, DefaultTransactions)
	setDefault(&cfg.Limits.MessagesPerTransaction, DefaultMessagesPerTransaction)
	t := &cfg.Timeouts
	setDefault(&t.Context, DefaultContextTimeout)
	setDefault(&t.Parser, DefaultParserTimeout)
	setDefault(&t.Skill, DefaultSkillTimeout)
	setDefault(&t.ASR, DefaultASRTimeout)
	setDefault(&t.Transaction, DefaultTransactionTimeout)
	setDefault(&t.Idle, DefaultIdleTimeout)
	setDefault(&t.Write, DefaultWriteTimeout)
	log := cfg.Logger.With("component", "hub")
	answers, err := skill.NewAnswerRules(log)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	stack, err := intent.NewStack(intent.StackConfig{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	s := &Server{cfg: cfg, log: log, skills: map[string]*hubSkill{}, intents: map[string]*hubSkill{},
		stack: stack, answers: answers, verifier: cfg.Verifier, conns: map[*conn]struct{}{}}
	for _, sk := range cfg.Skills {
		if sk == nil {
			return nil, errors.New("hub: nil skill")
		}
		var conf *protocol.ManifestSkillConfig
		if c, ok := sk.(Configured); ok {
			v := c.SkillConfig()
			conf = &v
		}
		var rules fs.FS
		if rs, ok := sk.(skill.RuleSkill); ok {
			rules = rs.Rules()
		}
		if err := s.add(sk.Manifest(), conf, sk.Locale(), rules, skill.Handler(sk)); err != nil {
			return nil, err
		}
	}
	for _, hs := range cfg.HTTPSkills {
		hc := hs.HTTP
		if hc == nil {
			hc = &http.Client{Timeout: cfg.Timeouts.Skill}
		}
		cl, err := skillhttp.NewClient(hs.URL, skillhttp.ClientOptions{HTTP: hc})
		if err != nil {
			return nil, fmt.Errorf("hub: HTTP skill: %w", err)
		}
		conf := hs.Config
		var confp *protocol.ManifestSkillConfig
		if conf.Intents != nil || conf.Proactives != nil {
			confp = &conf
		}
		if err := s.add(hs.Manifest, confp, hs.Locale, hs.Rules, cl.HandleChecked); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(s.ordered, func(a, b *hubSkill) int { return strings.Compare(a.id, b.id) })
	cat := wire.Catalog{Skills: []wire.CatalogSkill{}}
	for _, h := range s.ordered {
		cat.Skills = append(cat.Skills, h.catalog)
	}
	if s.catalog, err = cat.Encode(); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	return s, nil
}

func setDefault[T int | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// add checks and indexes one skill; nothing of it is kept on error.
func (s *Server) add(m *registry.Manifest, conf *protocol.ManifestSkillConfig, locale, rules fs.FS, h invoke.CheckedHandler) error {
	if m == nil {
		return errors.New("hub: skill without a manifest")
	}
	m = m.Normalized()
	if err := m.Validate(); err != nil {
		return fmt.Errorf("hub: skill %q: %w", m.ID, err)
	}
	// The hub's skill timeout bounds every call (§1.5).
	if m.EffectiveTimeout() > s.cfg.Timeouts.Skill {
		m.Timeout = s.cfg.Timeouts.Skill
	}
	hs := &hubSkill{id: m.ID, busID: m.BusID(), manifest: m, handle: h}
	if _, dup := s.skills[hs.id]; dup {
		return fmt.Errorf("hub: skill %s: %w", m.ID, registry.ErrExists)
	}
	files, intentFiles, err := localeFiles(locale)
	if err != nil {
		return fmt.Errorf("hub: skill %s: %w", m.ID, err)
	}
	if conf != nil {
		hs.config = *conf
	} else {
		hs.config = protocol.ManifestSkillConfig{Intents: []protocol.ManifestIntent{}}
		for _, name := range intentFiles {
			hs.config.Intents = append(hs.config.Intents, protocol.ManifestIntent{Name: name})
		}
	}
	hs.config.ID = m.ID
	if hs.config.Intents == nil {
		hs.config.Intents = []protocol.ManifestIntent{}
	}
	if err := hs.config.Validate(); err != nil {
		return fmt.Errorf("hub: skill %s: hub manifest: %w", m.ID, err)
	}
	for _, in := range hs.config.Intents {
		if other, dup := s.intents[in.Name]; dup && other != hs {
			return fmt.Errorf("hub: skill %s: intent %q is also an intent of %s; intent names are unique on one hub",
				m.ID, in.Name, other.id)
		}
	}
	hs.catalog = wire.CatalogSkill{ID: m.ID, Name: m.Name, Description: m.Description, Version: m.Version,
		Config: hs.config, Locale: files}
	if locale != nil {
		loc, err := intent.LoadLocale(locale, ".")
		if err != nil {
			return fmt.Errorf("hub: skill %s: locale: %w", m.ID, err)
		}
		for _, def := range loc.TemplateIntents("", hs.busID) {
			if _, err := s.stack.Templates.Register(def); err != nil {
				s.stack.Templates.RemoveSkill("", hs.busID)
				return fmt.Errorf("hub: skill %s: intent %s (%s): %w", m.ID, def.IntentName, def.Lang, err)
			}
		}
	}
	if rules != nil {
		// The catalog carries the rules so robots understand the answers
		// themselves; both name them "<bus id>/<rule>", as the robot's
		// host names a local skill's.
		if hs.catalog.Rules, err = ruleFiles(rules); err != nil {
			return fmt.Errorf("hub: skill %s: %w", m.ID, err)
		}
		if err := s.answers.Add(hs.busID, rules); err != nil {
			s.stack.Templates.RemoveSkill("", hs.busID)
			return fmt.Errorf("hub: skill %s: %w", m.ID, err)
		}
	}
	for _, in := range hs.config.Intents {
		s.intents[in.Name] = hs
	}
	s.skills[hs.id] = hs
	s.skills[hs.busID] = hs
	s.ordered = append(s.ordered, hs)
	return nil
}

// localeFiles reads a locale tree's top-level files of each language for
// the catalog, and lists its intents (.intent base names, sorted).
func localeFiles(locale fs.FS) (map[string]map[string]string, []string, error) {
	out := map[string]map[string]string{}
	if locale == nil {
		return out, nil, nil
	}
	langs, err := fs.ReadDir(locale, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("reading locale: %w", err)
	}
	var intents []string
	for _, l := range langs {
		if !l.IsDir() {
			continue
		}
		entries, err := fs.ReadDir(locale, l.Name())
		if err != nil {
			return nil, nil, fmt.Errorf("reading locale %s: %w", l.Name(), err)
		}
		files := map[string]string{}
		for _, e := range entries {
			ext := path.Ext(e.Name())
			if e.IsDir() || !slices.Contains([]string{".intent", ".entity", ".voc", ".dialog"}, ext) {
				continue
			}
			b, err := fs.ReadFile(locale, l.Name()+"/"+e.Name())
			if err != nil {
				return nil, nil, fmt.Errorf("reading locale %s/%s: %w", l.Name(), e.Name(), err)
			}
			files[e.Name()] = string(b)
			if name, ok := strings.CutSuffix(e.Name(), ".intent"); ok && !slices.Contains(intents, name) {
				intents = append(intents, name)
			}
		}
		out[l.Name()] = files
	}
	slices.Sort(intents)
	return out, intents, nil
}

// ruleFiles reads answer rules (<rule>/<lang>/<file>) for the catalog;
// nil when there are none.
func ruleFiles(rules fs.FS) (map[string]map[string]map[string]string, error) {
	entries, err := fs.ReadDir(rules, ".")
	if err != nil {
		return nil, fmt.Errorf("reading answer rules: %w", err)
	}
	var out map[string]map[string]map[string]string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub, err := fs.Sub(rules, e.Name())
		if err != nil {
			return nil, fmt.Errorf("reading answer rule %s: %w", e.Name(), err)
		}
		files, _, err := localeFiles(sub)
		if err != nil {
			return nil, fmt.Errorf("reading answer rule %s: %w", e.Name(), err)
		}
		if out == nil {
			out = map[string]map[string]map[string]string{}
		}
		out[e.Name()] = files
	}
	return out, nil
}

// SkillInfo describes a hosted skill, for listing.
type SkillInfo struct {
	ID      string
	Name    string
	Intents []string
	// Proactive lists the trigger sources (topics) it registered for.
	Proactive []string
	// Rules are its answer rules ("<bus id>/<rule>").
	Rules []string
}

// Skills lists the hub's skills, sorted by id.
func (s *Server) Skills() []SkillInfo {
	rules := s.answers.Names()
	out := make([]SkillInfo, 0, len(s.ordered))
	for _, h := range s.ordered {
		si := SkillInfo{ID: h.id, Name: h.manifest.Name}
		for _, in := range h.config.Intents {
			if !slices.Contains(si.Intents, in.Name) {
				si.Intents = append(si.Intents, in.Name)
			}
		}
		for _, p := range h.config.Proactives {
			for _, t := range p.Topics {
				if !slices.Contains(si.Proactive, t) {
					si.Proactive = append(si.Proactive, t)
				}
			}
		}
		for _, r := range rules {
			if strings.HasPrefix(r, h.busID+"/") {
				si.Rules = append(si.Rules, r)
			}
		}
		out = append(out, si)
	}
	return out
}

// Catalog is the encoded catalog served at /v1/skills.
func (s *Server) Catalog() []byte { return slices.Clone(s.catalog) }

// Handler serves the hub's endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(PathListen, func(w http.ResponseWriter, r *http.Request) { s.serveLink(w, r, endpointListen) })
	mux.HandleFunc(PathListenV1, func(w http.ResponseWriter, r *http.Request) { s.serveLink(w, r, endpointListen) })
	mux.HandleFunc(PathProactive, func(w http.ResponseWriter, r *http.Request) { s.serveLink(w, r, endpointProactive) })
	mux.HandleFunc(PathProactiveV1, func(w http.ResponseWriter, r *http.Request) { s.serveLink(w, r, endpointProactive) })
	mux.HandleFunc("GET "+wire.CatalogPath, s.serveCatalog)
	mux.HandleFunc("GET "+PathHealth, func(w http.ResponseWriter, _ *http.Request) {
		if s.isClosing() {
			writeHTTPError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "hub shutting down")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"status":"ok","connections":%d,"transactions":%d}`, s.nConns.Load(), s.nTxns.Load())
	})
	return mux
}

// identity is who a connection's robot is.
type identity struct {
	accountID, robotID string
	verified           bool
}

// authenticate checks the bearer token; with auth disabled everyone is
// the stand-in robot (unless CONTEXT names one).
func (s *Server) authenticate(r *http.Request) (identity, error) {
	if s.verifier == nil {
		return identity{}, nil
	}
	tok, err := token.BearerToken(r.Header)
	if err != nil {
		return identity{}, err
	}
	c, err := s.verifier.Verify(tok)
	if err != nil {
		return identity{}, err
	}
	return identity{accountID: c.AccountID(), robotID: c.RobotID(), verified: true}, nil
}

func (s *Server) serveCatalog(w http.ResponseWriter, r *http.Request) {
	if _, err := s.authenticate(r); err != nil {
		writeHTTPError(w, http.StatusUnauthorized, "UNAUTHORIZED", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.catalog)
}

func writeHTTPError(w http.ResponseWriter, status int, code, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg, "code": code})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Close stops the hub: no new connections; every open transaction ends
// (its robot gets ERROR GENERAL "hub shutting down"), every link is closed
// with wire.CloseShuttingDown, and Close waits, bounded by ctx, for every
// connection's goroutines. Call it before the HTTP server's Shutdown,
// which does not track websockets.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.shutdown()
	}
	done := make(chan struct{})
	go func() { // ends when the connection handlers do
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("closing hub: %d connections still open: %w", s.nConns.Load(), context.Cause(ctx))
	}
}
