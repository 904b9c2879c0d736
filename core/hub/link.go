package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/openjibo/jibod/core/hub/wire"
)

// link is the client's connection to one endpoint: its state, its open
// transactions and, when persistent, its websocket.
type link struct {
	c          *Client
	path       string
	persistent bool

	mu  sync.Mutex
	st  LinkState
	txs map[string]*Transaction
	// conn is the persistent websocket while up; ready is closed while it
	// is, and replaced when the link goes down.
	conn  *wire.Conn
	ready chan struct{}
	// frameErr is the last bad frame the hub sent, to explain a timeout.
	frameErr error
	// down wakes a per-turn link's watch when a turn could not connect or
	// its connection dropped.
	down chan error
	// stopped is set by shutdown: nothing new is opened.
	stopped bool

	// stateMu orders OnState and bus publications.
	stateMu sync.Mutex
}

func newLink(c *Client, path string, persistent bool) *link {
	l := &link{c: c, path: path, persistent: persistent, txs: map[string]*Transaction{},
		ready: make(chan struct{}), down: make(chan error, 1)}
	l.st = LinkState{Status: Connecting, URL: c.URL(), Encoding: c.cfg.Encoding.String(), Since: c.cfg.Now()}
	return l
}

func (l *link) state() LinkState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st
}

// setState records a new state and tells the bus and OnState.
func (l *link) setState(s LinkStatus, err error, retry time.Time) {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	l.mu.Lock()
	enc := l.c.cfg.Encoding.String()
	if l.conn != nil {
		enc = l.conn.Encoding().String()
	}
	old := l.st
	st := LinkState{Status: s, URL: l.c.URL(), Encoding: enc, Since: l.c.cfg.Now(), Err: err, Retry: retry}
	if old.Status == s && errText(old.Err) == errText(err) && old.Encoding == enc && retry.IsZero() && old.Retry.IsZero() {
		l.mu.Unlock()
		return // nothing new to say
	}
	l.st = st
	l.mu.Unlock()
	log := l.c.log.With("endpoint", l.path, "state", string(s))
	switch s {
	case Down:
		log.Warn("hub link down", "err", err, "retry_in", retry.Sub(st.Since).Round(time.Millisecond))
	case Up:
		log.Info("hub link up", "url", st.URL, "encoding", enc)
	default:
		log.Debug("hub link state")
	}
	if err := publishState(l.c.cfg.Bus, st); err != nil {
		log.Warn("hub link state not published", "err", err)
	}
	if l.c.cfg.OnState != nil {
		l.c.cfg.OnState(st)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// run keeps the link: a persistent one connected, a per-turn one probed
// while the hub is unreachable and watched while it is up.
func (l *link) run(ctx context.Context) {
	bo := backoff{min: l.c.cfg.BackoffMin, max: l.c.cfg.BackoffMax}
	for ctx.Err() == nil {
		l.setState(Connecting, nil, time.Time{})
		conn, err := l.c.connect(ctx, l.path)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !l.sleepDown(ctx, err, bo.next()) {
				return
			}
			continue
		}
		bo.reset()
		if !l.persistent {
			closeProbe(ctx, conn)
			// A turn that failed before this probe reached the hub says
			// nothing about the hub now.
			select {
			case <-l.down:
			default:
			}
			l.setState(Up, nil, time.Time{})
			err = l.watch(ctx)
		} else {
			err = l.serve(ctx, conn)
		}
		if ctx.Err() != nil {
			return
		}
		if !l.sleepDown(ctx, err, bo.next()) {
			return
		}
	}
}

// watch keeps a per-turn link up until a turn fails to connect or drops,
// or a probe every Heartbeat fails: without the probes a hub gone between
// turns would show as up until the robot's next turn. It returns why the
// link is down (ctx's error when ctx ended).
func (l *link) watch(ctx context.Context) error {
	tick := time.NewTicker(l.c.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case err := <-l.down:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		conn, err := l.c.connect(ctx, l.path)
		if err != nil {
			return fmt.Errorf("hub probe: %w", err)
		}
		closeProbe(ctx, conn)
	}
}

// closeProbe closes a probe connection. The close handshake keeps the
// hub's log clean; it cannot be cancelled, but the websocket library
// bounds it (5 s per direction), and once ctx has ended it is skipped.
func closeProbe(ctx context.Context, conn *wire.Conn) {
	if ctx.Err() != nil {
		_ = conn.CloseNow()
		return
	}
	_ = conn.Close(websocket.StatusNormalClosure, "probe")
}

// sleepDown reports the link down with err until the next attempt, d from
// now; false when ctx ended first.
func (l *link) sleepDown(ctx context.Context, err error, d time.Duration) bool {
	l.setState(Down, err, l.c.cfg.Now().Add(d))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// serve runs a persistent connection: heartbeats, and the single reader
// routing replies by transID, until the connection fails. Every open
// transaction then fails with ErrLinkDown.
func (l *link) serve(ctx context.Context, conn *wire.Conn) error {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		_ = conn.Close(websocket.StatusGoingAway, "robot shutting down")
		return ErrClosed
	}
	l.conn = conn
	close(l.ready)
	l.mu.Unlock()
	l.setState(Up, nil, time.Time{})

	hctx, stopBeat := context.WithCancel(ctx)
	beatDone := make(chan struct{})
	go func() { // owned: stopped and waited for below
		defer close(beatDone)
		l.heartbeat(hctx, conn)
	}()
	err := l.readLoop(ctx, conn)
	stopBeat()
	<-beatDone
	_ = conn.CloseNow()

	l.mu.Lock()
	l.conn = nil
	l.ready = make(chan struct{})
	open := make([]*Transaction, 0, len(l.txs))
	for _, t := range l.txs {
		open = append(open, t)
	}
	l.mu.Unlock()
	for _, t := range open {
		t.fail(linkDown(t.ID, err))
	}
	return err
}

// linkDown is the error of transaction id whose connection failed with
// cause. The cause is kept as text only: a hub that dies (SIGKILL, a
// crash) reads as io.EOF, which Transaction.Next returns for a
// transaction's normal end; a caller testing with errors.Is rather than
// Ended would take the drop for the hub ending the turn.
func linkDown(id string, cause error) error {
	return fmt.Errorf("%w: transaction %s: %v", ErrLinkDown, id, cause)
}

// heartbeat pings the hub every Heartbeat; a ping without its pong closes
// the connection, which the reader reports.
func (l *link) heartbeat(ctx context.Context, conn *wire.Conn) {
	tick := time.NewTicker(l.c.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		pctx, cancel := context.WithTimeout(ctx, l.c.cfg.ConnectTimeout)
		err := conn.Ping(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			l.c.log.Warn("hub heartbeat failed; closing the link", "err", err)
			_ = conn.CloseNow()
			return
		}
	}
}

// readLoop routes the hub's replies to their transactions until the
// connection fails. Bad frames are logged within the report rate of
// wire.BadFrames; maxFrameErrors in a row, or more than its tolerance,
// close the link.
func (l *link) readLoop(ctx context.Context, conn *wire.Conn) error {
	inRow := 0
	bad := wire.NewBadFrames()
	for {
		r, err := conn.ReadResponse(ctx)
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			inRow++
			v := bad.Bad(l.c.cfg.Now(), true)
			l.badFrame(fe, v)
			switch {
			case v.Close:
				_ = conn.Close(wire.CloseBadFrame, v.Reason)
				return fmt.Errorf("%w: %s: %w", ErrProtocol, v.Reason, err)
			case fe.Fatal() || inRow >= maxFrameErrors:
				_ = conn.Close(wire.CloseBadFrame, "bad frames")
				return fmt.Errorf("%w: %w", ErrProtocol, err)
			}
			continue
		case err != nil:
			return err
		}
		inRow = 0
		l.mu.Lock()
		t := l.txs[r.TransID]
		l.mu.Unlock()
		if t == nil {
			l.c.log.Debug("hub reply for no open transaction; dropped", "trans_id", r.TransID, "type", r.Type)
			continue
		}
		t.deliver(r)
	}
}

// badFrame notes a frame the hub should not have sent, logs it when v
// says to report it, and fails its transaction when the frame still named
// one.
func (l *link) badFrame(fe *wire.FrameError, v wire.Verdict) {
	if v.Report || v.Close || fe.Fatal() {
		if v.Unreported > 0 {
			l.c.log.Warn("bad frames from the hub not logged (over the report rate)", "count", v.Unreported)
		}
		l.c.log.Warn("bad frame from the hub", "err", fe)
	}
	l.mu.Lock()
	l.frameErr = fe
	t := l.txs[fe.TransID]
	l.mu.Unlock()
	if t != nil && fe.TransID != "" {
		t.fail(fmt.Errorf("%w: %w", ErrProtocol, fe))
	}
}

func (l *link) lastFrameError() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.frameErr
}

// waitUp returns the persistent connection, waiting up to ConnectTimeout
// while the link is connecting.
func (l *link) waitUp(ctx context.Context) (*wire.Conn, error) {
	l.mu.Lock()
	conn, ready, st := l.conn, l.ready, l.st
	l.mu.Unlock()
	if conn != nil {
		return conn, nil
	}
	if st.Status == Down || st.Status == Disabled {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, st)
	}
	t := time.NewTimer(l.c.cfg.ConnectTimeout)
	defer t.Stop()
	select {
	case <-ready:
		l.mu.Lock()
		conn = l.conn
		l.mu.Unlock()
		if conn != nil {
			return conn, nil
		}
	case <-t.C:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the hub link: %w", context.Cause(ctx))
	}
	return nil, fmt.Errorf("%w: %s", ErrUnavailable, l.state())
}

// open registers a transaction on the persistent connection.
func (l *link) open(id string, conn *wire.Conn) (*Transaction, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != conn {
		return nil, fmt.Errorf("%w: the link dropped", ErrUnavailable)
	}
	if l.stopped {
		return nil, ErrClosed
	}
	if len(l.txs) >= MaxTransactions {
		return nil, fmt.Errorf("hub link: %d transactions open, limit %d", len(l.txs), MaxTransactions)
	}
	t := newTransaction(l.c, l, id, nil)
	l.txs[id] = t
	return t, nil
}

// forget removes a transaction from the routing table.
func (l *link) forget(t *Transaction) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.txs[t.ID] == t {
		delete(l.txs, t.ID)
	}
}

// readTurn reads a per-turn transaction's own websocket until its final
// reply or a failure.
func (l *link) readTurn(t *Transaction) {
	defer t.closeConn()
	for {
		r, err := t.conn.ReadResponse(context.Background())
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			// One per turn's websocket: always logged.
			l.badFrame(fe, wire.Verdict{Report: true})
			t.fail(fmt.Errorf("%w: %w", ErrProtocol, fe))
			return
		case err != nil:
			// The read also fails when the robot ended the transaction
			// (closing its websocket): only a drop under a live turn
			// means the hub went away.
			if err := linkDown(t.ID, err); t.fail(err) {
				l.failed(err)
			}
			return
		}
		if r.TransID != "" && r.TransID != t.ID {
			l.c.log.Warn("hub reply names another transaction; dropped", "trans_id", r.TransID, "want", t.ID)
			continue
		}
		if !t.deliver(r) {
			return
		}
	}
}

// failed notes that a per-turn connection could not be opened or dropped
// mid-turn: the link is down with err until a probe reaches the hub again.
func (l *link) failed(err error) {
	select {
	case l.down <- err:
	default:
	}
}

// register records a per-turn transaction on its own websocket, so
// shutdown can end it.
func (l *link) register(id string, conn *wire.Conn) (*Transaction, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return nil, ErrClosed
	}
	if len(l.txs) >= MaxTransactions {
		return nil, fmt.Errorf("hub link: %d transactions open, limit %d", len(l.txs), MaxTransactions)
	}
	t := newTransaction(l.c, l, id, conn)
	l.txs[id] = t
	return t, nil
}

// shutdown closes the persistent connection; run then returns.
func (l *link) shutdown() {
	l.mu.Lock()
	l.stopped = true
	conn := l.conn
	open := make([]*Transaction, 0, len(l.txs))
	for _, t := range l.txs {
		open = append(open, t)
	}
	l.mu.Unlock()
	for _, t := range open {
		t.fail(ErrClosed)
	}
	if conn != nil {
		_ = conn.Close(wire.CloseShuttingDown, "robot shutting down")
	}
}
