package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// endpoint is which websocket endpoint a connection came in on.
type endpoint string

const (
	endpointListen    endpoint = "listen"
	endpointProactive endpoint = "proactive"
)

// errShutdown ends transactions when the hub stops.
var errShutdown = errors.New("hub shutting down")

// conn is one robot's websocket: a reader (the handler goroutine) routing
// messages to its transactions, each running in a goroutine of its own.
type conn struct {
	s        *Server
	ws       *wire.Conn
	id       identity
	endpoint endpoint
	log      *slog.Logger
	invoker  *invoke.Invoker

	ctx    context.Context // cancelled when the connection ends
	cancel context.CancelCauseFunc

	// bad meters the robot's bad frames; only the reader uses it.
	bad *wire.BadFrames

	mu    sync.Mutex
	txns  map[string]*txn
	audio *txn // the last transaction waiting for audio (LISTEN without mode)
	wg    sync.WaitGroup

	lastSeen atomic.Int64 // unix nanos of the last frame, pings included
	// idle fires checkIdle; idleMu is held while it runs, so the handler
	// can wait for a running check before it returns.
	idleMu      sync.Mutex
	idle        *time.Timer
	idleStopped bool
}

// serveLink authenticates, upgrades and runs one connection until it ends.
func (s *Server) serveLink(w http.ResponseWriter, r *http.Request, ep endpoint) {
	id, err := s.authenticate(r)
	if err != nil {
		s.log.Info("robot refused", "endpoint", ep, "remote", r.RemoteAddr, "err", err)
		writeHTTPError(w, http.StatusUnauthorized, "UNAUTHORIZED", err.Error())
		return
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		writeHTTPError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "hub shutting down")
		return
	}
	if s.nConns.Load() >= int64(s.cfg.Limits.MaxConnections) {
		s.mu.Unlock()
		writeHTTPError(w, http.StatusServiceUnavailable, "UNAVAILABLE",
			fmt.Sprintf("hub at its limit of %d connections", s.cfg.Limits.MaxConnections))
		return
	}
	s.nConns.Add(1)
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	defer s.nConns.Add(-1)

	c := &conn{s: s, id: id, endpoint: ep, txns: map[string]*txn{}, bad: wire.NewBadFrames()}
	ws, err := wire.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: wire.AcceptSubprotocols(),
		OnPingReceived: func(context.Context, []byte) bool {
			c.touch()
			return true
		},
	})
	if err != nil {
		s.log.Info("websocket upgrade failed", "endpoint", ep, "remote", r.RemoteAddr, "err", err)
		return
	}
	enc, err := wire.Negotiated(ws.Subprotocol())
	if err != nil { // Accept only settles on what we offered
		_ = ws.Close(wire.CloseBadFrame, err.Error())
		return
	}
	c.ws = wire.NewConn(ws, enc)
	c.log = s.log.With("endpoint", ep, "encoding", enc.String(), "remote", r.RemoteAddr)
	c.invoker, err = invoke.New(invoke.Config{Recorder: s.cfg.Records, Logger: c.log, MaxAttempts: 1,
		Unmetered: s.cfg.Unmetered})
	if err != nil {
		_ = ws.Close(websocket.StatusInternalError, "hub error")
		return
	}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	if !s.register(c) {
		_ = ws.Close(wire.CloseShuttingDown, errShutdown.Error())
		return
	}
	defer s.unregister(c)
	c.touch()
	c.idle = time.AfterFunc(s.cfg.Timeouts.Idle, c.checkIdle)
	c.read()
	c.idle.Stop()
	c.idleMu.Lock() // waits for a check in progress
	c.idleStopped = true
	c.idleMu.Unlock()
	c.stop(errors.New("connection closed"))
	c.wg.Wait()
	ictx, cancel := context.WithTimeout(context.Background(), s.cfg.Timeouts.Skill)
	defer cancel()
	if err := c.invoker.Close(ictx); err != nil {
		c.log.Warn("skill calls still running after the connection ended", "err", err)
	}
	_ = c.ws.CloseNow()
}

func (s *Server) register(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

func (c *conn) touch() { c.lastSeen.Store(time.Now().UnixNano()) }

// checkIdle closes a connection with no transaction open and no frame for
// the idle timeout, else checks again when that could next be true.
func (c *conn) checkIdle() {
	c.idleMu.Lock()
	defer c.idleMu.Unlock()
	if c.idleStopped {
		return
	}
	idle := c.s.cfg.Timeouts.Idle
	c.mu.Lock()
	open := len(c.txns)
	c.mu.Unlock()
	since := time.Since(time.Unix(0, c.lastSeen.Load()))
	if open == 0 && since >= idle {
		c.log.Info("dropping idle connection", "idle", idle)
		c.stop(errors.New("idle"))
		// The reader sees the close and ends the connection.
		_ = c.ws.Close(websocket.StatusNormalClosure, "idle")
		return
	}
	c.idle.Reset(max(idle-since, time.Second))
}

// shutdown ends the connection for Close: its transactions answer
// "hub shutting down", then the link closes with CloseShuttingDown.
func (c *conn) shutdown() {
	c.stop(errShutdown)
	c.wg.Wait()
	_ = c.ws.Close(wire.CloseShuttingDown, errShutdown.Error())
}

// stop cancels the connection's context under mu, so open either sees it
// cancelled or has registered its transaction before the cancel.
func (c *conn) stop(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancel(cause)
}

// read is the connection's only reader: it hands each message to its
// transaction and answers what belongs to none, within the link's
// bad-frame limits (wire.BadFrames).
func (c *conn) read() {
	for {
		// Reads are not bound to c.ctx: a cancelled read would close the
		// link before shutdown could say why. Closing the link ends them.
		req, err := c.ws.ReadRequest(context.Background())
		if err != nil {
			c.touch()
			var fe *wire.FrameError
			switch {
			case errors.As(err, &fe):
				if fe.Fatal() {
					c.log.Warn("closing link after a bad frame", "err", err)
					return
				}
				if t := c.lookup(fe.TransID); fe.TransID != "" && t != nil {
					if c.badFrame(err) {
						return
					}
					t.abort(&hubError{code: fe.Code(), err: err})
					continue
				}
				if c.refuse(true, "bad frame", protocol.NewHubError(fe.Code(), err.Error(), protocol.WithTransID(fe.TransID))) {
					return
				}
			case errors.Is(err, wire.ErrAudio):
				c.mu.Lock()
				t := c.audio
				c.mu.Unlock()
				if t != nil {
					t.abort(&hubError{code: protocol.HubErrorASR,
						err: errors.New("this hub has no speech recognition: send CLIENT_ASR or CLIENT_NLU")})
					continue
				}
				if c.refuse(true, "audio frame without an open LISTEN",
					protocol.NewHubError(protocol.HubErrorASR, "audio frame without an open LISTEN; this hub has no speech recognition")) {
					return
				}
			default:
				if c.ctx.Err() == nil {
					c.log.Debug("link closed", "err", err)
				}
				return
			}
			continue
		}
		c.touch()
		if c.dispatch(req) {
			return
		}
	}
}

// meter notes one bad frame (fault: the robot's, so it counts toward
// closing the link). It closes the link when the robot has sent too many
// (closed), and otherwise says whether to answer and log this one (the
// rest are summed up in one line with the next report). Only the reader
// calls it.
func (c *conn) meter(fault bool) (report, closed bool) {
	v := c.bad.Bad(c.s.cfg.Now(), fault)
	switch {
	case v.Close:
		c.log.Warn("closing link: too many bad frames", "bad_frames", c.bad.Total(),
			"limit", wire.BadFrameCloseBurst, "per_second", wire.BadFrameCloseRate)
		_ = c.ws.Close(wire.CloseBadFrame, v.Reason)
		return false, true
	case v.Report && v.Unreported > 0:
		c.log.Info("bad frames neither answered nor logged (over the report rate)", "count", v.Unreported)
	}
	return v.Report, false
}

// badFrame meters a bad frame that ends a transaction (which answers it
// itself), logging it when within the report rate; it reports whether the
// link was closed for too many.
func (c *conn) badFrame(err error) (closed bool) {
	report, closed := c.meter(true)
	if report {
		c.log.Info("bad frame", "err", err)
	}
	return closed
}

// refuse meters a message or frame that belongs to no transaction and
// answers it with ERROR when within the report rate; it reports whether
// the link was closed for too many.
func (c *conn) refuse(fault bool, msg string, m *protocol.HubResponse) (closed bool) {
	report, closed := c.meter(fault)
	if report {
		c.log.Info(msg, "trans_id", m.TransID, "code", m.Error.Code, "err", m.Error.Message)
		c.send(m, true)
	}
	return closed
}

func (c *conn) lookup(id string) *txn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.txns[id]
}

// dispatch routes one message: an opener starts a transaction, anything
// else goes to its open transaction or gets ERROR GENERAL. It reports
// whether the link was closed for too many bad frames.
func (c *conn) dispatch(req *protocol.HubRequest) (closed bool) {
	id := req.TransID
	c.mu.Lock()
	t := c.txns[id]
	c.mu.Unlock()
	if t != nil {
		t.deliver(req)
		return false
	}
	opener := protocol.TypeListen
	if c.endpoint == endpointProactive {
		opener = protocol.TypeTrigger
	}
	switch {
	case req.Type == opener:
		return c.open(req)
	case req.Type == protocol.TypeListen || req.Type == protocol.TypeTrigger:
		return c.fail(true, id, fmt.Sprintf("%s is not taken on /%s (LISTEN goes to /listen, TRIGGER to /proactive)", req.Type, c.endpoint))
	case req.Type == protocol.TypeCmdResult:
		return c.fail(true, id, "CMD_RESULT is not supported by this hub")
	default:
		return c.fail(true, id, fmt.Sprintf("no open transaction %q for %s: a transaction starts with %s", id, req.Type, opener))
	}
}

// fail answers a message that belongs to no transaction with ERROR
// GENERAL, within the bad-frame limits (fault: the robot's).
func (c *conn) fail(fault bool, transID, msg string) (closed bool) {
	return c.refuse(fault, "message refused", protocol.NewHubError(protocol.HubErrorGeneral, msg, protocol.WithTransID(transID)))
}

// open starts a transaction, within the connection's and the hub's
// bounds. It reports whether the link was closed for too many bad frames.
func (c *conn) open(req *protocol.HubRequest) (closed bool) {
	lim := c.s.cfg.Limits
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return false
	}
	if len(c.txns) >= lim.TransactionsPerConn {
		c.mu.Unlock()
		return c.fail(true, req.TransID, fmt.Sprintf("too many open transactions on this link (limit %d)", lim.TransactionsPerConn))
	}
	if c.s.nTxns.Add(1) > int64(lim.Transactions) {
		c.s.nTxns.Add(-1)
		c.mu.Unlock()
		// The hub's bound, not the robot's fault.
		return c.fail(false, req.TransID, fmt.Sprintf("hub busy: too many open transactions (limit %d)", lim.Transactions))
	}
	t := newTxn(c, req)
	c.txns[req.TransID] = t
	if req.Type == protocol.TypeListen && t.mode == modeAudio {
		c.audio = t
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		t.run()
		c.mu.Lock()
		delete(c.txns, t.id)
		if c.audio == t {
			c.audio = nil
		}
		c.mu.Unlock()
		c.s.nTxns.Add(-1)
	}()
	return false
}

// send writes one message, bounded by the write timeout; it keeps going
// when the connection is being shut down so last words get out.
func (c *conn) send(m *protocol.HubResponse, final bool) error {
	if final {
		f := true
		m.Final = &f
	} else if m.Final == nil {
		f := false
		m.Final = &f
	}
	m.TS = c.s.cfg.Now().UnixMilli()
	ctx, cancel := context.WithTimeout(context.Background(), c.s.cfg.Timeouts.Write)
	defer cancel()
	if err := c.ws.WriteResponse(ctx, m); err != nil {
		c.log.Debug("sending to robot", "type", m.Type, "trans_id", m.TransID, "err", err)
		return err
	}
	return nil
}
