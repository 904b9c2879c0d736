package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// remotePlugin stands for the hub's remote fallback in Order.
type remotePlugin struct{}

func (remotePlugin) ID() string { return hub.FallbackID }
func (remotePlugin) Match(context.Context, []string, string, session.Session) (*pipeline.Match, error) {
	return nil, nil
}

// The robot's pipeline runs stop first, then converse, then the intent
// stack's bands with the fallback stages among them, the last fallback
// ending it; a hub adds its remote fallback, which the default session
// runs before the last stage (CONV-10).
func TestOrderIsThePolicy(t *testing.T) {
	r := startRobot(t, Config{})
	ids := r.Pipeline()
	require.GreaterOrEqual(t, len(ids), 4)
	assert.Equal(t, []string{"stop", "converse"}, ids[:2])
	assert.Equal(t, pipeline.FallbackUnknown, ids[len(ids)-1])
	assert.NotContains(t, ids, hub.FallbackID, "no hub: no remote fallback")

	fallbacks, err := pipeline.NewFallbacks(pipeline.FallbackConfig{Bus: r.Bus()})
	require.NoError(t, err)
	plugins, withHub := Order(r.stop, nil, r.Intents(), fallbacks, remotePlugin{})
	assert.Equal(t, hub.FallbackID, plugins[len(plugins)-1].ID(), "the remote fallback is the last plugin built")
	assert.Contains(t, withHub, hub.FallbackID)
	assert.Equal(t, pipeline.FallbackUnknown, withHub[len(withHub)-1], "the last fallback still ends the pipeline")
	_, without := Order(r.stop, nil, r.Intents(), fallbacks, nil)
	assert.Equal(t, ids, without)
}

// What is started on the robot (the shell on its socket, the web page,
// the console) is stopped by the robot's Close, which waits for it: the
// socket and the page no longer answer once Close returns.
func TestCloseStopsWhatWasStartedOnTheRobot(t *testing.T) {
	r, err := newTestRobot(context.Background(), Config{StateDir: NoState})
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			_ = r.Close(context.Background())
		}
	}()
	sock := filepath.Join(t.TempDir(), "shell.sock")
	shell, err := r.StartShell(context.Background(), ShellConfig{Socket: sock, Reboot: ShellOff, StateDir: NoState})
	require.NoError(t, err)
	var page bytes.Buffer
	r.StartWeb("127.0.0.1:0", shell, &page)
	addr := regexp.MustCompile(`http://([0-9.:]+)/`).FindStringSubmatch(page.String())
	require.Len(t, addr, 2, page.String())
	var shown bytes.Buffer
	_, _, err = r.OpenConsole(ConsoleConfig{Input: "none", In: strings.NewReader(""), Out: &shown, Lang: "en-US"})
	require.NoError(t, err)

	for _, dial := range [][2]string{{"unix", sock}, {"tcp", addr[1]}} {
		c, err := net.DialTimeout(dial[0], dial[1], 5*time.Second)
		require.NoError(t, err, "%s answers while the robot runs", dial[1])
		c.Close()
	}
	require.NoError(t, r.Close(context.Background()))
	closed = true
	for _, dial := range [][2]string{{"unix", sock}, {"tcp", addr[1]}} {
		_, err := net.DialTimeout(dial[0], dial[1], 5*time.Second)
		assert.Error(t, err, "%s stopped with the robot", dial[1])
	}
	shell.Stop() // stopping again is harmless
}

// A robot's body events are on its bus as jibo.body.<device>.<kind>.
func TestBodyEventsOnTheBus(t *testing.T) {
	rec := &recorder{}
	startRobot(t, Config{Tap: rec.tap})
	require.Eventually(t, func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, m := range rec.msgs {
			if len(m.Type) > len("jibo.body.") && m.Type[:len("jibo.body.")] == "jibo.body." {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "homing the body is seen on the bus")
}

var _ bus.Handler = (&recorder{}).tap

// A trace file gets every bus message from the first, flushed and closed
// by Close; a trace and a tap together are refused.
func TestTraceFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	r, err := newTestRobot(context.Background(), Config{TracePath: path})
	require.NoError(t, err)
	require.NoError(t, r.Close(context.Background()))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
	}
	assert.Contains(t, string(b), `"jibo.body.`, "from the first: the body homing")

	_, err = newTestRobot(context.Background(), Config{TracePath: path, Tap: (&recorder{}).tap})
	assert.ErrorContains(t, err, "a trace and a tap both given")
	_, err = newTestRobot(context.Background(), Config{TracePath: filepath.Join(t.TempDir(), "no", "such", "dir", "t.jsonl")})
	assert.ErrorContains(t, err, "opening trace: ")
}
