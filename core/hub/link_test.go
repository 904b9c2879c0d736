package hub

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// serveTurns answers every CLIENT_NLU turn of a connection with the fact.
func serveTurns(t *testing.T, c *wire.Conn) {
	for {
		msgs := readTurn(t, c, protocol.TypeClientNLU)
		if len(msgs) == 0 {
			return
		}
		answer(t, c, msgs[0].TransID, "openjibo/fact", sayAction)
	}
}

// writePEM writes a certificate as a PEM file and returns its path.
func writePEM(t *testing.T, der []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return path
}

// otherCA is a self-signed CA that signed nothing the hub serves.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not the hub's CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return der
}

// The robot trusts a hub's certificate only through Config.CAFile: the
// right CA gives an Up link over wss:// and a working turn; another CA
// leaves the link Down saying why; a CA file without a certificate is
// refused when the client is built.
func TestTLSWithCAFile(t *testing.T) {
	h := newFakeHubOn(t, serveTurns, true)
	wss := "wss" + strings.TrimPrefix(h.srv.URL, "https")

	t.Run("trusted CA", func(t *testing.T) {
		states := make(chan LinkState, 64)
		c, err := NewClient(Config{URL: wss, CAFile: writePEM(t, h.srv.Certificate().Raw), Encoding: wire.CBOR,
			Logger: quiet, OnState: func(st LinkState) { states <- st }})
		require.NoError(t, err)
		require.NoError(t, c.Start(context.Background()))
		defer c.Close(context.Background())
		up := waitState(t, states, Up)
		assert.Equal(t, wss, up.URL)
		tx, err := c.Transact(context.Background(), launchMsgs()...)
		require.NoError(t, err)
		var last *protocol.HubResponse
		for {
			r, err := tx.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			last = r
		}
		require.NotNil(t, last)
		assert.Equal(t, protocol.TypeSkillAction, last.Type)
	})

	t.Run("wrong CA", func(t *testing.T) {
		states := make(chan LinkState, 64)
		c, err := NewClient(Config{URL: wss, CAFile: writePEM(t, otherCA(t)), Logger: quiet,
			BackoffMin: time.Hour, BackoffMax: time.Hour, OnState: func(st LinkState) { states <- st }})
		require.NoError(t, err)
		require.NoError(t, c.Start(context.Background()))
		defer c.Close(context.Background())
		down := waitState(t, states, Down)
		require.Error(t, down.Err)
		assert.Contains(t, down.Err.Error(), "certificate signed by unknown authority")
		assert.Contains(t, down.Err.Error(), wss+EndpointListen, "the error names the endpoint")
		assert.False(t, c.Available())
		assert.Contains(t, c.State().String(), "down: "+wss)
	})

	t.Run("no CA in the file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "empty.pem")
		require.NoError(t, os.WriteFile(path, []byte("not a certificate\n"), 0o600))
		_, err := NewClient(Config{URL: wss, CAFile: path})
		require.ErrorContains(t, err, "hub CA file "+path+": no PEM certificate in it")
		_, err = NewClient(Config{URL: wss, CAFile: filepath.Join(t.TempDir(), "missing.pem")})
		require.ErrorContains(t, err, "hub CA file")
	})
}

// A hub that stops answering pings is dropped by the heartbeat: the link
// goes Down and reconnects, and turns work on the new connection.
func TestHeartbeatFailureReconnects(t *testing.T) {
	var conns atomic.Int32
	// accepted gets each connection's number once the hub's handler has
	// counted it: the client reports Up as soon as the upgrade is done,
	// which can be before the handler runs.
	accepted := make(chan int32, 64)
	release := make(chan struct{})
	h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
		n := conns.Add(1)
		select {
		case accepted <- n:
		default:
		}
		if n == 1 {
			<-release // never reads: pings go unanswered
			return
		}
		serveTurns(t, c)
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	states := make(chan LinkState, 64)
	// ConnectTimeout also bounds a ping's wait for its pong: long enough
	// that the answering hub's pongs are never missed on a loaded machine.
	c, err := NewClient(Config{URL: h.url(), Logger: quiet, Heartbeat: 20 * time.Millisecond,
		ConnectTimeout: 500 * time.Millisecond, BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond,
		OnState: sendState(states)})
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	defer c.Close(context.Background())

	waitState(t, states, Up)
	down := waitState(t, states, Down)
	require.Error(t, down.Err, "the dropped link says why")
	waitState(t, states, Up)
	assert.Equal(t, int32(1), waitAccepted(t, accepted), "the first connection")
	assert.Equal(t, int32(2), waitAccepted(t, accepted), "the link reconnected")
	tx, err := c.Transact(context.Background(), launchMsgs()...)
	require.NoError(t, err)
	defer tx.Close()
	r, err := tx.Next(context.Background())
	require.NoError(t, err)
	assert.Equal(t, protocol.TypeSOS, r.Type, "the new connection carries turns")
}

// waitAccepted returns the next connection the fake hub counted.
func waitAccepted(t *testing.T, accepted chan int32) int32 {
	t.Helper()
	select {
	case n := <-accepted:
		return n
	case <-time.After(10 * time.Second): // only keeps a broken build from hanging
		t.Fatal("the hub took no connection")
		return 0
	}
}

// The reconnect loop waits a jittered, doubling delay between attempts
// ([d/2, d] of 1 s, 2 s, 4 s, then 4 s at the cap), announces each next
// attempt in the Down state, and stops when the client closes. The clock
// is synctest's: no real sleeping.
func TestReconnectBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var attempts []time.Time
		var downs []LinkState
		c, err := NewClient(Config{URL: "ws://hub.invalid", Logger: quiet, BackoffMin: time.Second, BackoffMax: 4 * time.Second,
			OnState: func(st LinkState) {
				if st.Status == Down {
					mu.Lock()
					downs = append(downs, st)
					mu.Unlock()
				}
			}})
		require.NoError(t, err)
		c.dial = func(context.Context, string, *websocket.DialOptions) (*websocket.Conn, *http.Response, error) {
			mu.Lock()
			attempts = append(attempts, time.Now())
			mu.Unlock()
			return nil, nil, errors.New("connection refused")
		}
		require.NoError(t, c.Start(context.Background()))
		time.Sleep(20 * time.Second)
		synctest.Wait()
		require.NoError(t, c.Close(context.Background()))

		mu.Lock()
		defer mu.Unlock()
		require.GreaterOrEqual(t, len(attempts), 6)
		steps := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}
		for i, step := range steps {
			gap := attempts[i+1].Sub(attempts[i])
			assert.GreaterOrEqual(t, gap, step/2, "delay before attempt %d", i+2)
			assert.LessOrEqual(t, gap, step, "delay before attempt %d", i+2)
			assert.Equal(t, attempts[i+1], downs[i].Retry, "the Down state says when the next attempt is")
			assert.ErrorContains(t, downs[i].Err, "connection refused")
		}
		n := len(attempts)
		time.Sleep(time.Minute)
		assert.Len(t, attempts, n, "no attempt after Close")
		assert.Equal(t, Disabled, c.State().Status)
	})
}
