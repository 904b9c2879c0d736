// Package loadtest drives a hub with simulated robots: each robot holds its
// own persistent websocket (JSON or CBOR) and runs CLIENT_NLU turns back to
// back — LISTEN, CONTEXT and CLIENT_NLU for one intent, then every hub
// message up to the transaction's final one — for a bounded time and/or
// number of turns. It measures each turn's round trip (sending LISTEN to
// receiving the final message) and reports turns per second, percentiles
// and errors by kind.
//
// Robots connect first (a ramp with bounded concurrency, connect failures
// counted); the measured phase starts when every robot that could connect
// has, so the figures are for that many concurrent robots.
package loadtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Limits and defaults.
const (
	// MaxRobots bounds Config.Robots.
	MaxRobots = 100000
	// DefaultIntent is the shipped single-turn skill's intent
	// (openjibo/fact).
	DefaultIntent = "fun_fact"
	// DefaultConnectConcurrency bounds dials in flight during the ramp.
	DefaultConnectConcurrency = 64
	// DefaultConnectTimeout bounds one dial.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultTurnTimeout bounds one turn.
	DefaultTurnTimeout = 15 * time.Second
	// maxMessagesPerTurn bounds the messages one turn may bring before it
	// counts as a runaway.
	maxMessagesPerTurn = 64
)

// Config says what to run.
type Config struct {
	// URL is the hub's listen endpoint, ws:// or wss://…/v1/listen.
	URL string
	// Token is the bearer token every robot sends; "" sends none.
	Token string
	// Encoding is what robots offer (CBOR offers both, JSON only JSON);
	// the report says what was negotiated.
	Encoding wire.Encoding
	// Robots is how many simulated robots connect (1..MaxRobots).
	Robots int
	// Duration bounds the measured phase; 0 means no time bound.
	Duration time.Duration
	// MaxTurns bounds each robot's turns; 0 means no count bound. At
	// least one of Duration and MaxTurns must be set.
	MaxTurns int
	// Interval paces each robot: one turn starts every Interval (turn
	// start to turn start; a turn that takes longer is followed at once),
	// robots spread evenly over the first Interval. 0 runs turns back to
	// back, which measures saturation: the round trip is then mostly
	// queueing (robots ÷ throughput).
	Interval time.Duration
	// Intent is the CLIENT_NLU intent (default DefaultIntent).
	Intent string
	// Lang is the turns' language (default "en-US").
	Lang string
	// ConnectConcurrency bounds dials in flight (default
	// DefaultConnectConcurrency).
	ConnectConcurrency int
	// ConnectTimeout bounds one dial (default DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// TurnTimeout bounds one turn (default DefaultTurnTimeout).
	TurnTimeout time.Duration
	// TLS configures wss:// (e.g. a RootCAs pool); nil means the system
	// roots.
	TLS *tls.Config
}

func (c *Config) check() error {
	u, err := url.Parse(c.URL)
	switch {
	case err != nil:
		return fmt.Errorf("url %q: %w", c.URL, err)
	case u.Scheme != "ws" && u.Scheme != "wss":
		return fmt.Errorf("url %q: want ws:// or wss://", c.URL)
	case c.Robots < 1 || c.Robots > MaxRobots:
		return fmt.Errorf("robots %d: want 1..%d", c.Robots, MaxRobots)
	case c.Duration < 0 || c.MaxTurns < 0 || c.Interval < 0:
		return errors.New("duration, turns and interval must not be negative")
	case c.Duration == 0 && c.MaxTurns == 0:
		return errors.New("give a duration, a number of turns or both: an unbounded load test never ends")
	case c.Encoding != wire.JSON && c.Encoding != wire.CBOR:
		return fmt.Errorf("unknown %s", c.Encoding)
	}
	if c.Intent == "" {
		c.Intent = DefaultIntent
	}
	if c.Lang == "" {
		c.Lang = "en-US"
	}
	if c.ConnectConcurrency <= 0 {
		c.ConnectConcurrency = DefaultConnectConcurrency
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.TurnTimeout <= 0 {
		c.TurnTimeout = DefaultTurnTimeout
	}
	return nil
}

// Run connects cfg.Robots robots to the hub, runs their turns and returns
// the report. It fails only on a bad Config; connect failures and turn
// errors are in the report. Cancelling ctx ends the run early (the report
// covers what ran).
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := cfg.check(); err != nil {
		return Report{}, fmt.Errorf("load test: %w", err)
	}
	rep := Report{URL: cfg.URL, Robots: cfg.Robots, Offered: cfg.Encoding,
		ConnectErrors: map[string]int{}, Errors: map[string]int{}}

	robots := connectAll(ctx, &cfg, &rep)
	defer closeAll(robots)
	if len(robots) == 0 {
		return rep, nil
	}
	rep.Negotiated = robots[0].conn.Encoding()

	runCtx := ctx
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i, r := range robots {
		offset := cfg.Interval * time.Duration(i) / time.Duration(len(robots))
		wg.Go(func() { r.run(runCtx, &cfg, start.Add(offset)) })
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)

	lat := make([]time.Duration, 0, len(robots)*64)
	for _, r := range robots {
		lat = append(lat, r.latencies...)
		rep.Messages += r.messages
		rep.LinksLost += btoi(r.lost)
		for k, n := range r.errors {
			rep.Errors[k] += n
		}
	}
	rep.RateLimited = rep.Errors[KindRateLimited]
	rep.summarise(lat)
	return rep, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// connectAll dials the robots with bounded concurrency and returns those
// that connected, in order.
func connectAll(ctx context.Context, cfg *Config, rep *Report) []*robot {
	start := time.Now()
	slots := make(chan struct{}, cfg.ConnectConcurrency)
	conns := make([]*robot, cfg.Robots)
	errs := make([]error, cfg.Robots)
	var hc *http.Client
	if cfg.TLS != nil {
		hc = &http.Client{Transport: &http.Transport{TLSClientConfig: cfg.TLS}}
	}
	header := http.Header{}
	if cfg.Token != "" {
		header.Set("Authorization", "Bearer "+cfg.Token)
	}
	var wg sync.WaitGroup
	for i := range cfg.Robots {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			errs[i] = ctx.Err()
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			dctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
			defer cancel()
			ws, resp, err := websocket.Dial(dctx, cfg.URL, &websocket.DialOptions{
				HTTPClient: wire.GuardedClient(hc), HTTPHeader: header, Subprotocols: wire.Offer(cfg.Encoding),
			})
			if err != nil {
				if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
					err = fmt.Errorf("HTTP %d", resp.StatusCode)
				}
				errs[i] = err
				return
			}
			enc, err := wire.Negotiated(ws.Subprotocol())
			if err != nil {
				ws.CloseNow()
				errs[i] = err
				return
			}
			conns[i] = &robot{id: i, conn: wire.NewConn(ws, enc), errors: map[string]int{}}
		})
	}
	wg.Wait()
	rep.ConnectTime = time.Since(start)
	var out []*robot
	for i, r := range conns {
		if r != nil {
			out = append(out, r)
			continue
		}
		rep.ConnectFailures++
		rep.ConnectErrors[connectKind(errs[i])]++
	}
	rep.Connected = len(out)
	return out
}

// connectKind groups dial errors for the report.
func connectKind(err error) string {
	switch {
	case err == nil:
		return "unknown"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func closeAll(robots []*robot) {
	var wg sync.WaitGroup
	for _, r := range robots {
		wg.Go(func() { r.conn.Close(websocket.StatusNormalClosure, "load test done") })
	}
	wg.Wait()
}

// robot is one simulated robot; its goroutine owns every field.
type robot struct {
	id        int
	conn      *wire.Conn
	latencies []time.Duration
	messages  int
	errors    map[string]int
	lost      bool
}

// run runs the robot's turns, the first at next when paced.
func (r *robot) run(ctx context.Context, cfg *Config, next time.Time) {
	for n := 0; cfg.MaxTurns == 0 || n < cfg.MaxTurns; n++ {
		if cfg.Interval > 0 {
			if !sleepUntil(ctx, next) {
				return
			}
			next = next.Add(cfg.Interval)
		}
		if ctx.Err() != nil {
			return
		}
		d, kind, fatal := r.turn(ctx, cfg)
		switch {
		case kind == "":
			r.latencies = append(r.latencies, d)
		case kind == kindCancelled:
			return // the run ended mid-turn; not the hub's fault
		default:
			r.errors[kind]++
		}
		if fatal {
			r.lost = true
			return
		}
	}
}

// sleepUntil waits for t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Error kinds of a turn.
const (
	kindCancelled  = "cancelled"
	kindTimeout    = "turn timeout"
	kindLinkClosed = "link closed"
	kindNoMatch    = "no match (LISTEN match null)"
	kindRunaway    = "no final message"
	// KindRateLimited is a hub ERROR refusing the skill call because the
	// robot spent the skill's calls_per_minute (the hub meters each robot
	// connection; jibohub's in-process load-test hub does not).
	KindRateLimited = "hub ERROR: rate-limited (calls_per_minute)"
)

// turn runs one CLIENT_NLU transaction and returns its round trip, or the
// kind of error and whether the link is unusable after it.
func (r *robot) turn(ctx context.Context, cfg *Config) (time.Duration, string, bool) {
	tctx, cancel := context.WithTimeout(ctx, cfg.TurnTimeout)
	defer cancel()
	transID := protocol.NewTransID()
	tid := protocol.WithTransID(transID)
	mode := protocol.ModeClientNLU
	start := time.Now()
	for _, m := range []*protocol.HubRequest{
		protocol.NewListen(protocol.ListenData{Lang: cfg.Lang, Hotphrase: true, Rules: []string{"launch"}, Mode: &mode, FakeASR: true}, tid),
		protocol.NewContext(protocol.Context{General: protocol.GeneralData{Release: "1.9.2"}}, tid),
		protocol.NewClientNLU(protocol.NLUResult{Intent: &cfg.Intent, Entities: map[string]any{}, Rules: []string{"launch"}}, tid),
	} {
		if err := r.conn.WriteRequest(tctx, m); err != nil {
			return 0, r.linkKind(ctx, tctx, err), true
		}
	}
	for range maxMessagesPerTurn {
		resp, err := r.conn.ReadResponse(tctx)
		if err != nil {
			var fe *wire.FrameError
			if errors.As(err, &fe) && !fe.Fatal() {
				r.errors["bad frame from hub"]++
				continue
			}
			return 0, r.linkKind(ctx, tctx, err), true
		}
		r.messages++
		if resp.TransID != transID {
			r.errors["message for another transaction"]++
			continue
		}
		if resp.Final == nil || !*resp.Final {
			continue
		}
		d := time.Since(start)
		switch {
		case resp.Type == protocol.TypeSkillAction:
			return d, "", false
		case resp.Type == protocol.TypeError:
			if strings.Contains(resp.Error.Message, "calls_per_minute") {
				return 0, KindRateLimited, false
			}
			return 0, "hub ERROR " + resp.Error.Code, false
		case resp.Type == protocol.TypeListen && resp.Listen.Match == nil:
			return 0, kindNoMatch, false
		}
		return 0, "final " + resp.Type, false
	}
	return 0, kindRunaway, true
}

// linkKind classifies a read or write error; a turn cut short by a
// timeout leaves the link unusable (coder/websocket closes it).
func (r *robot) linkKind(run, turn context.Context, err error) string {
	switch {
	case run.Err() != nil:
		return kindCancelled
	case turn.Err() != nil:
		return kindTimeout
	}
	if code := websocket.CloseStatus(err); code != -1 {
		return fmt.Sprintf("link closed (%d %s)", int(code), code)
	}
	return kindLinkClosed
}
