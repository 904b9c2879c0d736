package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Transaction is one turn with the hub: the messages the robot sent under
// one transID and the hub's replies to them, in order.
type Transaction struct {
	// ID is the transaction's transID.
	ID string

	c    *Client
	l    *link
	conn *wire.Conn // per-turn links: the transaction's own websocket
	ch   chan *protocol.HubResponse
	// deadline bounds the whole transaction.
	deadline time.Time
	// continues is the running cloud skill the transaction's CONTEXT
	// named (the remote fallback's turn for an active skill); nil for a
	// launch. Set before the transaction is handed over.
	continues *protocol.SkillData

	mu       sync.Mutex
	done     chan struct{} // closed when failed or closed
	err      error         // why, once done
	finalIn  bool          // the reader delivered the final message
	finalOut bool          // Next returned it
}

func newTransaction(c *Client, l *link, id string, conn *wire.Conn) *Transaction {
	return &Transaction{ID: id, c: c, l: l, conn: conn, ch: make(chan *protocol.HubResponse, MaxTransactionMessages),
		done: make(chan struct{}), deadline: time.Now().Add(c.cfg.TransactionTimeout)}
}

// isFinal says whether r ends its transaction: final true, or an ERROR
// (which always ends it).
func isFinal(r *protocol.HubResponse) bool {
	return r.Type == protocol.TypeError || r.Final != nil && *r.Final
}

// deliver hands the transaction a reply; it reports whether the
// transaction takes more.
func (t *Transaction) deliver(r *protocol.HubResponse) bool {
	t.mu.Lock()
	if t.finalIn || t.err != nil {
		t.mu.Unlock()
		return false
	}
	select {
	case t.ch <- r:
	default:
		t.mu.Unlock()
		t.fail(fmt.Errorf("%w: more than %d messages in transaction %s", ErrProtocol, MaxTransactionMessages, t.ID))
		return false
	}
	if isFinal(r) {
		t.finalIn = true
	}
	more := !t.finalIn
	t.mu.Unlock()
	if !more {
		t.l.forget(t)
	}
	return more
}

// fail ends the transaction with err; the replies already delivered are
// still returned by Next first. It reports whether this call ended it
// (false when it had already ended).
func (t *Transaction) fail(err error) bool {
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return false
	}
	t.err = err
	close(t.done)
	t.mu.Unlock()
	t.l.forget(t)
	t.closeConn()
	return true
}

func (t *Transaction) closeConn() {
	if t.conn != nil {
		_ = t.conn.Close(websocket.StatusNormalClosure, "transaction over")
	}
}

// Close ends the transaction on the robot's side; replies still coming
// are dropped. It is safe to call more than once.
func (t *Transaction) Close() { t.fail(errTxClosed) }

var errTxClosed = errors.New("transaction closed")

// Next returns the hub's next reply, waiting at most the reply timeout
// (and never past the transaction's deadline). After the final reply it
// returns io.EOF itself, never wrapped (as io.Reader does): test it with
// Ended. A link that dropped, a stalled hub or a bad frame in the
// transaction end it with an error wrapping ErrLinkDown, ErrTimeout or
// ErrProtocol.
func (t *Transaction) Next(ctx context.Context) (*protocol.HubResponse, error) {
	if t.finalOut {
		return nil, io.EOF
	}
	select { // what already arrived comes first, even after a failure
	case r := <-t.ch:
		return t.got(r), nil
	default:
	}
	wait := min(t.c.cfg.ReplyTimeout, time.Until(t.deadline))
	timer := time.NewTimer(max(wait, 0))
	defer timer.Stop()
	select {
	case r := <-t.ch:
		return t.got(r), nil
	case <-t.done:
		select {
		case r := <-t.ch:
			return t.got(r), nil
		default:
		}
		t.mu.Lock()
		err := t.err
		t.mu.Unlock()
		if errors.Is(err, errTxClosed) {
			return nil, io.EOF
		}
		return nil, err
	case <-timer.C:
		// A reply may have arrived while this goroutine waited to run: a
		// busy machine can wake it late, with both ready, and select
		// picks one at random.
		select {
		case r := <-t.ch:
			return t.got(r), nil
		default:
		}
		err := fmt.Errorf("%w: transaction %s: no reply within %s", ErrTimeout, t.ID, wait.Round(time.Millisecond))
		if last := t.l.lastFrameError(); last != nil {
			err = fmt.Errorf("%w (the hub's last bad frame: %v)", err, last)
		}
		t.fail(err)
		return nil, err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the hub in transaction %s: %w", t.ID, context.Cause(ctx))
	}
}

// Ended reports whether err, from Next, is the transaction's normal end.
// It compares with io.EOF itself: a failure whose cause wraps io.EOF (a
// hub that vanished reads as one, so may an empty frame) is a failure,
// never a clean end.
func Ended(err error) bool {
	return err == io.EOF
}

func (t *Transaction) got(r *protocol.HubResponse) *protocol.HubResponse {
	if isFinal(r) {
		t.finalOut = true
		t.fail(errTxClosed) // nothing more is routed to it
	}
	return r
}
