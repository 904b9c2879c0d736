package hub

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Endpoints of a hub (jibo.md §1.1), appended to the configured base URL.
const (
	EndpointListen    = "/v1/listen"
	EndpointProactive = "/v1/proactive"
)

// LinkMode is how the client uses websockets.
type LinkMode string

// Link modes.
const (
	// Persistent keeps one websocket to /v1/listen open and carries every
	// transaction on it, multiplexed by transID; it is pinged every
	// Heartbeat and reopened with jittered backoff when it drops.
	Persistent LinkMode = "persistent"
	// PerTurn opens one websocket per transaction, as real robots do; a
	// probe connection with backoff tells when an unreachable hub is back,
	// and one every Heartbeat while up that it is still there. A turn that
	// cannot connect or drops mid-turn takes the link down at once.
	PerTurn LinkMode = "per-turn"
)

// ParseLinkMode reads "persistent" or "per-turn".
func ParseLinkMode(s string) (LinkMode, error) {
	switch LinkMode(s) {
	case Persistent, PerTurn:
		return LinkMode(s), nil
	}
	return "", fmt.Errorf("link mode %q: want persistent or per-turn", s)
}

// Defaults and limits of the link (jibo.md §1.5 gives the hub's side: 5 s
// for CONTEXT, 10 s for the parser, 10 s for a skill).
const (
	DefaultConnectTimeout = 3 * time.Second
	// DefaultReplyTimeout bounds the wait for each next message of a
	// transaction: longer than the hub's own parser and skill timeouts, so
	// the hub's ERROR TIMEOUT_* arrives before the robot gives up.
	DefaultReplyTimeout = 12 * time.Second
	// DefaultTransactionTimeout bounds a whole transaction.
	DefaultTransactionTimeout = 25 * time.Second
	DefaultHeartbeat          = 15 * time.Second
	DefaultBackoffMin         = 250 * time.Millisecond
	DefaultBackoffMax         = 30 * time.Second
	// DefaultParkTimeout is how long a transaction handed over to a skill
	// (by the fallback stage, a trigger or a redirect) waits to be claimed
	// before it is abandoned.
	DefaultParkTimeout = 20 * time.Second
	// MaxTransactions bounds the transactions open at once on a link (the
	// hub bounds them per connection too).
	MaxTransactions = 16
	// MaxTransactionMessages bounds the messages a hub may send in one
	// transaction (SOS, EOS, LISTEN, a redirect, an action… are a handful).
	MaxTransactionMessages = 32
	// maxErrorBody bounds what is read of a refused upgrade's body.
	maxErrorBody = 1024
	// maxFrameErrors in a row on a persistent link mean it is broken.
	maxFrameErrors = 8
)

// Config wires a Client.
type Config struct {
	// URL is the hub's base URL, ws:// or wss://; the endpoints are
	// appended to its path.
	URL string
	// Token returns the robot's bearer token; it is called for every
	// connection, so a renewed token file is picked up. Nil sends none.
	Token func() (string, error)
	// CAFile, if set, is a PEM file of extra root CAs trusted for wss://.
	CAFile string
	// Encoding is the encoding preferred (CBOR offers CBOR and JSON; the
	// hub chooses). The zero value is JSON; NewClient's callers normally
	// pass wire.CBOR.
	Encoding wire.Encoding
	// Link is Persistent (default) or PerTurn.
	Link LinkMode
	// ConnectTimeout bounds opening a websocket (default 3 s).
	ConnectTimeout time.Duration
	// ReplyTimeout bounds waiting for each hub message of a transaction.
	ReplyTimeout time.Duration
	// TransactionTimeout bounds a whole transaction.
	TransactionTimeout time.Duration
	// Heartbeat is the persistent link's ping period and the per-turn
	// link's probe period while up (default 15 s).
	Heartbeat time.Duration
	// BackoffMin and BackoffMax bound the reconnect delay.
	BackoffMin, BackoffMax time.Duration
	// ParkTimeout bounds how long a handed-over transaction waits.
	ParkTimeout time.Duration
	// Bus, if set, gets TopicLink on every change of the link's state.
	Bus *bus.Bus
	// OnState, if set, is called on every change of the link's state (in
	// order, from the link's goroutine; it must return quickly).
	OnState func(LinkState)
	Logger  *slog.Logger
	// Now is the clock of the link's states; nil means time.Now.
	Now func() time.Time
}

// dialFunc opens a websocket; websocket.Dial is one.
type dialFunc func(ctx context.Context, u string, opts *websocket.DialOptions) (*websocket.Conn, *http.Response, error)

// Client is the robot's hub link. Start it, make transactions with
// Transact, Close it to stop every goroutine it started.
type Client struct {
	cfg   Config
	log   *slog.Logger
	base  *url.URL
	httpc *http.Client
	// wsc dials websockets: httpc, guarded against oversized frame
	// headers (wire.GuardedClient).
	wsc  *http.Client
	dial dialFunc

	listen *link
	// proactive carries TRIGGERs, one websocket each: they are rare (an
	// arrival), and a socket kept open for them would double the hub's
	// connections for nothing.
	proactive *link

	parkMu sync.Mutex
	parked map[string]*parkedTx

	runMu   sync.Mutex
	started bool
	closed  bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

type parkedTx struct {
	tx    *Transaction
	timer *time.Timer
}

// NewClient checks cfg and builds a client; nothing is opened until Start.
func NewClient(cfg Config) (*Client, error) {
	base, err := parseBaseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Link == "" {
		cfg.Link = Persistent
	}
	if _, err := ParseLinkMode(string(cfg.Link)); err != nil {
		return nil, fmt.Errorf("hub client: %w", err)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.ConnectTimeout, DefaultConnectTimeout)
	def(&cfg.ReplyTimeout, DefaultReplyTimeout)
	def(&cfg.TransactionTimeout, DefaultTransactionTimeout)
	def(&cfg.Heartbeat, DefaultHeartbeat)
	def(&cfg.BackoffMin, DefaultBackoffMin)
	def(&cfg.BackoffMax, DefaultBackoffMax)
	def(&cfg.ParkTimeout, DefaultParkTimeout)
	if cfg.BackoffMax < cfg.BackoffMin {
		return nil, fmt.Errorf("hub client: backoff max %s below min %s", cfg.BackoffMax, cfg.BackoffMin)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	httpc, err := httpClient(cfg.CAFile)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, log: log.With("component", "hub"), base: base, httpc: httpc,
		wsc:  wire.GuardedClient(httpc),
		dial: websocket.Dial, parked: map[string]*parkedTx{}}
	c.listen = newLink(c, EndpointListen, cfg.Link == Persistent)
	c.proactive = newLink(c, EndpointProactive, false)
	return c, nil
}

// parseBaseURL checks the hub's base URL: ws or wss, a host, no query,
// fragment or credentials (the token goes in a header).
func parseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("hub URL %q: %w", s, err)
	}
	switch {
	case u.Scheme != "ws" && u.Scheme != "wss":
		return nil, fmt.Errorf("hub URL %q: scheme %q, want ws or wss", s, u.Scheme)
	case u.Host == "":
		return nil, fmt.Errorf("hub URL %q: no host", s)
	case u.User != nil:
		return nil, fmt.Errorf("hub URL %q: credentials in the URL; use a token file", s)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("hub URL %q: query or fragment not allowed", s)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// httpClient trusts caFile's certificates in addition to the system's.
func httpClient(caFile string) (*http.Client, error) {
	if caFile == "" {
		return &http.Client{}, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("hub CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("hub CA file %s: no PEM certificate in it", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}

// URL is the hub's base URL.
func (c *Client) URL() string { return c.base.String() }

// endpoint is the websocket URL of path.
func (c *Client) endpoint(path string) string {
	u := *c.base
	u.Path += path
	return u.String()
}

// httpURL is the https (or http) URL of path, for the catalog.
func (c *Client) httpURL(path string) string {
	u := *c.base
	u.Scheme = map[string]string{"ws": "http", "wss": "https"}[u.Scheme]
	u.Path += path
	return u.String()
}

// Start opens the link in the background; State says how it goes.
func (c *Client) Start(ctx context.Context) error {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	if c.closed || c.started {
		return errors.New("hub client: already started or closed")
	}
	c.started = true
	ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	c.wg.Add(1)
	go func() { // owned: Close cancels and waits
		defer c.wg.Done()
		c.listen.run(ctx)
	}()
	return nil
}

// Close stops the link, fails every open transaction with ErrClosed and
// waits for the client's goroutines.
func (c *Client) Close(ctx context.Context) error {
	c.runMu.Lock()
	if c.closed {
		c.runMu.Unlock()
		return nil
	}
	c.closed = true
	if c.cancel != nil {
		c.cancel()
	}
	c.runMu.Unlock()
	c.listen.shutdown()
	c.proactive.shutdown()
	c.parkMu.Lock()
	for id, p := range c.parked {
		p.timer.Stop()
		p.tx.fail(ErrClosed)
		delete(c.parked, id)
	}
	c.parkMu.Unlock()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
		c.listen.setState(Disabled, nil, time.Time{})
		return nil
	case <-ctx.Done():
		return fmt.Errorf("hub client: waiting for its goroutines: %w", ctx.Err())
	}
}

func (c *Client) isClosed() bool {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	return c.closed
}

// State is the link's state now.
func (c *Client) State() LinkState { return c.listen.state() }

// Available reports whether the link is up: the remote stages take part in
// a lifecycle only then.
func (c *Client) Available() bool { return c.listen.state().Status == Up }

// Transact opens a transaction on /v1/listen: every message gets one
// fresh transID and is sent in order. Read the hub's replies with Next;
// Close the transaction when done with it.
func (c *Client) Transact(ctx context.Context, msgs ...*protocol.HubRequest) (*Transaction, error) {
	return c.transact(ctx, c.listen, msgs)
}

// TransactProactive opens a transaction on /v1/proactive (a TRIGGER and
// its CONTEXT), on a websocket of its own.
func (c *Client) TransactProactive(ctx context.Context, msgs ...*protocol.HubRequest) (*Transaction, error) {
	return c.transact(ctx, c.proactive, msgs)
}

// transact sends msgs on l (or, per turn, on a websocket of their own).
func (c *Client) transact(ctx context.Context, l *link, msgs []*protocol.HubRequest) (*Transaction, error) {
	if len(msgs) == 0 {
		return nil, errors.New("hub transaction: no message to send")
	}
	if c.isClosed() {
		return nil, ErrClosed
	}
	tid := protocol.NewTransID()
	for _, m := range msgs {
		m.TransID = tid
	}
	var tx *Transaction
	var conn *wire.Conn
	if l.persistent {
		var err error
		if conn, err = l.waitUp(ctx); err != nil {
			return nil, err
		}
		if tx, err = l.open(tid, conn); err != nil {
			return nil, err
		}
	} else {
		var err error
		if conn, err = c.connect(ctx, l.path); err != nil {
			l.failed(err)
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if tx, err = l.register(tid, conn); err != nil {
			_ = conn.Close(websocket.StatusTryAgainLater, "too many transactions")
			return nil, err
		}
		c.wg.Add(1)
		go func() { // owned: ends when the transaction is over; Close waits
			defer c.wg.Done()
			l.readTurn(tx)
		}()
	}
	wctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout)
	defer cancel()
	for _, m := range msgs {
		if err := conn.WriteRequest(wctx, m); err != nil {
			err = fmt.Errorf("%w: sending %s: %w", ErrLinkDown, m.Type, err)
			ended := tx.fail(err)
			switch {
			case l.persistent:
				_ = conn.CloseNow() // the reader sees it and reconnects
			case ended && ctx.Err() == nil:
				l.failed(err) // not the caller giving up: the hub went away
			}
			return nil, err
		}
	}
	c.log.Debug("hub transaction opened", "trans_id", tid, "first", msgs[0].Type)
	return tx, nil
}

// connect opens a websocket to path with the robot's token and the
// preferred encoding's subprotocols, within ConnectTimeout.
func (c *Client) connect(ctx context.Context, path string) (*wire.Conn, error) {
	h := http.Header{}
	if c.cfg.Token != nil {
		tok, err := c.cfg.Token()
		if err != nil {
			return nil, fmt.Errorf("reading the robot's token: %w", err)
		}
		h.Set("Authorization", "Bearer "+tok)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout)
	defer cancel()
	u := c.endpoint(path)
	ws, resp, err := c.dial(ctx, u, &websocket.DialOptions{HTTPClient: c.wsc, HTTPHeader: h,
		Subprotocols: wire.Offer(c.cfg.Encoding)})
	if err != nil {
		return nil, refused(u, resp, err)
	}
	enc, err := wire.Negotiated(ws.Subprotocol())
	if err != nil {
		_ = ws.Close(websocket.StatusProtocolError, "unknown subprotocol")
		return nil, fmt.Errorf("connecting to %s: %w", u, err)
	}
	return wire.NewConn(ws, enc), nil
}

// refused explains a failed upgrade, reading the hub's JSON error body
// ({"error", "code"}) when it sent one.
func refused(u string, resp *http.Response, err error) error {
	if resp == nil {
		return fmt.Errorf("connecting to %s: %w", u, err)
	}
	var body struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	if resp.Body != nil {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		_ = json.Unmarshal(b, &body)
	}
	detail := resp.Status
	if body.Error != "" {
		detail += ": " + body.Error
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("connecting to %s: %w: %s", u, ErrUnauthorized, detail)
	}
	return fmt.Errorf("connecting to %s: %s: %w", u, detail, err)
}

// park keeps tx open for a skill to Claim, for at most ParkTimeout.
func (c *Client) park(tx *Transaction) {
	c.parkMu.Lock()
	defer c.parkMu.Unlock()
	p := &parkedTx{tx: tx}
	p.timer = time.AfterFunc(c.cfg.ParkTimeout, func() {
		c.parkMu.Lock()
		if c.parked[tx.ID] != p {
			c.parkMu.Unlock()
			return
		}
		delete(c.parked, tx.ID)
		c.parkMu.Unlock()
		c.log.Warn("hub transaction handed over but never claimed; abandoned", "trans_id", tx.ID, "after", c.cfg.ParkTimeout)
		tx.fail(fmt.Errorf("hub transaction %s: not claimed within %s", tx.ID, c.cfg.ParkTimeout))
	})
	c.parked[tx.ID] = p
}

// Claim takes over the open transaction id that was handed over (by the
// fallback stage, a trigger or a redirect). An id naming no such
// transaction of this client is an error.
func (c *Client) Claim(id string) (*Transaction, error) { return c.claimIf(id, nil) }

// claimIf is Claim when accept, if set, takes the transaction; one it
// refuses (its error is returned) stays parked for whoever it was handed
// to.
func (c *Client) claimIf(id string, accept func(*Transaction) error) (*Transaction, error) {
	c.parkMu.Lock()
	defer c.parkMu.Unlock()
	p, ok := c.parked[id]
	if !ok {
		return nil, fmt.Errorf("hub transaction %q: no open transaction of this robot waits to be claimed", clip(id))
	}
	if accept != nil {
		if err := accept(p.tx); err != nil {
			return nil, err
		}
	}
	p.timer.Stop()
	delete(c.parked, id)
	return p.tx, nil
}

// clip shortens a value quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Probe opens a websocket to /v1/listen and closes it again: it tells
// whether the hub takes the robot (token, TLS, subprotocol) and which
// encoding it chose.
func (c *Client) Probe(ctx context.Context) (wire.Encoding, error) {
	conn, err := c.connect(ctx, EndpointListen)
	if err != nil {
		return 0, err
	}
	_ = conn.Close(websocket.StatusNormalClosure, "probe")
	return conn.Encoding(), nil
}
