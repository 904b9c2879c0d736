package hub

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// recordedTx is one transaction of a recorded exchange.
type recordedTx struct {
	endpoint string
	robot    []*protocol.HubRequest
	hub      []*protocol.HubResponse
}

func readExchange(t *testing.T, path string) []*recordedTx {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	lines, err := wire.ReadRecorded(f)
	require.NoError(t, err)
	var out []*recordedTx
	byID := map[string]*recordedTx{}
	for _, l := range lines {
		id := ""
		if l.Request != nil {
			id = l.Request.TransID
		} else {
			id = l.Response.TransID
		}
		tx := byID[id]
		if tx == nil {
			tx = &recordedTx{endpoint: EndpointListen}
			if l.Endpoint != "" {
				tx.endpoint = l.Endpoint
			}
			byID[id] = tx
			out = append(out, tx)
		}
		if l.Request != nil {
			tx.robot = append(tx.robot, l.Request)
		} else {
			tx.hub = append(tx.hub, l.Response)
		}
	}
	return out
}

// TestRecordedExchanges plays each recorded exchange of examples/hub
// (the real robots' JSON shapes, jibo.md §1, §7): the robot's lines go to
// a scripted hub, which checks their types and order on the right
// endpoint and answers with the recorded hub lines; the client must accept
// every hub line, in order, up to the final one.
func TestRecordedExchanges(t *testing.T) {
	files, err := filepath.Glob("../../examples/hub/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files, "the recorded exchanges are in examples/hub")
	for _, path := range files {
		for _, enc := range []wire.Encoding{wire.JSON, wire.CBOR} {
			t.Run(filepath.Base(path)+"/"+enc.String(), func(t *testing.T) {
				txs := readExchange(t, path)
				next := make(chan *recordedTx, len(txs))
				for _, tx := range txs {
					next <- tx
				}
				var cur atomic.Pointer[recordedTx]
				h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
					// The first message tells a transaction from the per-turn
					// link's probe, which closes at once: only a transaction
					// comes after the test set cur, so read it first.
					first, err := c.ReadRequest(context.Background())
					if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
						return // the per-turn link's probe
					}
					if !assert.NoError(t, err) {
						return
					}
					want := cur.Load()
					if !assert.NotNil(t, want, "a transaction before the test started one") {
						return
					}
					tid := first.TransID
					for i, r := range want.robot {
						got := first
						if i > 0 {
							if got, err = c.ReadRequest(context.Background()); !assert.NoError(t, err) {
								return
							}
						}
						assert.Equal(t, r.Type, got.Type, "robot message %d", i)
						assert.Equal(t, tid, got.TransID, "robot message %d", i)
					}
					for _, r := range want.hub {
						m := *r
						m.TransID = tid
						if !assert.NoError(t, c.WriteResponse(context.Background(), &m)) {
							return
						}
					}
					_, _ = c.ReadRequest(context.Background()) // until the robot closes
				})
				states := make(chan LinkState, 64)
				c := newTestClient(t, h, PerTurn, enc, states)
				waitState(t, states, Up)
				for range txs {
					current := <-next
					cur.Store(current)
					for len(h.paths) > 0 {
						<-h.paths
					}
					msgs := make([]*protocol.HubRequest, len(current.robot))
					for i, r := range current.robot {
						m := *r
						msgs[i] = &m
					}
					transact := c.Transact
					if current.endpoint == EndpointProactive {
						transact = c.TransactProactive
					}
					tx, err := transact(context.Background(), msgs...)
					require.NoError(t, err)
					var got []string
					for {
						r, err := tx.Next(context.Background())
						if errors.Is(err, io.EOF) {
							break
						}
						require.NoError(t, err)
						got = append(got, r.Type)
					}
					var want []string
					for _, r := range current.hub {
						want = append(want, r.Type)
					}
					assert.Equal(t, want, got)
					assert.Equal(t, current.endpoint, <-h.paths, "the transaction went to its endpoint")
					tx.Close()
				}
			})
		}
	}
}
